import { type AnswerValue, isAskedFor, type Question } from "./questions.model.js";
import { checkNewAnswers } from "./registration-answers.js";

// Answers in the attendee CSV: a column per question, its header the question's label, so an
// exported file imports again with its answers (the import maps columns by these headers).

/** The header of each question's column: its label, numbered when two questions share one. */
export function answerHeaders(questions: readonly Question[], taken: readonly string[] = []): string[] {
  const used = new Set(taken.map((h) => h.toLowerCase()));
  return questions.map((q) => {
    let header = q.label;
    for (let n = 2; used.has(header.toLowerCase()); n++) header = `${q.label} (${n})`;
    used.add(header.toLowerCase());
    return header;
  });
}

/** An answer as a cell: several choices joined by "; ", yes/no in words. */
export function answerCell(value: AnswerValue | undefined): string {
  if (value === undefined) return "";
  if (Array.isArray(value)) return value.join("; ");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}

/** A cell as a raw answer for `validateAnswers`: several choices split at ";". */
function cellAnswer(question: Question, cell: string): unknown {
  if (question.kind !== "SEVERAL_CHOICES") return cell;
  return cell
    .split(";")
    .map((c) => c.trim())
    .filter(Boolean);
}

/**
 * One CSV row's answers from the columns a mapping gives the questions (`columns`: question id to
 * cell reader), checked as every registration's; refusals as one message naming the questions.
 */
export function rowAnswers(
  questions: readonly Question[],
  ticketTypeId: string,
  cellOf: (questionId: string) => string,
): { answers: Map<string, AnswerValue | null> } | { message: string } {
  const raw: Record<string, unknown> = {};
  for (const question of questions) {
    const cell = cellOf(question.id);
    if (cell && isAskedFor(question, ticketTypeId)) raw[question.id] = cellAnswer(question, cell);
  }
  const { answers, errors } = checkNewAnswers(questions, ticketTypeId, raw);
  if (errors.length === 0) return { answers };
  const labels = new Map(questions.map((q) => [q.id, q.label]));
  return { message: errors.map((f) => `${labels.get(f.field[1] ?? "")}: ${f.message}`).join("; ") };
}
