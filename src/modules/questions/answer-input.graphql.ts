import { builder } from "../../graphql/builder.js";
import { referenceLocal } from "../../graphql/ids.js";
import { maxQuestions } from "./questions.model.js";

/** One answer as the API takes it, in `registerAttendee` and `setAttendeeAnswers`. */
interface AnswerInputShape {
  questionId: string;
  value?: string | null | undefined;
  choices?: string[] | null | undefined;
}

/**
 * `RegistrationAnswerInput`, apart from the questions' other types so the attendees module's
 * `registerAttendee` takes it without importing the module that extends `Attendee` (no cycle).
 */
export const AnswerInput = builder.inputRef<AnswerInputShape>("RegistrationAnswerInput").implement({
  description: "One answer: `value` for every kind but SEVERAL_CHOICES, which takes `choices`.",
  fields: (t) => ({
    questionId: t.id({ required: true, description: "The question's global id." }),
    value: t.string({ description: "The answer as text (true/false for YES_NO); null clears it." }),
    choices: t.stringList({ description: "For SEVERAL_CHOICES: the picked choices." }),
  }),
});

/**
 * API answers as the services take them (question id to value). One more than an event may ask is
 * kept, so the service still refuses a list that is too long rather than reading thousands.
 */
export function answersFromInput(
  list: readonly AnswerInputShape[] | null | undefined,
): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const a of (list ?? []).slice(0, maxQuestions + 1))
    answers[referenceLocal(a.questionId, "RegistrationQuestion")] = a.choices ?? a.value ?? null;
  return answers;
}
