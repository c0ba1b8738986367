import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import type { PageContext } from "../context.js";
import { formatDateTime } from "../time.js";
import { Badge, EmptyState } from "../ui/components.js";
import { Form, FormError, type FormState, SubmitButton } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { AttendeeFields } from "./attendee-edit.js";
import type { ProjectPageData } from "./project-page.js";

const statusFilters = [
  { value: "", label: "All" },
  { value: "REGISTERED", label: "Registered" },
  { value: "CANCELLED", label: "Cancelled" },
];

/** The search box of the attendee list and of check-in; the status filter only where given. */
function SearchForm(props: {
  action: string;
  label: string;
  query: string;
  status?: string;
  button: string;
}) {
  return (
    <form method="get" action={props.action} class="search-form">
      <div class="field">
        <label for="search-q">{props.label}</label>
        <input
          id="search-q"
          name="q"
          type="search"
          value={props.query}
          minlength={3}
          placeholder="Name, email or company"
        />
      </div>
      {props.status !== undefined ? (
        <div class="field field-narrow">
          <label for="search-status">Status</label>
          <select id="search-status" name="status">
            {statusFilters.map((s) => (
              <option value={s.value} selected={s.value === props.status}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
      ) : null}
      <button type="submit" class="button button-secondary">
        {props.button}
      </button>
    </form>
  );
}

/** The attendees tab: the searchable list with its actions and "Register attendee". */
export function AttendeesPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  attendees: Attendee[];
  ticketTypes: TicketType[];
  query: string;
  status: string;
  nextCursor: string | null;
  state: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/attendees`;
  const ticketNames = new Map(props.ticketTypes.map((t) => [t.id, t.name]));
  const filtered = props.query !== "" || props.status !== "";
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="attendees" title="Attendees">
      <div class="grid-2">
        <section aria-labelledby="attendees-heading">
          <PageHeading title="Attendees" level={2} />
          <SearchForm
            action={base}
            label="Search attendees"
            query={props.query}
            status={props.status}
            button="Search"
          />
          {props.attendees.length === 0 ? (
            <EmptyState title={filtered ? "No attendees match" : "No attendees yet"}>
              <p>{filtered ? "Try another name or email." : "Register the first attendee with the form."}</p>
            </EmptyState>
          ) : (
            <div class="table-wrap">
              <table>
                <caption class="visually-hidden">Attendees</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Ticket</th>
                    <th scope="col">Registered</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {props.attendees.map((attendee) => (
                    <tr>
                      <td>
                        <strong>{attendee.name}</strong>
                        <div class="muted small">
                          {attendee.email}
                          {attendee.company ? ` · ${attendee.company}` : ""}
                        </div>
                      </td>
                      <td>{ticketNames.get(attendee.ticketTypeId) ?? "—"}</td>
                      <td class="muted">{formatDateTime(attendee.registeredAt, project.timezone)}</td>
                      <td>
                        <Badge tone={attendee.status === "REGISTERED" ? "success" : "danger"}>
                          {attendee.status.toLowerCase()}
                        </Badge>
                      </td>
                      <td>
                        <div class="row-actions">
                          <a href={`${base}/${attendee.id}`} aria-label={`Edit ${attendee.name}`}>
                            Edit
                          </a>
                          {attendee.status === "REGISTERED" ? (
                            <Form
                              action={`${base}/${attendee.id}/cancel`}
                              csrf={props.ctx.csrf}
                              class="inline-form"
                              confirm={`Cancel the registration of ${attendee.name}?`}
                            >
                              <button
                                type="submit"
                                class="button button-link"
                                aria-label={`Cancel registration of ${attendee.name}`}
                              >
                                Cancel
                              </button>
                            </Form>
                          ) : null}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {props.nextCursor ? (
            <p>
              <a
                href={`${base}?${new URLSearchParams({ q: props.query, status: props.status, after: props.nextCursor })}`}
              >
                More attendees
              </a>
            </p>
          ) : null}
        </section>
        <section class="panel" aria-labelledby="register-heading">
          <h2 id="register-heading">Register attendee</h2>
          {props.ticketTypes.length === 0 ? (
            <p class="muted">
              Create a <a href={`/b/${project.id}/tickets`}>ticket type</a> first.
            </p>
          ) : (
            <Form action={base} csrf={props.ctx.csrf} label="Register attendee">
              <FormError state={props.state} />
              <AttendeeFields state={props.state} ticketTypes={props.ticketTypes} />
              <SubmitButton>Register</SubmitButton>
            </Form>
          )}
        </section>
      </div>
    </ProjectLayout>
  );
}

/** A search text from the query string, trimmed and bounded. */
export function queryText(value: unknown): string {
  return typeof value === "string" ? value.trim().slice(0, 200) : "";
}
