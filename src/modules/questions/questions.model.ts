import type { QuestionKind, RegistrationQuestionsTable } from "../../db/schema.js";
import type { FieldError } from "../../errors.js";
import { hasControlCharacters, isCalendarDate } from "../../shared/validation.js";

/** A registration question's row. */
export type QuestionRow = RegistrationQuestionsTable;

/** A registration question as every transport shows it. */
export interface Question {
  id: string;
  projectId: string;
  label: string;
  kind: QuestionKind;
  required: boolean;
  /** A line of help shown under the question; null: none. */
  help: string | null;
  /**
   * The choices of ONE_CHOICE and SEVERAL_CHOICES as the organizer wrote them (in the event's first
   * language); empty for the other kinds. An answer stores the choice so, whatever language it was
   * picked in.
   */
  options: string[];
  /** The choices as a page in another language shows them (same order as `options`); unset: as written. */
  optionLabels?: string[];
  /** The ticket types it is asked for; null: every ticket type. */
  ticketTypeIds: string[] | null;
  position: number;
}

/** An answer's value: text (short, long, a choice, a date, a country), a number, yes/no or choices. */
export type AnswerValue = string | number | boolean | string[];

/** One attendee's answer to one question, with the question. */
export interface Answer {
  question: Question;
  value: AnswerValue;
}

/** The kinds, in the order the dashboard offers them. */
export const questionKinds: readonly QuestionKind[] = [
  "SHORT_TEXT",
  "LONG_TEXT",
  "ONE_CHOICE",
  "SEVERAL_CHOICES",
  "YES_NO",
  "NUMBER",
  "DATE",
  "COUNTRY",
];

/** Whether a kind is answered by picking among the question's options. */
export const hasOptions = (kind: QuestionKind) => kind === "ONE_CHOICE" || kind === "SEVERAL_CHOICES";

/** The longest answer of each text kind: a long text is a paragraph, not a document. */
const maxLength: Partial<Record<QuestionKind, number>> = { SHORT_TEXT: 200, LONG_TEXT: 5_000 };

/** The most questions a project asks: a registration form, not a survey. */
export const maxQuestions = 50;

export function presentQuestion(row: QuestionRow): Question {
  return {
    id: row.id,
    projectId: row.project_id,
    label: row.label,
    help: row.help ?? null,
    kind: row.kind,
    required: row.required === 1,
    options: row.options ? (JSON.parse(row.options) as string[]) : [],
    ticketTypeIds: row.ticket_type_ids ? (JSON.parse(row.ticket_type_ids) as string[]) : null,
    position: row.position,
  };
}

/** Whether a question is asked of a holder of this ticket type. */
export function isAskedFor(question: Question, ticketTypeId: string): boolean {
  return question.ticketTypeIds === null || question.ticketTypeIds.includes(ticketTypeId);
}

// Intl knows the ISO 3166 regions; an unknown two-letter code comes back unchanged.
const regions = new Intl.DisplayNames(["en"], { type: "region" });
// Codes Intl names that are no country: unions, the UN, "unknown region" and test pseudo-regions.
const notCountries = new Set(["EU", "EZ", "UN", "QO", "XA", "XB", "ZZ"]);
function isCountry(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code) || notCountries.has(code)) return false;
  try {
    return regions.of(code) !== code;
  } catch {
    return false;
  }
}

/** The codes a COUNTRY answer may take, by their English names: what a form offers to pick from. */
export const countryCodes: readonly string[] = (() => {
  const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const codes = [...letters].flatMap((a) => [...letters].map((b) => a + b)).filter(isCountry);
  return codes.sort((a, b) => (regions.of(a) ?? a).localeCompare(regions.of(b) ?? b, "en"));
})();

/** A country code's English name (the code itself when Intl does not know it). */
export const countryName = (code: string): string => regions.of(code) ?? code;

/**
 * One raw answer checked against its question and normalized (trimmed text, upper-case country,
 * choices deduplicated in the question's order), or an error message. `undefined`, null, "" and an
 * empty list mean "no answer": the caller decides whether that is allowed (`required`).
 */
function parseAnswer(question: Question, raw: unknown): { value: AnswerValue | null } | { error: string } {
  if (raw === undefined || raw === null) return { value: null };
  const text = typeof raw === "string" ? raw.trim() : undefined;
  if (text === "" || (Array.isArray(raw) && raw.length === 0)) return { value: null };
  switch (question.kind) {
    case "SHORT_TEXT":
    case "LONG_TEXT": {
      const max = maxLength[question.kind] ?? 0;
      if (text === undefined) return { error: "must be text" };
      if (text.length > max) return { error: `must be at most ${max} characters` };
      if (hasControlCharacters(text, question.kind === "LONG_TEXT"))
        return { error: "must not hold control characters" };
      return { value: text };
    }
    case "ONE_CHOICE":
      if (text === undefined || !question.options.includes(text))
        return { error: "must be one of the choices" };
      return { value: text };
    case "SEVERAL_CHOICES": {
      const picked = Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : undefined;
      if (!picked || picked.some((p) => typeof p !== "string" || !question.options.includes(p.trim())))
        return { error: "must be some of the choices" };
      const chosen = new Set(picked.map((p) => (p as string).trim()));
      return { value: question.options.filter((o) => chosen.has(o)) };
    }
    case "YES_NO":
      if (typeof raw === "boolean") return { value: raw };
      if (text === "true" || text === "yes") return { value: true };
      if (text === "false" || text === "no") return { value: false };
      return { error: "must be yes or no" };
    case "NUMBER": {
      const n =
        typeof raw === "number"
          ? raw
          : text !== undefined && /^-?\d+(\.\d+)?$/.test(text)
            ? Number(text)
            : Number.NaN;
      if (!Number.isFinite(n) || Math.abs(n) > 1e12) return { error: "must be a number" };
      return { value: n };
    }
    case "DATE": {
      const m = text === undefined ? null : /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      if (!m || !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])))
        return { error: "must be a date as YYYY-MM-DD" };
      return { value: text as string };
    }
    case "COUNTRY": {
      const code = text?.toUpperCase();
      if (code === undefined || !isCountry(code))
        return { error: "must be a two-letter ISO 3166 country code" };
      return { value: code };
    }
  }
}

/**
 * The one check of a registration's answers, used by every way in (event page, dashboard, CSV
 * import, API): each answer must belong to a question asked for this ticket type and be valid for
 * it, and each required question asked for it must be answered. `raw` maps question ids to values.
 * Returns the answers to store, or the field errors (under `answers.<questionId>`).
 */
export function validateAnswers(
  questions: readonly Question[],
  ticketTypeId: string,
  raw: Readonly<Record<string, unknown>>,
  options: { partial?: boolean } = {},
): { answers: Map<string, AnswerValue | null>; errors: FieldError[] } {
  const asked = new Map(questions.filter((q) => isAskedFor(q, ticketTypeId)).map((q) => [q.id, q]));
  const answers = new Map<string, AnswerValue | null>();
  const errors: FieldError[] = [];
  for (const id of Object.keys(raw)) {
    if (!asked.has(id))
      errors.push({ field: ["answers", id], message: "is not a question asked for this ticket type" });
  }
  for (const question of asked.values()) {
    // A partial change (the organizer editing one answer) leaves the unnamed questions alone.
    if (options.partial && !(question.id in raw)) continue;
    const parsed = parseAnswer(question, raw[question.id]);
    if ("error" in parsed) errors.push({ field: ["answers", question.id], message: parsed.error });
    else if (parsed.value === null && question.required)
      errors.push({ field: ["answers", question.id], message: `"${question.label}" needs an answer` });
    else answers.set(question.id, parsed.value);
  }
  return { answers, errors };
}
