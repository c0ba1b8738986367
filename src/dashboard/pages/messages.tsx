import type { FastifyInstance, FastifyReply } from "fastify";
import { httpStatusOf } from "../../errors.js";
import type { MessageSummary } from "../../modules/messages/messages.repository.js";
import type { ComposeInput } from "../../modules/messages/messages.service.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { type PageContext, pageContext } from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import { type FormRequest, formRoute, pageRoute } from "../form-route.js";
import { formatDateTime, readLocalTimes } from "../time.js";
import { DataTable, EmptyState } from "../ui/components.js";
import {
  Form,
  FormError,
  type FormState,
  formState,
  SelectField,
  SubmitButton,
  TextAreaField,
  TextField,
} from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

/** What the preview shows: the mail one recipient would get, and how many it reaches. */
interface Preview {
  recipients: number;
  sendAt: string;
  mail: { to: string; subject: string; text: string } | undefined;
}

/** The compose form's fields as the service takes them (times read in the project's zone). */
function composeInput(projectId: string, values: Record<string, string>, timeZone: string): ComposeInput {
  const times = readLocalTimes(values, ["registeredAfter", "registeredBefore", "sendAt"], timeZone);
  const when =
    values.when === "at"
      ? { kind: "at" as const, at: times.sendAt ?? "" }
      : values.when === "beforeStart"
        ? { kind: "beforeStart" as const, minutes: Math.round(Number(values.hoursBefore || "0") * 60) }
        : { kind: "now" as const };
  return {
    projectId,
    subject: values.subject ?? "",
    body: values.body ?? "",
    filter: {
      ...(values.ticketTypeId ? { ticketTypeIds: [values.ticketTypeId] } : {}),
      ...(values.checkedIn === "yes"
        ? { checkedIn: true }
        : values.checkedIn === "no"
          ? { checkedIn: false }
          : {}),
      ...(times.registeredAfter ? { registeredAfter: times.registeredAfter } : {}),
      ...(times.registeredBefore ? { registeredBefore: times.registeredBefore } : {}),
    },
    when,
  };
}

function MessagesPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  messages: MessageSummary[];
  ticketTypes: TicketType[];
  state: FormState;
  preview?: Preview;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/messages`;
  const tz = project.timezone;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="attendees" title="Messages">
      <PageHeading title="Messages to attendees" level={2} />
      {props.messages.length === 0 ? (
        <EmptyState title="No messages yet">
          <p>Write one below: to every attendee, or to those a filter picks.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption="Messages"
          columns={[
            "Subject",
            "Sends at",
            { label: "Sent", numeric: true },
            { label: "Waiting", numeric: true },
            { label: "Failed", numeric: true },
            { label: "Skipped", numeric: true },
          ]}
        >
          {props.messages.map((m) => (
            <tr>
              <th scope="row">
                <a href={`${base}/${m.id}`}>{m.subject}</a>
              </th>
              <td>{formatDateTime(m.send_at, tz)}</td>
              <td class="num">{m.counts.SENT}</td>
              <td class="num">{m.counts.PENDING}</td>
              <td class="num">{m.counts.FAILED}</td>
              <td class="num">{m.counts.SKIPPED}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {props.preview ? (
        <section class="panel spaced" aria-labelledby="preview-heading">
          <h2 id="preview-heading">Preview</h2>
          <p>
            Reaches {props.preview.recipients} {props.preview.recipients === 1 ? "attendee" : "attendees"},
            sends {formatDateTime(props.preview.sendAt, tz)}.
          </p>
          {props.preview.mail ? (
            <>
              <p>
                <strong>To:</strong> {props.preview.mail.to}
                <br />
                <strong>Subject:</strong> {props.preview.mail.subject}
              </p>
              {/* Plain text as the attendee reads it: rendered as text, never as markup. */}
              <pre class="message-preview">{props.preview.mail.text}</pre>
            </>
          ) : (
            <p>No attendee matches this filter.</p>
          )}
        </section>
      ) : null}
      <section class="panel spaced" aria-labelledby="compose-heading">
        <h2 id="compose-heading">Write a message</h2>
        <Form action={base} csrf={props.ctx.csrf} label="Write a message">
          <FormError state={props.state} />
          <TextField name="subject" label="Subject" state={props.state} required />
          <TextAreaField
            name="body"
            label="Message"
            rows={8}
            state={props.state}
            required
            hint="Plain text. Placeholders: {{name}}, {{ticketCode}}, {{ticketType}}, {{event}}."
          />
          <div class="field-row">
            <SelectField
              name="ticketTypeId"
              label="Ticket type"
              state={props.state}
              placeholder="All ticket types"
              options={props.ticketTypes.map((t) => ({ value: t.id, label: t.name }))}
            />
            <SelectField
              name="checkedIn"
              label="Checked in"
              state={props.state}
              options={[
                { value: "", label: "Either" },
                { value: "yes", label: "Checked in" },
                { value: "no", label: "Not checked in" },
              ]}
            />
          </div>
          <div class="field-row">
            <TextField
              name="registeredAfter"
              label="Registered after"
              type="datetime-local"
              state={props.state}
            />
            <TextField
              name="registeredBefore"
              label="Registered before"
              type="datetime-local"
              state={props.state}
            />
          </div>
          <div class="field-row">
            <SelectField
              name="when"
              label="Send"
              state={props.state}
              options={[
                { value: "now", label: "Now" },
                { value: "at", label: "At a time" },
                { value: "beforeStart", label: "Before the event starts" },
              ]}
            />
            <TextField
              name="sendAt"
              label="Time"
              type="datetime-local"
              state={props.state}
              hint={`In ${tz}.`}
            />
            <TextField
              name="hoursBefore"
              label="Hours before the start"
              type="number"
              min="0"
              step="0.5"
              state={props.state}
            />
          </div>
          <div class="form-actions">
            <button type="submit" class="button button-secondary" formaction={`${base}/preview`}>
              Preview
            </button>
            <SubmitButton>Send</SubmitButton>
          </div>
        </Form>
      </section>
    </ProjectLayout>
  );
}

/** A message as it was written (not filled in), and each recipient with their mail's status. */
function MessagePage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  message: Awaited<ReturnType<FastifyInstance["services"]["messages"]["get"]>>;
}) {
  const { project } = props.data;
  const { message } = props;
  const tz = project.timezone;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="attendees" title={message.subject}>
      <p>
        <a href={`/b/${project.id}/messages`}>All messages</a>
      </p>
      <PageHeading title={message.subject} level={2} />
      <p class="muted">Sends {formatDateTime(message.send_at, tz)}.</p>
      <pre class="message-preview">{message.body}</pre>
      <DataTable caption="Recipients" showCaption columns={["Attendee", "Status", "Sent", "Reason"]}>
        {message.recipients.map((r) => (
          <tr>
            <th scope="row">
              <a href={`/b/${project.id}/attendees/${r.id}`}>{r.name}</a>
            </th>
            <td>{statusLabel[r.status]}</td>
            <td>{r.sent_at ? formatDateTime(r.sent_at, tz) : ""}</td>
            <td class="muted">{r.last_error ?? ""}</td>
          </tr>
        ))}
      </DataTable>
    </ProjectLayout>
  );
}

const statusLabel = { PENDING: "Waiting", SENT: "Sent", FAILED: "Failed", SKIPPED: "Skipped" } as const;

/** Messages to attendees: the list with counts, compose, preview, send now or schedule. */
export function registerMessagePages(app: FastifyInstance): void {
  const { services } = app;

  async function page(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
    preview?: Preview,
  ) {
    const [messages, ticketTypes] = await Promise.all([
      services.messages.list(data.actor, data.project.id),
      services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow()),
    ]);
    return (
      <MessagesPage
        ctx={pageContext(request, reply)}
        data={data}
        messages={messages}
        ticketTypes={ticketTypes.items}
        state={state}
        preview={preview}
      />
    );
  }

  pageRoute(app, "/b/:projectId/messages", (request, reply, data) =>
    page(request, reply, data, formState({ when: "now" })),
  );

  app.get("/b/:projectId/messages/:messageId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const message = await services.messages.get(data.actor, data.project.id, request.params.messageId ?? "");
    return sendPage(reply, <MessagePage ctx={pageContext(request, reply)} data={data} message={message} />);
  });

  // The preview changes nothing: the same page again, the form kept and the mail shown above it
  // (CSRF-checked like every dashboard POST; it reads one attendee, so it needs attendees:read).
  app.post("/b/:projectId/messages/preview", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const values = formValues(request.body);
    try {
      const input = composeInput(data.project.id, values, data.project.timezone);
      const preview = await services.messages.preview(data.actor, input);
      return sendPage(reply, await page(request, reply, data, formState(values), preview));
    } catch (error) {
      const state = stateFromError(error, values);
      return sendPage(reply, await page(request, reply, data, state), httpStatusOf(error));
    }
  });

  formRoute(app, "/b/:projectId/messages", {
    async submit({ data, values }) {
      const sent = await services.messages.send(
        data.actor,
        composeInput(data.project.id, values, data.project.timezone),
      );
      const when = formatDateTime(sent.sendAt, data.project.timezone);
      return {
        to: `/b/${data.project.id}/messages`,
        flash: { kind: "success", text: `Message to ${sent.recipients} attendees queued for ${when}.` },
      };
    },
    invalid: ({ request, reply, data }, state) => page(request, reply, data, state),
  });
}
