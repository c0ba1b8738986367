import { stateFromError } from "../dashboard/form-data.js";
import type { FormState } from "../dashboard/ui/forms.js";
import type { Question } from "../modules/questions/questions.model.js";
import type { MessageKey } from "../shared/i18n/catalogues/en.js";
import type { Translator } from "../shared/i18n/translator.js";

type Words = { key: MessageKey; values?: Record<string, string | number> };

/**
 * The refusals a visitor can cause on the event site, recognized by their wording: the services
 * speak English to every caller (the API's messages are part of its contract), and the site puts
 * the ones its visitors meet in the page's language. Anything not listed falls back to a general
 * sentence in that language (never the English text): the field still says where to look.
 */
const known: [RegExp, (m: RegExpExecArray) => Words][] = [
  [/must not be empty|^required|needs an answer/i, () => ({ key: "invalid.empty" })],
  [/at most (\d+) characters/i, (m) => ({ key: "invalid.tooLong", values: { max: Number(m[1]) } })],
  [/valid email address/i, () => ({ key: "invalid.email" })],
  [/control characters|bidirectional/i, () => ({ key: "invalid.control" })],
  [/must be one of the choices/i, () => ({ key: "invalid.choice" })],
  [/must be some of the choices/i, () => ({ key: "invalid.choices" })],
  [/must be yes or no/i, () => ({ key: "invalid.yesNo" })],
  [/must be a number/i, () => ({ key: "invalid.number" })],
  [/must be a date/i, () => ({ key: "invalid.date" })],
  [/country code/i, () => ({ key: "invalid.country" })],
  [
    /^Only (\d+) "(.+)" tickets? (?:is|are) left/,
    (m) => ({ key: "invalid.left", values: { count: Number(m[1]), ticket: m[2] ?? "" } }),
  ],
  [/"(.+)" is sold out/, (m) => ({ key: "invalid.soldOut", values: { ticket: m[1] ?? "" } })],
  [/"(.+)" is not on sale/, (m) => ({ key: "invalid.notOnSale", values: { ticket: m[1] ?? "" } })],
  [/^is sold out/i, () => ({ key: "tickets.soldOut" })],
  [/^is not on sale/i, () => ({ key: "order.notOnSale" })],
  [/already has a ticket|already registered for this event/i, () => ({ key: "invalid.hasTicket" })],
  [/registration for this event is closed/i, () => ({ key: "invalid.closed" })],
  [/paid in different ways/i, () => ({ key: "invalid.mixed" })],
  [/does not take bank transfers/i, () => ({ key: "invalid.noTransfer" })],
  [/does not take card payments/i, () => ({ key: "invalid.noCard" })],
  [/is not a valid code|code is not valid/i, () => ({ key: "invalid.code" })],
  [/does not apply to the tickets/i, () => ({ key: "invalid.codeTickets" })],
  [
    /applies to at most (\d+) tickets per order/i,
    (m) => ({ key: "invalid.codePerOrder", values: { max: Number(m[1]) } }),
  ],
  [/has been used up/i, () => ({ key: "invalid.codeUsedUp" })],
];

/** One English refusal in the page's language; `fallback` when its wording is not one the site knows. */
export function siteMessage(words: Translator, message: string, fallback: MessageKey): string {
  for (const [pattern, toWords] of known) {
    const match = pattern.exec(message);
    if (match) {
      const found = toWords(match);
      return words.t(found.key, found.values);
    }
  }
  return words.t(fallback);
}

/**
 * A refused form in the page's language: each field's message translated, a required question left
 * blank said as such, and the form's own message (a conflict such as "sold out") translated too.
 */
export function siteFormState(
  error: unknown,
  values: Record<string, string>,
  words: Translator,
  questions: readonly Question[] = [],
): FormState {
  const state = stateFromError(error, values);
  const asked = new Set(questions.map((q) => q.id));
  const errors: Record<string, string> = {};
  for (const [name, message] of Object.entries(state.errors)) {
    // "answers.<id>" or "tickets.<i>.answers.<id>": a question's answer, named without its label.
    const questionId = /(?:^|\.)answers\.([^.]+)$/.exec(name)?.[1];
    errors[name] =
      questionId && asked.has(questionId) && /needs an answer/.test(message)
        ? words.t("invalid.answer")
        : siteMessage(words, message, "invalid.field");
  }
  const hasFieldErrors = Object.keys(errors).length > 0;
  return {
    values: state.values,
    errors,
    formError: hasFieldErrors
      ? words.t("invalid.form")
      : state.formError
        ? siteMessage(words, state.formError, "invalid.refused")
        : undefined,
  };
}
