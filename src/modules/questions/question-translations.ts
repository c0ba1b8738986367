import { z } from "zod";
import type { Db } from "../../db/database.js";
import type { QuestionTranslationsTable } from "../../db/schema.js";
import { badInput, type FieldError } from "../../errors.js";
import { isLanguage, type Language, languages } from "../../shared/i18n/languages.js";
import { hasControlCharacters } from "../../shared/validation.js";
import type { Question } from "./questions.model.js";
import { questionsRepository as repo } from "./questions.repository.js";

/** A question's texts in one of the event's other languages; null (or a blank option): as written. */
export interface QuestionTranslation {
  language: Language;
  label: string | null;
  help: string | null;
  /** One per option of the question, in its order. */
  options: (string | null)[];
}

/** The longest texts, as long as the question's own may be. */
const limits = { label: 300, help: 500, option: 200 } as const;

/** A translation as the API and the dashboard send it: blanks mean "not translated". */
const translationInput = z.object({
  language: z.enum(languages),
  label: z.string().nullish(),
  help: z.string().nullish(),
  options: z.array(z.string().nullable()).max(50).nullish(),
});
export type QuestionTranslationInput = z.input<typeof translationInput>;

const blankToNull = (text: string | null | undefined) => (text?.trim() ? text.trim() : null);

/**
 * The stored rows of a question's translations, checked: each language once, texts within the
 * question's own limits and without control characters, one option text per option. A translation
 * with no text at all is dropped. Options are stored by the option as written, so a renamed or
 * removed option loses its translation rather than showing another's.
 */
export function translationRows(
  question: Pick<Question, "id" | "projectId" | "options">,
  input: readonly QuestionTranslationInput[],
): QuestionTranslationsTable[] {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  const rows: QuestionTranslationsTable[] = [];
  for (const [index, raw] of input.entries()) {
    const parsed = translationInput.safeParse(raw);
    const at = (...rest: string[]) => ["translations", String(index), ...rest];
    if (!parsed.success) {
      problems.push({ field: at(), message: "must name a language and give texts" });
      continue;
    }
    const { language } = parsed.data;
    if (seen.has(language)) problems.push({ field: at("language"), message: "must name each language once" });
    seen.add(language);
    const label = blankToNull(parsed.data.label);
    const help = blankToNull(parsed.data.help);
    const given = parsed.data.options ?? [];
    if (given.length > question.options.length)
      problems.push({ field: at("options"), message: "must give at most one text per option" });
    const options = Object.fromEntries(
      question.options.flatMap((own, i) => {
        const text = blankToNull(given[i]);
        return text ? [[own, text]] : [];
      }),
    );
    const texts: [string, string | null, number][] = [
      ["label", label, limits.label],
      ["help", help, limits.help],
      ...Object.values(options).map((text, i): [string, string, number] => [
        `options.${i}`,
        text,
        limits.option,
      ]),
    ];
    for (const [field, text, max] of texts) {
      if (text === null) continue;
      if ([...text].length > max)
        problems.push({ field: at(field), message: `must be at most ${max} characters` });
      else if (hasControlCharacters(text))
        problems.push({ field: at(field), message: "must not contain control characters" });
    }
    if (label === null && help === null && Object.keys(options).length === 0) continue;
    rows.push({
      question_id: question.id,
      project_id: question.projectId,
      language,
      label,
      help,
      options: Object.keys(options).length > 0 ? JSON.stringify(options) : null,
    });
  }
  if (problems.length > 0) throw badInput(problems);
  return rows;
}

const storedOptions = (row: QuestionTranslationsTable): Record<string, string> =>
  row.options ? (JSON.parse(row.options) as Record<string, string>) : {};

/**
 * The translations of some questions by question id, as the dashboard and the API show them: each
 * option's text in the question's option order. For questions the caller has already read.
 */
export async function translationsByQuestion(
  db: Db,
  questionIds: readonly string[],
): Promise<Map<string, QuestionTranslation[]>> {
  const result = new Map<string, QuestionTranslation[]>();
  if (questionIds.length === 0) return result;
  for (const row of await repo.translationsOfQuestions(db, questionIds)) {
    if (!isLanguage(row.language)) continue;
    const own = row.question_options ? (JSON.parse(row.question_options) as string[]) : [];
    const options = storedOptions(row);
    const list = result.get(row.question_id) ?? [];
    list.push({
      language: row.language,
      label: row.label,
      help: row.help,
      options: own.map((option) => options[option] ?? null),
    });
    result.set(row.question_id, list);
  }
  return result;
}

/**
 * The questions as a page in `language` asks them: the organizer's translation of each text where
 * there is one, the text as written where there is none. The options keep their written values (what
 * is stored); only their labels change.
 */
export async function questionsInLanguage(
  db: Db,
  questions: readonly Question[],
  language: Language,
): Promise<Question[]> {
  const projectId = questions[0]?.projectId;
  if (!projectId) return [...questions];
  const rows = new Map((await repo.translations(db, projectId, language)).map((r) => [r.question_id, r]));
  return questions.map((question) => {
    const row = rows.get(question.id);
    if (!row) return question;
    const options = storedOptions(row);
    return {
      ...question,
      label: row.label ?? question.label,
      help: row.help ?? question.help,
      optionLabels: question.options.map((own) => options[own] ?? own),
    };
  });
}
