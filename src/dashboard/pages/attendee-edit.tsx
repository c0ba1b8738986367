import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { qrSvg } from "../../shared/qr.js";
import type { PageContext } from "../context.js";
import { optional } from "../form-data.js";
import { Form, FormError, type FormState, SelectField, SubmitButton, TextField } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
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

/** An attendee's edit page. */
export function EditAttendeePage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  attendee: Attendee;
  ticketTypes: TicketType[];
  state: FormState;
}) {
  const base = `/b/${props.data.project.id}/attendees`;
  return (
    <ProjectLayout ctx={props.ctx} project={props.data.project} section="attendees" title="Edit attendee">
      <div class="narrow-panel panel">
        <PageHeading title="Edit attendee" level={2} />
        <Form action={`${base}/${props.attendee.id}`} csrf={props.ctx.csrf} label="Edit attendee">
          <FormError state={props.state} />
          <AttendeeFields state={props.state} ticketTypes={props.ticketTypes} />
          <div class="form-actions">
            <SubmitButton>Save attendee</SubmitButton>
            <a class="button button-secondary" href={base}>
              Cancel
            </a>
          </div>
        </Form>
      </div>
      <TicketPanel attendee={props.attendee} />
    </ProjectLayout>
  );
}

/** The attendee's ticket: the QR code scanned at the door and the code to type when a scan fails. */
function TicketPanel(props: { attendee: Attendee }) {
  const { ticketCode, name } = props.attendee;
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
    </section>
  );
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
