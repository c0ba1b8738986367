import type { Db, Tx } from "../../db/database.js";
import { badInput, type FieldError } from "../../errors.js";
import { nowIso } from "../../shared/time.js";
import {
  type AnswerValue,
  maxQuestions,
  presentQuestion,
  type Question,
  validateAnswers,
} from "./questions.model.js";
import { questionsRepository as repo } from "./questions.repository.js";

/** Raw answers of one registration: question id to what was typed, picked or sent. */
export type RawAnswers = Readonly<Record<string, unknown>>;

/** A project's questions in order, for a caller that decided the reader may see them. */
export async function questionsOfProject(db: Db, projectId: string): Promise<Question[]> {
  return (await repo.list(db, projectId)).map(presentQuestion);
}

/** The stored answers of some attendees of a project, by attendee and question (one query). */
export async function answersByAttendee(
  db: Db,
  projectId: string,
  attendeeIds: readonly string[],
): Promise<Map<string, Map<string, AnswerValue>>> {
  const byAttendee = new Map<string, Map<string, AnswerValue>>();
  for (const row of await repo.answersOf(db, projectId, attendeeIds)) {
    const own = byAttendee.get(row.attendee_id) ?? new Map<string, AnswerValue>();
    own.set(row.question_id, JSON.parse(row.value) as AnswerValue);
    byAttendee.set(row.attendee_id, own);
  }
  return byAttendee;
}

/**
 * The answers of a new registration checked by `validateAnswers` against the project's questions,
 * or its errors with their field paths under `at` (a checkout's `tickets.2`), so a form shows each
 * one beside its own ticket's question.
 */
export function checkNewAnswers(
  questions: readonly Question[],
  ticketTypeId: string,
  raw: RawAnswers | undefined,
  at: readonly string[] = [],
): { answers: Map<string, AnswerValue | null>; errors: FieldError[] } {
  // More answers than an event has questions is garbage: refused before any is looked at.
  if (Object.keys(raw ?? {}).length > maxQuestions)
    return {
      answers: new Map(),
      errors: [{ field: [...at, "answers"], message: `must answer at most ${maxQuestions} questions` }],
    };
  const { answers, errors } = validateAnswers(questions, ticketTypeId, raw ?? {});
  return { answers, errors: errors.map((e) => ({ ...e, field: [...at, ...e.field] })) };
}

/**
 * Stores a new registration's answers inside its transaction, after the one check every way in
 * shares (registerAttendee, the event page, the checkout, the dashboard): a refusal rolls the
 * registration back with it. Throws BAD_USER_INPUT naming `answers.<question id>` under `at`.
 */
export async function answerRegistration(
  trx: Tx,
  attendee: { projectId: string; id: string; ticketTypeId: string },
  raw: RawAnswers | undefined,
  at: readonly string[] = [],
): Promise<void> {
  const questions = await questionsOfProject(trx, attendee.projectId);
  // No question asked and none answered: nothing to check or store (the common case).
  if (questions.length === 0 && Object.keys(raw ?? {}).length === 0) return;
  const { answers, errors } = checkNewAnswers(questions, attendee.ticketTypeId, raw, at);
  if (errors.length > 0) throw badInput(errors);
  await repo.saveAnswers(trx, attendee.projectId, attendee.id, answers, nowIso());
}

/** Stores answers `checkNewAnswers` accepted, for a caller that registers rows in bulk (the CSV import). */
export function saveCheckedAnswers(
  trx: Tx,
  attendee: { projectId: string; id: string },
  answers: ReadonlyMap<string, AnswerValue | null>,
  at: string,
): Promise<void> {
  return repo.saveAnswers(trx, attendee.projectId, attendee.id, answers, at);
}
