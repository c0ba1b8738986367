import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { LatestTicketMail } from "../../modules/ticket-mails/ticket-mails.repository.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { isErasedEmail } from "../../shared/erasure.js";
import { qrSvg } from "../../shared/qr.js";
import type { PageContext } from "../context.js";
import { optional } from "../form-data.js";
import { formatDateTime } from "../time.js";
import { EditForm, Form, type FormState, SelectField, SubmitButton, TextField } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { AnswersPanel } from "./attendee-answers.js";
import { ErasurePanel } from "./attendee-erase.js";
import type { ProjectPageData } from "./project-page.js";

/** The inputs of an attendee, shared by "Register attendee" and its edit page. */
export function AttendeeFields(props: { state: FormState; ticketTypes: TicketType[] }) {
  return (
    <>
      <TextField name="name" label="Name" state={props.state} required />
      <TextField name="email" label="Email" type="email" state={props.state} required />
      <TextField name="company" label="Company" state={props.state} />
      <SelectField
        name="ticketTypeId"
        label="Ticket type"
        state={props.state}
        required
        options={props.ticketTypes.map((t) => ({ value: t.id, label: t.name }))}
      />
    </>
  );
}

/**
 * "Email the ticket", on by default: ticked on a first render, and as the organizer left it when
 * the form comes back with an error (`name` is then among the values).
 */
export function SendTicketField(props: { state: FormState; delivers: boolean }) {
  const { values } = props.state;
  const checked = values.name === undefined || values.sendTickets === "yes";
  return (
    <div class="checkbox">
      <input type="checkbox" id="f-sendTickets" name="sendTickets" value="yes" checked={checked} />
      <label for="f-sendTickets">
        <span class="checkbox-label">Email the ticket</span>
        <span class="hint">
          {props.delivers
            ? "The ticket code and its QR code, sent to the attendee's address."
            : "This server has no SMTP server (SMTP_URL), so no email can go out: give the ticket code from the attendee's page."}
        </span>
      </label>
    </div>
  );
}

/** What the dashboard says after queuing `count` ticket emails. */
export function ticketMailFlash(count: number, delivers: boolean): string {
  if (!delivers) {
    return "No email was sent: this server has no SMTP server (SMTP_URL). The ticket code and QR code are on each attendee's page.";
  }
  if (count === 0) return "No ticket was sent: only registered (not cancelled) attendees get one.";
  return count === 1 ? "The ticket email is on its way." : `${count} ticket emails are on their way.`;
}

/** An attendee's edit page. */
export function EditAttendeePage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  attendee: Attendee;
  ticketTypes: TicketType[];
  state: FormState;
  lastMail: LatestTicketMail | undefined;
  billingDetails: string | null;
  answers: Omit<Parameters<typeof AnswersPanel>[0], "ctx" | "base" | "attendee">;
}) {
  const base = `/b/${props.data.project.id}/attendees`;
  return (
    <ProjectLayout ctx={props.ctx} project={props.data.project} section="attendees" title="Edit attendee">
      <div class="narrow-panel panel">
        <PageHeading title="Edit attendee" level={2} />
        <EditForm
          action={`${base}/${props.attendee.id}`}
          csrf={props.ctx.csrf}
          label="Edit attendee"
          state={props.state}
          submit="Save attendee"
          cancel={base}
        >
          <AttendeeFields state={props.state} ticketTypes={props.ticketTypes} />
        </EditForm>
      </div>
      {props.billingDetails ? (
        <section class="narrow-panel panel" aria-labelledby="billing-heading">
          <h2 id="billing-heading">Billing details</h2>
          <p class="description">{props.billingDetails}</p>
        </section>
      ) : null}
      <AnswersPanel ctx={props.ctx} base={base} attendee={props.attendee} {...props.answers} />
      <TicketPanel
        ctx={props.ctx}
        base={base}
        attendee={props.attendee}
        lastMail={props.lastMail}
        timezone={props.data.project.timezone}
      />
      <ErasurePanel base={base} attendee={props.attendee} erased={isErasedEmail(props.attendee.email)} />
    </ProjectLayout>
  );
}

/** The attendee's ticket: the QR code scanned at the door and the code to type when a scan fails. */
function TicketPanel(props: {
  ctx: PageContext;
  base: string;
  attendee: Attendee;
  lastMail: LatestTicketMail | undefined;
  timezone: string;
}) {
  const { ticketCode, name, id, status } = props.attendee;
  return (
    <section class="narrow-panel panel ticket-panel" aria-labelledby="ticket-heading">
      <h2 id="ticket-heading">Ticket</h2>
      <div
        class="ticket-qr"
        // Raw markup: qrSvg builds the SVG itself and escapes the only text in it (the name).
        dangerouslySetInnerHTML={{ __html: qrSvg(ticketCode, `Ticket QR code of ${name}`) }}
      />
      <p>
        Ticket code <code class="ticket-code">{ticketCode}</code>
      </p>
      <p class="muted">{mailStatus(props.lastMail, props.timezone)}</p>
      {status === "REGISTERED" ? (
        <Form action={`${props.base}/${id}/resend-ticket`} csrf={props.ctx.csrf} label="Resend ticket">
          <SubmitButton variant="secondary">Resend ticket</SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}

/** The state of the newest ticket email, in words. */
function mailStatus(mail: LatestTicketMail | undefined, timezone: string): string {
  if (!mail) return "No ticket email was sent.";
  if (mail.status === "SENT" && mail.sent_at)
    return `Ticket emailed ${formatDateTime(mail.sent_at, timezone)}.`;
  if (mail.status === "PENDING") return "Ticket email waiting to be sent.";
  if (mail.status === "SKIPPED") return "Ticket email not sent: the registration was cancelled.";
  return `Ticket email failed: ${mail.last_error ?? "unknown error"}.`;
}

/** The submitted attendee form as service input (blank company: none). */
export function attendeeInput(values: Record<string, string>) {
  return {
    name: values.name ?? "",
    email: values.email ?? "",
    company: optional(values.company) ?? null,
    ticketTypeId: values.ticketTypeId ?? "",
  };
}
