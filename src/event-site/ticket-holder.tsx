import type { FormState } from "../dashboard/ui/forms.js";
import { TextField } from "../dashboard/ui/forms.js";
import { type FormAnswers, QuestionFields } from "../dashboard/ui/question-fields.js";
import type { EventTicket } from "../modules/event-page/event-content.js";
import { isAskedFor, type Question } from "../modules/questions/questions.model.js";
import type { Translator } from "../shared/i18n/translator.js";

/**
 * One ticket of a checkout: who holds it and their answers to the questions its ticket type asks,
 * named `tickets.<i>.…` as the order's refusals name them.
 */
export function TicketHolderFields(props: {
  index: number;
  ticket: EventTicket;
  questions: readonly Question[];
  answers: FormAnswers;
  state: FormState;
  words: Translator;
}) {
  const { index: i, ticket, words } = props;
  const { t } = words;
  return (
    <fieldset class="ticket-holder">
      <legend>{t("order.holder", { number: i + 1, ticket: ticket.name })}</legend>
      <input type="hidden" name={`tickets.${i}.ticketTypeId`} value={ticket.id} />
      <TextField name={`tickets.${i}.name`} label={t("register.name")} state={props.state} required />
      <TextField
        name={`tickets.${i}.email`}
        label={t("register.email")}
        type="email"
        state={props.state}
        required
      />
      <QuestionFields
        questions={props.questions.filter((q) => isAskedFor(q, ticket.id))}
        answers={props.answers}
        state={props.state}
        prefix={`tickets.${i}.`}
        words={words}
      />
    </fieldset>
  );
}
