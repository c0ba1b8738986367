import { formatDateTime } from "../dashboard/time.js";
import {
  EmailField,
  FormError,
  type FormState,
  SelectField,
  TextAreaField,
  TextField,
} from "../dashboard/ui/forms.js";
import { type FormAnswers, QuestionFields } from "../dashboard/ui/question-fields.js";
import type { EventContent, HeldRegistration } from "../modules/event-page/event-content.js";
import { type EventPageSettings, invoiced } from "../modules/event-page/event-page.service.js";
import type { Question } from "../modules/questions/questions.model.js";
import type { TicketType } from "../modules/tickets/tickets.service.js";
import { formatMoney } from "../shared/money.js";
import { qrSvg } from "../shared/qr.js";
import { eventPaths } from "./event-page.js";
import type { FormTicket } from "./form-token.js";
import { MessagePage, SiteLayout } from "./site-layout.js";

/** The name of the honeypot field: a plausible name, so form-filling bots fill it in. */
export const honeypotField = "website";

/** The hidden fields of a signed form (form-token.ts): this server rendered it, for this project. */
export function SignedFields(props: { ticket: FormTicket }) {
  return (
    <>
      <input type="hidden" name="idempotencyKey" value={props.ticket.idempotencyKey} />
      <input type="hidden" name="issuedAt" value={props.ticket.issuedAt} />
      <input type="hidden" name="signature" value={props.ticket.signature} />
    </>
  );
}

/** The honeypot: a field people never see (hidden by CSS, skipped by screen readers). */
export function Honeypot() {
  return (
    <div class="hp" aria-hidden="true">
      <label for="f-hp">Leave this field empty</label>
      <input id="f-hp" name={honeypotField} type="text" tabIndex={-1} autoComplete="off" />
    </div>
  );
}

/** A ticket as the form's choice reads: its name, its price and how it is paid ("free" when it is). */
function ticketLabel(ticket: TicketType): string {
  if (ticket.priceMinor === 0) return `${ticket.name} · free`;
  const price = formatMoney(ticket.priceMinor, ticket.currency);
  if (ticket.paymentMode === "AT_DOOR") return `${ticket.name} · ${price}, paid at the door`;
  if (ticket.paymentMode === "INVOICE") return `${ticket.name} · ${price}, paid by invoice`;
  if (ticket.paymentMode === "BANK_TRANSFER") return `${ticket.name} · ${price}, paid by bank transfer`;
  if (ticket.paymentMode === "STRIPE") return `${ticket.name} · ${price}, paid by card`;
  return `${ticket.name} · ${price}`;
}

/**
 * The registration form: ticket (with its price), name, email, (as the organizer chose) company,
 * whom to invoice when a ticket on offer is paid by invoice, and the event's questions (each
 * restricted one says which tickets it is asked for; the server ignores it for the others).
 */
export function RegisterPage(props: {
  content: EventContent;
  settings: EventPageSettings;
  ticket: FormTicket;
  state: FormState;
  questions: readonly Question[];
  answers: FormAnswers;
  url: string;
}) {
  const { project } = props.content;
  const offered = props.content.tickets.filter((t) => t.registrable && t.remaining > 0);
  const options = offered.map((t) => ({ value: t.id, label: ticketLabel(t) }));
  const onlyInvoiced = offered.length > 0 && offered.every(invoiced);
  const company = props.settings.companyField;
  const meta = {
    title: `Register · ${project.name}`,
    description: `Register for ${project.name}.`,
    url: props.url,
  };
  return (
    <SiteLayout meta={meta} eventName={project.name} eventHref={eventPaths.page(project.id)}>
      <h1>Register for {project.name}</h1>
      {options.length === 0 || !props.settings.registrationOpen ? (
        <p class="note">No ticket can be registered for here right now.</p>
      ) : (
        <form
          method="post"
          action={eventPaths.register(project.id)}
          class="form"
          aria-label="Registration"
          noValidate
        >
          <SignedFields ticket={props.ticket} />
          <FormError state={props.state} />
          <SelectField name="ticketTypeId" label="Ticket" state={props.state} required options={options} />
          <TextField name="name" label="Name" state={props.state} required autocomplete="name" />
          <EmailField
            state={props.state}
            hint="Your confirmation and the link to manage your registration go here."
          />
          {company === "HIDDEN" ? null : (
            <TextField
              name="company"
              label="Company"
              state={props.state}
              required={company === "REQUIRED"}
              autocomplete="organization"
            />
          )}
          {offered.some(invoiced) ? (
            <TextAreaField
              name="billingDetails"
              label="Billing details"
              state={props.state}
              required={onlyInvoiced}
              rows={3}
              hint={`${onlyInvoiced ? "The" : "For tickets paid by invoice: the"} name or company, postal address and VAT ID (if any) the invoice is made out to.`}
            />
          ) : null}
          <QuestionFields
            questions={props.questions}
            answers={props.answers}
            state={props.state}
            ticketTypeNames={new Map(offered.map((t) => [t.id, t.name]))}
          />
          <Honeypot />
          <button type="submit" class="button">
            Register
          </button>
        </form>
      )}
    </SiteLayout>
  );
}

/** After a submit: the same answer whatever happened, so the page never tells who is registered. */
export function CheckInboxPage(props: { content: EventContent; url: string; sendsEmail: boolean }) {
  const { project } = props.content;
  return (
    <MessagePage
      title="Check your inbox"
      url={props.url}
      eventName={project.name}
      eventHref={eventPaths.page(project.id)}
    >
      {props.sendsEmail ? (
        <p>
          We sent the confirmation for {project.name} to the email address you gave, with a link to see or
          cancel your registration. If nothing arrives within a few minutes, check your spam folder or ask the
          organizer.
        </p>
      ) : (
        // Said of the server, not of this registration: the page still tells no one who is registered.
        <p>
          Your registration for {project.name} is received, but this site sends no email, so no confirmation
          will arrive. Ask the organizer for your ticket code.
        </p>
      )}
      <p>
        <a href={eventPaths.page(project.id)}>Back to the event</a>
      </p>
    </MessagePage>
  );
}

/** The holder's view of a registration (the manage link), with the ticket code and a cancel button. */
export function ManagePage(props: { held: HeldRegistration; action: string; url: string }) {
  const { attendee, project, ticketType } = props.held;
  const cancelled = attendee.status === "CANCELLED";
  return (
    <SiteLayout
      meta={{
        title: `Your registration · ${project.name}`,
        description: `Your registration for ${project.name}.`,
        url: props.url,
        noindex: true,
      }}
      eventName={project.name}
      eventHref={eventPaths.page(project.id)}
    >
      <h1>Your registration</h1>
      {cancelled ? <p class="notice notice-info">This registration is cancelled.</p> : null}
      <dl class="facts">
        <div>
          <dt>Event</dt>
          <dd>{project.name}</dd>
        </div>
        <div>
          <dt>Name</dt>
          <dd>{attendee.name}</dd>
        </div>
        <div>
          <dt>Email</dt>
          <dd>{attendee.email}</dd>
        </div>
        {attendee.company ? (
          <div>
            <dt>Company</dt>
            <dd>{attendee.company}</dd>
          </div>
        ) : null}
        <div>
          <dt>Ticket</dt>
          <dd>{ticketType?.name ?? "—"}</dd>
        </div>
        <div>
          <dt>Registered</dt>
          <dd>
            {formatDateTime(attendee.registeredAt, project.timezone)}{" "}
            <span class="muted">({project.timezone} time)</span>
          </dd>
        </div>
      </dl>
      {cancelled ? null : (
        <section aria-labelledby="ticket-heading">
          <h2 id="ticket-heading">Your ticket</h2>
          <div
            class="qr"
            // Raw markup: qrSvg builds the SVG itself and escapes the only text in it (the name).
            dangerouslySetInnerHTML={{
              __html: qrSvg(attendee.ticketCode, `Ticket QR code of ${attendee.name}`),
            }}
          />
          <p>
            Ticket code <code class="ticket-code">{attendee.ticketCode}</code>
          </p>
        </section>
      )}
      {cancelled ? null : (
        <form method="post" action={props.action} class="form" aria-label="Cancel registration">
          <p>Cancelling frees your seat for someone else. It cannot be undone here.</p>
          <button type="submit" class="button button-danger">
            Cancel my registration
          </button>
        </form>
      )}
    </SiteLayout>
  );
}
