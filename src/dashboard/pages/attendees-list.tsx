import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { Question } from "../../modules/questions/questions.model.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import type { PageContext } from "../context.js";
import { formatDateTime } from "../time.js";
import { Badge, DataTable, EmptyState } from "../ui/components.js";
import {
  csrfFieldName,
  Form,
  FormError,
  type FormState,
  type Option,
  Options,
  SubmitButton,
} from "../ui/forms.js";
import { ProjectLayout } from "../ui/layout.js";
import { type FormAnswers, QuestionFields } from "../ui/question-fields.js";
import { AttendeeFields, SendTicketField } from "./attendee-edit.js";
import type { ProjectPageData } from "./project-page.js";

const statusFilters = [
  { value: "", label: "All" },
  { value: "REGISTERED", label: "Registered" },
  { value: "CANCELLED", label: "Cancelled" },
];

/** The filters, order and paging of the attendee list, as its query string holds them. */
export interface AttendeeListView {
  query: string;
  status: string;
  ticketType: string;
  /** "yes", "no" or "" (either). */
  checkedIn: string;
  sort: "registered" | "name";
}

/** The query string of a list view (plus paging or other parameters), without empty values. */
function viewQuery(view: AttendeeListView, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  const all: Record<string, string> = {
    q: view.query,
    status: view.status,
    ticketType: view.ticketType,
    checkedIn: view.checkedIn,
    sort: view.sort === "registered" ? "" : view.sort,
    ...extra,
  };
  for (const [key, value] of Object.entries(all)) if (value) params.set(key, value);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** Where the list is in the filter's results: "21–40 of 312" and the cursors either side. */
export interface ListPosition {
  start: number;
  end: number;
  total: number;
  previousCursor: string | null;
  nextCursor: string | null;
}

/**
 * The attendee search box (GET `q`) of the list and the door: the search matches names, emails and
 * companies, from three characters on.
 */
export function AttendeeSearchField(props: { label: string; value: string; autofocus?: boolean }) {
  return (
    <div class="field">
      <label for="search-q">{props.label}</label>
      <input
        id="search-q"
        name="q"
        type="search"
        value={props.value}
        minlength={3}
        placeholder="Name, email or company"
        autofocus={props.autofocus}
      />
    </div>
  );
}

function ListFilters(props: { base: string; view: AttendeeListView; ticketTypes: TicketType[] }) {
  const { view } = props;
  const select = (id: string, name: string, label: string, value: string, options: readonly Option[]) => (
    <div class="field field-narrow">
      <label for={id}>{label}</label>
      <select id={id} name={name}>
        <Options options={options} selected={value} />
      </select>
    </div>
  );
  return (
    <form method="get" action={props.base} class="search-form filter-form" aria-label="Filter attendees">
      <AttendeeSearchField label="Search attendees" value={view.query} />
      {select("search-status", "status", "Status", view.status, statusFilters)}
      {select("filter-ticket-type", "ticketType", "Ticket type", view.ticketType, [
        { value: "", label: "All" },
        ...props.ticketTypes.map((t) => ({ value: t.id, label: t.name })),
      ])}
      {select("filter-checked-in", "checkedIn", "Checked in", view.checkedIn, [
        { value: "", label: "Either" },
        { value: "yes", label: "Checked in" },
        { value: "no", label: "Not checked in" },
      ])}
      {select("filter-sort", "sort", "Sort by", view.sort, [
        { value: "registered", label: "Registration time" },
        { value: "name", label: "Name" },
      ])}
      <button type="submit" class="button button-secondary">
        Search
      </button>
    </form>
  );
}

function Pager(props: { base: string; view: AttendeeListView; position: ListPosition }) {
  const { position, view } = props;
  return (
    <nav class="pager" aria-label="Pages of attendees">
      <p class="pager-status" aria-live="polite">
        {position.total === 0 ? "0 attendees" : `${position.start}–${position.end} of ${position.total}`}
      </p>
      <div class="button-row">
        {position.previousCursor ? (
          <a
            class="button button-secondary"
            rel="prev"
            href={`${props.base}${viewQuery(view, { before: position.previousCursor })}`}
          >
            Previous
          </a>
        ) : null}
        {position.nextCursor ? (
          <a
            class="button button-secondary"
            rel="next"
            href={`${props.base}${viewQuery(view, { after: position.nextCursor })}`}
          >
            Next
          </a>
        ) : null}
      </div>
    </nav>
  );
}

/** The attendees tab: the filtered list with its actions, import/export and "Register attendee". */
export function AttendeesPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  attendees: Attendee[];
  ticketTypes: TicketType[];
  view: AttendeeListView;
  position: ListPosition;
  state: FormState;
  /** The questions the register form asks, with the answers given on a refused submit. */
  questions: readonly Question[];
  answers: FormAnswers;
  mailDelivers: boolean;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/attendees`;
  const ticketNames = new Map(props.ticketTypes.map((t) => [t.id, t.name]));
  const { view } = props;
  const filtered = view.query !== "" || view.status !== "" || view.ticketType !== "" || view.checkedIn !== "";
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="attendees" title="Attendees">
      <div class="grid-2 attendees-layout">
        <section aria-labelledby="attendees-heading">
          <div class="page-heading page-heading-wrap">
            <h2 id="attendees-heading">Attendees</h2>
            <div class="page-actions">
              <a class="button button-secondary" href={`/b/${project.id}/messages`}>
                Messages
              </a>
              <a class="button button-secondary" href={`${base}/import`}>
                Import CSV
              </a>
              <a class="button button-secondary" href={`${base}/export.csv${viewQuery(view)}`} download>
                Export CSV
              </a>
            </div>
          </div>
          <ListFilters base={base} view={view} ticketTypes={props.ticketTypes} />
          {props.attendees.length === 0 ? (
            <EmptyState title={filtered ? "No attendees match" : "No attendees yet"}>
              <p>
                {filtered
                  ? "Try another name, email or filter."
                  : "Register the first attendee with the form, or import a CSV file."}
              </p>
            </EmptyState>
          ) : (
            <>
              <form
                id="bulk-cancel"
                method="post"
                action={`${base}/bulk-cancel`}
                class="bulk-actions"
                aria-label="Selected attendees"
              >
                <input type="hidden" name={csrfFieldName} value={props.ctx.csrf} />
                <button type="submit" class="button button-secondary">
                  Cancel selected…
                </button>
                <button type="submit" class="button button-secondary" formaction={`${base}/bulk-resend`}>
                  Resend tickets to selected
                </button>
              </form>
              <DataTable
                caption="Attendees"
                columns={[
                  { label: "Select", hidden: true },
                  "Name",
                  "Ticket",
                  "Registered",
                  "Status",
                  { label: "Actions", hidden: true },
                ]}
              >
                {props.attendees.map((attendee) => (
                  <tr>
                    <td>
                      {attendee.status === "REGISTERED" ? (
                        <input
                          type="checkbox"
                          name="id"
                          value={attendee.id}
                          form="bulk-cancel"
                          aria-label={`Select ${attendee.name}`}
                        />
                      ) : null}
                    </td>
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
              </DataTable>
            </>
          )}
          <Pager base={base} view={view} position={props.position} />
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
              <QuestionFields
                questions={props.questions}
                answers={props.answers}
                state={props.state}
                ticketTypeNames={ticketNames}
              />
              <SendTicketField state={props.state} delivers={props.mailDelivers} />
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
