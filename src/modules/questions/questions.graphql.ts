import { notFound } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { globalId, referenceLocal, requiredLocal } from "../../graphql/ids.js";
import { boundedList } from "../../graphql/limits/list-bounds.js";
import { inputMutation, payloadType } from "../../graphql/mutations.js";
import { requires } from "../../graphql/permissions.js";
import { languages } from "../../shared/i18n/languages.js";
import { systemActor } from "../access/actor.js";
import { AttendeeRef } from "../attendees/attendees.graphql.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import { AnswerInput, answersFromInput } from "./answer-input.graphql.js";
import type { QuestionTranslation } from "./question-translations.js";
import { type Answer, maxQuestions, type Question, questionKinds } from "./questions.model.js";

const QuestionRef = builder.objectRef<Question>("RegistrationQuestion");
const TranslationRef = builder.objectRef<QuestionTranslation>("RegistrationQuestionTranslation");
const AnswerRef = builder.objectRef<Answer>("RegistrationAnswer");

const kindDescriptions: Record<(typeof questionKinds)[number], string> = {
  SHORT_TEXT: "One line of text, at most 200 characters.",
  LONG_TEXT: "Text with line breaks, at most 5,000 characters.",
  ONE_CHOICE: "Exactly one of the options.",
  SEVERAL_CHOICES: "Some of the options.",
  YES_NO: "Yes or no.",
  NUMBER: "A number.",
  DATE: "A calendar date, YYYY-MM-DD.",
  COUNTRY: "A two-letter ISO 3166 country code.",
};

const QuestionKindEnum = builder.enumType("RegistrationQuestionKind", {
  description: "What a registration question asks for (the Registration questions guide).",
  values: Object.fromEntries(questionKinds.map((k) => [k, { description: kindDescriptions[k] }])) as Record<
    (typeof questionKinds)[number],
    { description: string }
  >,
});

const ticketTypeIds = (ids: readonly string[] | null | undefined) =>
  ids ? ids.map((id) => referenceLocal(id, "TicketType")) : ids;

/** An answer as the API shows it: text for every kind, and the list for several choices. */
function answerText(value: Answer["value"]): string {
  if (Array.isArray(value)) return value.join("; ");
  return String(value);
}

/** Defines registration questions (`Project.registrationQuestions`), `Attendee.answers` and their mutations. */
export function defineQuestionTypes(): void {
  QuestionRef.implement({
    inheritsAccess: true,
    description: "A question the event asks at registration; its answers are attendees' personal data.",
    fields: (t) => ({
      id: t.id({
        description: "The question's global id.",
        resolve: (q) => globalId("RegistrationQuestion", q.id),
      }),
      label: t.exposeString("label", {
        description: "The question as asked, in the event's first language.",
      }),
      help: t.exposeString("help", {
        nullable: true,
        description: "A line of help shown under the question; null: none.",
      }),
      kind: t.expose("kind", { type: QuestionKindEnum, description: "What it asks for." }),
      required: t.exposeBoolean("required", { description: "Whether a registration needs an answer." }),
      options: t.exposeStringList("options", {
        ...boundedList(50),
        description: "The choices of ONE_CHOICE and SEVERAL_CHOICES; empty for other kinds.",
      }),
      ticketTypeIds: t.idList({
        ...boundedList(100),
        nullable: true,
        description: "Global ids of the ticket types it is asked for; null: every ticket type.",
        resolve: (q) => q.ticketTypeIds?.map((id) => globalId("TicketType", id)) ?? null,
      }),
      translations: t.field({
        type: [TranslationRef],
        ...boundedList(languages.length),
        description:
          "Its texts in the event's other languages; the event page shows the first language's text where one is missing.",
        resolve: (q, _args, c) => c.loaders.questionTranslations.load(q.id),
      }),
    }),
  });

  TranslationRef.implement({
    inheritsAccess: true,
    description: "A registration question's texts in one language; null means the question's own text.",
    fields: (t) => ({
      language: t.exposeString("language", { description: "The language's code: en, de, fr or es." }),
      label: t.exposeString("label", { nullable: true, description: "The question in this language." }),
      help: t.exposeString("help", { nullable: true, description: "The help line in this language." }),
      options: t.stringList({
        ...boundedList(50),
        nullable: { list: false, items: true },
        description:
          "Each option's text in this language, in the order of the question's options (null: not translated). Answers store the option itself, whatever language it was picked in.",
        resolve: (tr) => tr.options,
      }),
    }),
  });

  AnswerRef.implement({
    inheritsAccess: true,
    description: "One attendee's answer to one registration question.",
    fields: (t) => ({
      question: t.field({ type: QuestionRef, description: "The question.", resolve: (a) => a.question }),
      text: t.string({
        description:
          "The answer as text: the text, the choice, the number, true/false, a YYYY-MM-DD date, a country code; several choices joined by '; '.",
        resolve: (a) => answerText(a.value),
      }),
      choices: t.stringList({
        ...boundedList(50),
        nullable: true,
        description: "For SEVERAL_CHOICES: the choices picked, in the question's order; else null.",
        resolve: (a) => (Array.isArray(a.value) ? a.value : null),
      }),
    }),
  });

  builder.objectField(ProjectRef, "registrationQuestions", (t) =>
    t.field({
      ...projectIdOnly({
        extensions: { ...requires("tickets:read").extensions, ...boundedList(maxQuestions).extensions },
      }),
      type: [QuestionRef],
      nullable: true,
      description: "The questions asked at registration, in the organizer's order (tickets:read).",
      resolve: async (project, _args, c) => {
        const access = await c.access(project.id);
        return access ? c.services.questions.listQuestions(access) : null;
      },
    }),
  );

  builder.objectField(AttendeeRef, "answers", (t) =>
    t.field({
      extensions: { ...requires("attendees:read").extensions, ...boundedList(maxQuestions).extensions },
      type: [AnswerRef],
      nullable: true,
      description: "Their answers to the registration questions, in the questions' order (attendees:read).",
      resolve: (a, _args, c) => c.loaders.answers.load(a.id),
    }),
  );

  const SetAnswersInput = builder.inputType("SetAttendeeAnswersInput", {
    description: "Some of an attendee's answers; questions not named keep theirs.",
    fields: (t) => ({
      attendeeId: t.id({ required: true, description: "The attendee's global id." }),
      answers: t.field({ type: [AnswerInput], required: true, description: `At most ${maxQuestions}.` }),
    }),
  });
  const TranslationInput = builder.inputType("RegistrationQuestionTranslationInput", {
    description: "A question's texts in one of the event's other languages; a blank text is not translated.",
    fields: (t) => ({
      language: t.string({ required: true, description: "The language's code: en, de, fr or es." }),
      label: t.string({ description: "The question, at most 300 characters." }),
      help: t.string({ description: "The help line, at most 500 characters." }),
      options: t.stringList({
        required: { list: false, items: false },
        description:
          "Each option's text, in the order of the question's options (at most 200 characters each).",
      }),
    }),
  });
  const CreateInput = builder.inputType("CreateRegistrationQuestionInput", {
    description: "A new registration question, asked after the existing ones.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      label: t.string({ required: true, description: "The question as asked, at most 300 characters." }),
      help: t.string({ description: "A line of help under the question, at most 500 characters." }),
      kind: t.field({ type: QuestionKindEnum, required: true, description: "What it asks for." }),
      required: t.boolean({ description: "Whether a registration needs an answer; default false." }),
      options: t.stringList({ description: "For a choice: at least two distinct options (at most 50)." }),
      ticketTypeIds: t.idList({ description: "The ticket types it is asked for; omitted: every one." }),
      translations: t.field({
        type: [TranslationInput],
        description: "Its texts in the event's other languages (one per language).",
      }),
    }),
  });
  const DeleteInput = builder.inputType("DeleteRegistrationQuestionInput", {
    description: "The question to delete, with every answer to it.",
    fields: (t) => ({ id: t.id({ required: true, description: "The question's global id." }) }),
  });
  builder.mutationFields((t) => ({
    createRegistrationQuestion: inputMutation(t, {
      permission: "tickets:write",
      description: "Adds a registration question after the existing ones.",
      input: CreateInput,
      payload: payloadType(
        "CreateRegistrationQuestionPayload",
        "question",
        QuestionRef,
        "The result of createRegistrationQuestion.",
      ),
      field: "question",
      write: (input, c) =>
        c.services.questions.createQuestion(c.actor, {
          ...input,
          required: input.required ?? undefined,
          ticketTypeIds: ticketTypeIds(input.ticketTypeIds),
        }),
    }),
    deleteRegistrationQuestion: inputMutation(t, {
      permission: "tickets:write",
      description: "Deletes a registration question and every answer to it.",
      input: DeleteInput,
      payload: payloadType(
        "DeleteRegistrationQuestionPayload",
        "question",
        QuestionRef,
        "The result of deleteRegistrationQuestion.",
      ),
      field: "question",
      write: (input, c) =>
        c.services.questions.deleteQuestion(c.actor, { id: requiredLocal(input.id, "RegistrationQuestion") }),
    }),
    setAttendeeAnswers: inputMutation(t, {
      permission: "attendees:write",
      description: "Changes some of an attendee's answers, checked as at registration; audited.",
      input: SetAnswersInput,
      payload: payloadType(
        "SetAttendeeAnswersPayload",
        "attendee",
        AttendeeRef,
        "The result of setAttendeeAnswers.",
      ),
      field: "attendee",
      write: async (input, c) => {
        const answers = answersFromInput(input.answers);
        const attendeeId = requiredLocal(input.attendeeId, "Attendee");
        await c.services.questions.setAnswers(c.actor, { attendeeId, answers });
        // The write was authorized above; the attendee is answered as every attendee mutation
        // answers it, its fields guarded one by one (attendees:read decides what the caller sees).
        const found = await c.services.attendees.findAttendee(systemActor, attendeeId);
        if (!found) throw notFound("Attendee");
        return found.item;
      },
    }),
  }));
}
