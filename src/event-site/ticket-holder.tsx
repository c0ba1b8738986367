import type { FormState } from "../dashboard/ui/forms.js";
import { TextField } from "../dashboard/ui/forms.js";
import { type FormAnswers, QuestionFields } from "../dashboard/ui/question-fields.js";
import type { EventTicket } from "../modules/event-page/event-content.js";
import { isAskedFor, type Question } from "../modules/questions/questions.model.js";

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
}) {
  const { index: i, ticket } = props;
  return (
    <fieldset class="ticket-holder">
      <legend>
        Ticket {i + 1}: {ticket.name}
      </legend>
      <input type="hidden" name={`tickets.${i}.ticketTypeId`} value={ticket.id} />
      <TextField name={`tickets.${i}.name`} label="Name" state={props.state} required />
      <TextField name={`tickets.${i}.email`} label="Email" type="email" state={props.state} required />
      <QuestionFields
        questions={props.questions.filter((q) => isAskedFor(q, ticket.id))}
        answers={props.answers}
        state={props.state}
        prefix={`tickets.${i}.`}
      />
    </fieldset>
  );
}
