import type { Attendee } from "../../modules/attendees/attendees.service.js";
import {
  type Answer,
  type AnswerValue,
  countryName,
  isAskedFor,
  type Question,
} from "../../modules/questions/questions.model.js";
import type { PageContext } from "../context.js";
import { Facts } from "../ui/components.js";
import { Form, FormError, type FormState, SubmitButton } from "../ui/forms.js";
import { answerFormValue, type FormAnswers, QuestionFields } from "../ui/question-fields.js";

/** An answer as a person reads it: Yes/No, a country's name, several choices joined. */
function answerText(question: Question, value: AnswerValue): string {
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (question.kind === "COUNTRY" && typeof value === "string") return `${countryName(value)} (${value})`;
  return String(value);
}

/** Stored answers as the answers form shows them. */
export function storedFormAnswers(answers: readonly Answer[]): FormAnswers {
  return Object.fromEntries(answers.map((a) => [a.question.id, answerFormValue(a.value)]));
}

/**
 * An attendee's answers to the questions their ticket type asks, and the form that changes them
 * (open when a change was refused). A blank field clears an optional answer.
 */
export function AnswersPanel(props: {
  ctx: PageContext;
  base: string;
  attendee: Attendee;
  questions: readonly Question[];
  answers: readonly Answer[];
  form: FormAnswers;
  state: FormState;
}) {
  const asked = props.questions.filter((q) => isAskedFor(q, props.attendee.ticketTypeId));
  if (asked.length === 0 && props.answers.length === 0) return null;
  const given = new Map(props.answers.map((a) => [a.question.id, a]));
  const failed = Object.keys(props.state.errors).length > 0 || props.state.formError !== undefined;
  return (
    <section class="narrow-panel panel" aria-labelledby="answers-heading">
      <h2 id="answers-heading">Answers</h2>
      <Facts
        items={asked.map((q) => {
          const answer = given.get(q.id);
          return [
            q.label,
            answer ? answerText(q, answer.value) : <span class="muted">No answer</span>,
          ] as const;
        })}
      />
      <details open={failed}>
        <summary>Edit answers</summary>
        <Form
          action={`${props.base}/${props.attendee.id}/answers`}
          csrf={props.ctx.csrf}
          label="Edit answers"
        >
          <FormError state={props.state} />
          <QuestionFields questions={asked} answers={props.form} state={props.state} idPrefix="ans" />
          <div class="form-actions">
            <SubmitButton>Save answers</SubmitButton>
          </div>
        </Form>
      </details>
    </section>
  );
}
