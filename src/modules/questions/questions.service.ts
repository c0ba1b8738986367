import { z } from "zod";
import type { Db, Tx } from "../../db/database.js";
import { badInput, notFound } from "../../errors.js";
import type { ErasedPerson } from "../../shared/erasure.js";
import { languages } from "../../shared/i18n/languages.js";
import { newId } from "../../shared/ids.js";
import { objectEvent, type ProjectChanges, updateEvent } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { idText, optionalText, parseInput, requiredText } from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertPermission, attendeeVisible } from "../access/policy.js";
import { createRow, resolveRowAccess, writeRow } from "../access/row-access.js";
import { requireTicketTypesOf } from "../tickets/tickets.service.js";
import {
  type QuestionTranslationInput,
  translationRows,
  translationsByQuestion,
} from "./question-translations.js";
import {
  type Answer,
  type AnswerValue,
  hasOptions,
  maxQuestions,
  presentQuestion,
  type Question,
  type QuestionRow,
  questionKinds,
  validateAnswers,
} from "./questions.model.js";
import { questionsRepository as repo } from "./questions.repository.js";
import { answersByAttendee, questionsOfProject } from "./registration-answers.js";

/**
 * Who manages the questions: whoever may shape what a registration offers (tickets:write), as ticket
 * types themselves. Reading them needs tickets:read: a registration widget that lists ticket types
 * needs the questions to register anyone, and a question holds no personal data (the answers do,
 * and need attendees:read). agenda:read, which the issue suggests, is about the programme, and a
 * schedule app holding it has no business with the registration form.
 */
const managePermission = "tickets:write" as const;
const readPermission = "tickets:read" as const;
const questionsVisible = (access: ProjectAccess) => access.permissions.has(readPermission);

const option = requiredText(200);
const definition = z.object({
  label: requiredText(300),
  help: optionalText(500),
  kind: z.enum(questionKinds as [string, ...string[]]),
  required: z.boolean().default(false),
  options: z.array(option).max(50).nullish(),
  ticketTypeIds: z.array(idText).max(100).nullish(),
  /** The label, help and options in the event's other languages (question-translations.ts). */
  translations: z.array(z.unknown()).max(languages.length).nullish(),
});
const createInput = definition.extend({ projectId: idText });
const updateInput = definition.partial().extend({ id: idText });
const moveInput = z.object({ projectId: idText, questionIds: z.array(idText).max(maxQuestions) });

export type CreateQuestionInput = z.input<typeof createInput>;
export type UpdateQuestionInput = z.input<typeof updateInput>;

/** The options a kind takes: distinct, at least two for a choice; none for the other kinds. */
function checkOptions(kind: string, options: readonly string[] | null | undefined): string | null {
  if (!hasOptions(kind as QuestionRow["kind"])) return null;
  const distinct = [...new Set((options ?? []).map((o) => o.trim()))];
  if (distinct.length < 2)
    throw badInput([{ field: ["options"], message: "a choice needs at least two options" }]);
  return JSON.stringify(distinct);
}

/** Registration questions (tickets:write to manage) and attendees' answers (attendees:*). */
export function createQuestionsService(db: Db, access: AccessService, changes: ProjectChanges) {
  const writer = { db, access, changes };

  /** Answers by attendee, each list in the question order. */
  async function loadAnswers(db: Db, projectId: string, attendeeIds: readonly string[]) {
    const [questions, byAttendee] = await Promise.all([
      questionsOfProject(db, projectId),
      answersByAttendee(db, projectId, attendeeIds),
    ]);
    return new Map<string, Answer[]>(
      attendeeIds.map((id) => {
        const own = byAttendee.get(id);
        const answers = questions.flatMap((question) => {
          const value = own?.get(question.id);
          return value === undefined ? [] : [{ question, value }];
        });
        return [id, answers];
      }),
    );
  }

  return {
    /** Adds a question at the end of the project's list (tickets:write). */
    async createQuestion(actor: Actor, input: CreateQuestionInput): Promise<Question> {
      let translations: QuestionTranslationInput[] = [];
      const row = await createRow(
        writer,
        actor,
        input.projectId,
        managePermission,
        () => {
          const data = parseInput(createInput, input);
          translations = (data.translations ?? []) as QuestionTranslationInput[];
          const now = nowIso();
          const prepared: QuestionRow = {
            id: newId(),
            project_id: data.projectId,
            label: data.label,
            help: data.help,
            kind: data.kind as QuestionRow["kind"],
            required: data.required ? 1 : 0,
            options: checkOptions(data.kind, data.options),
            ticket_type_ids: data.ticketTypeIds?.length
              ? JSON.stringify([...new Set(data.ticketTypeIds)])
              : null,
            position: 0,
            created_at: now,
            updated_at: now,
          };
          return prepared;
        },
        async (trx, prepared) => {
          await requireTicketTypesOf(
            trx,
            prepared.project_id,
            prepared.ticket_type_ids ? JSON.parse(prepared.ticket_type_ids) : null,
          );
          const existing = await repo.list(trx, prepared.project_id);
          if (existing.length >= maxQuestions)
            throw badInput([
              { field: ["projectId"], message: `an event asks at most ${maxQuestions} questions` },
            ]);
          prepared.position = (existing.at(-1)?.position ?? 0) + 1;
          await repo.insert(trx, prepared);
          const translated = translationRows(presentQuestion(prepared), translations);
          await repo.replaceTranslations(trx, prepared.project_id, prepared.id, translated);
          await changes.event(trx, actor, {
            ...objectEvent(prepared.project_id, "RegistrationQuestion", prepared.id, "created"),
            values: { label: prepared.label, kind: prepared.kind, required: prepared.required === 1 },
          });
        },
      );
      return presentQuestion(row);
    },

    /** Changes a question; a choice keeps the answers given, even to an option removed since. */
    async updateQuestion(actor: Actor, input: UpdateQuestionInput): Promise<Question> {
      const data = parseInput(updateInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locate(db, data.id),
        "RegistrationQuestion",
        managePermission,
        questionsVisible,
        async (trx, projectId) => {
          const before = await repo.find(trx, projectId, data.id);
          if (!before) throw notFound("RegistrationQuestion");
          // The kind is fixed once asked: answers stored under one kind would not parse as another.
          if (data.kind !== undefined && data.kind !== before.kind)
            throw badInput([{ field: ["kind"], message: "cannot change; add a new question instead" }]);
          const patch: Partial<QuestionRow> = { updated_at: nowIso() };
          if (data.label !== undefined) patch.label = data.label;
          if (data.help !== undefined) patch.help = data.help;
          if (data.required !== undefined) patch.required = data.required ? 1 : 0;
          if (data.options !== undefined) patch.options = checkOptions(before.kind, data.options);
          if (data.ticketTypeIds !== undefined) {
            await requireTicketTypesOf(trx, projectId, data.ticketTypeIds);
            patch.ticket_type_ids = data.ticketTypeIds?.length
              ? JSON.stringify([...new Set(data.ticketTypeIds)])
              : null;
          }
          await repo.update(trx, projectId, data.id, patch);
          const after = { ...before, ...patch };
          if (data.translations !== undefined) {
            const rows = translationRows(
              presentQuestion(after),
              (data.translations ?? []) as QuestionTranslationInput[],
            );
            await repo.replaceTranslations(trx, projectId, data.id, rows);
          }
          await changes.event(
            trx,
            actor,
            updateEvent(projectId, "RegistrationQuestion", data.id, data, {
              before: { ...before },
              after: { ...after },
            }),
          );
          return presentQuestion(after);
        },
      );
    },

    /** Deletes a question and every answer to it. */
    async deleteQuestion(actor: Actor, input: { id: string }): Promise<Question> {
      const { id } = parseInput(z.object({ id: idText }), input);
      return writeRow(
        writer,
        actor,
        await repo.locate(db, id),
        "RegistrationQuestion",
        managePermission,
        questionsVisible,
        async (trx, projectId) => {
          const row = await repo.find(trx, projectId, id);
          if (!row) throw notFound("RegistrationQuestion");
          await repo.delete(trx, projectId, id);
          await changes.event(trx, actor, {
            ...objectEvent(projectId, "RegistrationQuestion", id, "deleted"),
            values: { label: row.label },
          });
          return presentQuestion(row);
        },
      );
    },

    /** Puts the project's questions in the given order; it must name each question once. */
    async reorderQuestions(
      actor: Actor,
      input: { projectId: string; questionIds: string[] },
    ): Promise<Question[]> {
      const data = parseInput(moveInput, input);
      let result: Question[] = [];
      await createRow(
        writer,
        actor,
        data.projectId,
        managePermission,
        () => data,
        async (trx) => {
          const rows = await repo.list(trx, data.projectId);
          const wanted = new Set(data.questionIds);
          if (
            wanted.size !== data.questionIds.length ||
            rows.length !== wanted.size ||
            rows.some((r) => !wanted.has(r.id))
          )
            throw badInput([
              { field: ["questionIds"], message: "must name each question of the event once" },
            ]);
          const now = nowIso();
          for (const [index, id] of data.questionIds.entries())
            await repo.update(trx, data.projectId, id, { position: index + 1, updated_at: now });
          await changes.event(trx, actor, {
            ...objectEvent(data.projectId, "RegistrationQuestion", data.questionIds[0] ?? "", "reordered"),
            values: { order: data.questionIds },
          });
          result = (await repo.list(trx, data.projectId)).map(presentQuestion);
        },
      );
      return result;
    },

    /** A question, when the actor holds tickets:read in its project (else undefined, as a missing one). */
    async findQuestion(
      actor: Actor,
      id: string,
    ): Promise<{ item: Question; access: ProjectAccess } | undefined> {
      const row = await repo.locate(db, id);
      const found = await resolveRowAccess(access, actor, row, questionsVisible);
      return row && found ? { item: presentQuestion(row), access: found } : undefined;
    },

    /** The project's questions in order (tickets:read). */
    async listQuestions(projectAccess: ProjectAccess): Promise<Question[]> {
      assertPermission(projectAccess, readPermission);
      return questionsOfProject(db, projectAccess.projectId);
    },

    /**
     * The translations of questions the caller has already read, by question id (the API's loader
     * batches a page's into one statement; the dashboard's edit page asks for one).
     */
    translationsByQuestionIds: (questionIds: readonly string[]) => translationsByQuestion(db, questionIds),

    /**
     * The answers of some attendees (attendees:read), in the question order, in one query: the
     * API's `Attendee.answers` loads a page's at once.
     */
    async answersOf(
      projectAccess: ProjectAccess,
      attendeeIds: readonly string[],
    ): Promise<Map<string, Answer[]>> {
      assertPermission(projectAccess, "attendees:read");
      return loadAnswers(db, projectAccess.projectId, attendeeIds);
    },

    /**
     * Answers by attendee, for attendees the caller has already read (the API's loader batches a
     * page's into one statement); the rows carry their project, so no cross-project mix is possible.
     */
    async answersByAttendeeIds(attendeeIds: readonly string[]): Promise<Map<string, Answer[]>> {
      const result = new Map<string, Answer[]>();
      if (attendeeIds.length === 0) return result;
      for (const row of await repo.answersWithQuestions(db, attendeeIds)) {
        const { attendee_id, value, ...question } = row;
        const list = result.get(attendee_id) ?? [];
        list.push({ question: presentQuestion(question), value: JSON.parse(value) as AnswerValue });
        result.set(attendee_id, list);
      }
      return result;
    },

    /**
     * The organizer changes some of an attendee's answers (attendees:write): only the named
     * questions change, null clears one, and a required question cannot be cleared. Audited with
     * the labels of the questions changed, not their values.
     */
    async setAnswers(
      actor: Actor,
      input: { attendeeId: string; answers: Record<string, unknown> },
    ): Promise<Answer[]> {
      const { attendeeId } = parseInput(z.object({ attendeeId: idText }), input);
      if (
        typeof input.answers !== "object" ||
        input.answers === null ||
        Object.keys(input.answers).length > maxQuestions
      )
        throw badInput([
          { field: ["answers"], message: `must map at most ${maxQuestions} question ids to answers` },
        ]);
      const attendee = await repo.attendee(db, attendeeId);
      return writeRow(
        writer,
        actor,
        attendee,
        "Attendee",
        "attendees:write",
        attendeeVisible,
        async (trx, projectId) => {
          const questions = await questionsOfProject(trx, projectId);
          const { answers, errors } = validateAnswers(
            questions,
            attendee?.ticket_type_id ?? "",
            input.answers,
            { partial: true },
          );
          if (errors.length > 0) throw badInput(errors);
          await repo.saveAnswers(trx, projectId, attendeeId, answers, nowIso());
          const labels = new Map(questions.map((q) => [q.id, q.label]));
          await changes.event(trx, actor, {
            ...objectEvent(projectId, "Attendee", attendeeId, "answers_updated"),
            changed: ["answers"],
            // The questions, not the answers: an answer is free text erasure could not find in the log.
            values: { questions: [...answers.keys()].map((id) => labels.get(id) ?? id) },
          });
          return (await loadAnswers(trx, projectId, [attendeeId])).get(attendeeId) ?? [];
        },
      );
    },
  };
}

/** Erasure: an erased attendee's answers go with them (they may hold anything they typed). */
export async function eraseAnswers(trx: Tx, person: ErasedPerson): Promise<void> {
  await repo.deleteAnswersOf(trx, person.attendeeId);
}
