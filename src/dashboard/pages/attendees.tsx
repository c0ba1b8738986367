import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { CheckIn } from "../../modules/checkins/checkins.service.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { formValues, optional, stateFromError } from "../form-data.js";
import { formatDateTime, formatTime } from "../time.js";
import { Badge, EmptyState } from "../ui/components.js";
import {
  Form,
  FormError,
  type FormState,
  formState,
  SelectField,
  SubmitButton,
  TextField,
} from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { findInProject, listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

type ProjectRequest = FastifyRequest<{
  Params: { projectId: string };
  Querystring: { q?: string; status?: string; after?: string };
}>;
type AttendeeRequest = FastifyRequest<{ Params: { projectId: string; attendeeId: string } }>;
type Reply = FastifyReply;

const statusFilters = [
  { value: "", label: "All" },
  { value: "REGISTERED", label: "Registered" },
  { value: "CANCELLED", label: "Cancelled" },
];

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

function AttendeesPage(props: {
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

function CheckInPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  query: string;
  attendees: Attendee[];
  active: Map<string, CheckIn>;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/check-in`;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="checkin" title="Check-in">
      <PageHeading title="Check-in" level={2} />
      <SearchForm action={base} label="Find attendee" query={props.query} button="Find" />
      {props.query === "" ? (
        <EmptyState title="Find an attendee">
          <p>Search by name or email, then check them in. A mistaken check-in can be undone.</p>
        </EmptyState>
      ) : props.attendees.length === 0 ? (
        <EmptyState title="No registered attendee matches">
          <p>Check the spelling, or register them on the Attendees page.</p>
        </EmptyState>
      ) : (
        <ul class="card-list" aria-label="Matching attendees">
          {props.attendees.map((attendee) => {
            const checkIn = props.active.get(attendee.id);
            return (
              <li class="card">
                <div class="card-main">
                  <span class="card-title">{attendee.name}</span>
                  <p class="muted">
                    {attendee.email}
                    {attendee.company ? ` · ${attendee.company}` : ""}
                  </p>
                </div>
                <div class="card-meta">
                  {checkIn ? (
                    <>
                      <Badge tone="success">
                        Checked in {formatTime(checkIn.checkedInAt, project.timezone)}
                      </Badge>
                      <Form
                        action={`${base}/${attendee.id}/undo?q=${encodeURIComponent(props.query)}`}
                        csrf={props.ctx.csrf}
                        class="inline-form"
                      >
                        <button
                          type="submit"
                          class="button button-secondary"
                          aria-label={`Undo check-in of ${attendee.name}`}
                        >
                          Undo
                        </button>
                      </Form>
                    </>
                  ) : (
                    <Form
                      action={`${base}/${attendee.id}?q=${encodeURIComponent(props.query)}`}
                      csrf={props.ctx.csrf}
                      class="inline-form"
                    >
                      <button
                        type="submit"
                        class="button button-primary"
                        aria-label={`Check in ${attendee.name}`}
                      >
                        Check in
                      </button>
                    </Form>
                  )}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </ProjectLayout>
  );
}

/** The inputs of an attendee, shared by "Register attendee" and its edit page. */
function AttendeeFields(props: { state: FormState; ticketTypes: TicketType[] }) {
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

function EditAttendeePage(props: {
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
    </ProjectLayout>
  );
}

function attendeeInput(values: Record<string, string>) {
  return {
    name: values.name ?? "",
    email: values.email ?? "",
    company: optional(values.company) ?? null,
    ticketTypeId: values.ticketTypeId ?? "",
  };
}

function queryText(value: unknown): string {
  return typeof value === "string" ? value.trim().slice(0, 200) : "";
}

/** Attendees (search, register, edit, cancel) and Check-in (find, check in, undo). */
export function registerAttendeePages(app: FastifyInstance): void {
  const { services } = app;

  async function ticketTypes(data: ProjectPageData): Promise<TicketType[]> {
    return (await services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow())).items;
  }

  async function renderAttendees(
    request: ProjectRequest,
    reply: Reply,
    data: ProjectPageData,
    state: FormState,
    status = 200,
  ) {
    const query = queryText(request.query.q);
    const statusFilter =
      request.query.status === "REGISTERED" || request.query.status === "CANCELLED"
        ? request.query.status
        : "";
    const page = await services.attendees.listAttendees(
      data.access,
      { search: query || undefined, status: statusFilter || undefined },
      listWindow(request.query.after),
    );
    return sendPage(
      reply,
      <AttendeesPage
        ctx={pageContext(request, reply)}
        data={data}
        attendees={page.items}
        ticketTypes={await ticketTypes(data)}
        query={query}
        status={statusFilter}
        nextCursor={page.hasNextPage ? page.endCursor : null}
        state={state}
      />,
      status,
    );
  }

  app.get("/b/:projectId/attendees", async (request: ProjectRequest, reply) => {
    return renderAttendees(request, reply, await loadProjectPage(app, request), formState());
  });

  app.post("/b/:projectId/attendees", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const values = formValues(request.body);
    try {
      const attendee = await services.attendees.registerAttendee(data.actor, {
        projectId: data.project.id,
        ...attendeeInput(values),
      });
      return redirectTo(request, reply, `/b/${data.project.id}/attendees`, {
        kind: "success",
        text: `${attendee.name} is registered.`,
      });
    } catch (error) {
      return renderAttendees(request, reply, data, stateFromError(error, values), 400);
    }
  });

  async function findAttendee(data: ProjectPageData, attendeeId: string): Promise<Attendee> {
    return findInProject(data, "Attendee", await services.attendees.findAttendee(data.actor, attendeeId));
  }

  async function renderEdit(
    request: AttendeeRequest,
    reply: Reply,
    data: ProjectPageData,
    attendee: Attendee,
    state: FormState,
    status = 200,
  ) {
    return sendPage(
      reply,
      <EditAttendeePage
        ctx={pageContext(request, reply)}
        data={data}
        attendee={attendee}
        ticketTypes={await ticketTypes(data)}
        state={state}
      />,
      status,
    );
  }

  app.get("/b/:projectId/attendees/:attendeeId", async (request: AttendeeRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const attendee = await findAttendee(data, request.params.attendeeId);
    const values = {
      name: attendee.name,
      email: attendee.email,
      company: attendee.company ?? "",
      ticketTypeId: attendee.ticketTypeId,
    };
    return renderEdit(request, reply, data, attendee, formState(values));
  });

  app.post("/b/:projectId/attendees/:attendeeId", async (request: AttendeeRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const attendee = await findAttendee(data, request.params.attendeeId);
    const values = formValues(request.body);
    try {
      const updated = await services.attendees.updateAttendee(data.actor, {
        id: attendee.id,
        ...attendeeInput(values),
      });
      return redirectTo(request, reply, `/b/${data.project.id}/attendees`, {
        kind: "success",
        text: `${updated.name} saved.`,
      });
    } catch (error) {
      return renderEdit(request, reply, data, attendee, stateFromError(error, values), 400);
    }
  });

  app.post("/b/:projectId/attendees/:attendeeId/cancel", async (request: AttendeeRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const attendee = await services.attendees.cancelAttendee(data.actor, { id: request.params.attendeeId });
    return redirectTo(request, reply, `/b/${data.project.id}/attendees`, {
      kind: "success",
      text: `The registration of ${attendee.name} is cancelled.`,
    });
  });

  app.get("/b/:projectId/check-in", async (request: ProjectRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const query = queryText(request.query.q);
    const attendees = query
      ? (
          await services.attendees.listAttendees(
            data.access,
            { search: query, status: "REGISTERED" },
            listWindow(),
          )
        ).items
      : [];
    const active = await services.checkins.activeByAttendeeIds(attendees.map((a) => a.id));
    return sendPage(
      reply,
      <CheckInPage
        ctx={pageContext(request, reply)}
        data={data}
        query={query}
        attendees={attendees}
        active={active}
      />,
    );
  });

  const back = (projectId: string, query: unknown) =>
    `/b/${projectId}/check-in?q=${encodeURIComponent(queryText(query))}`;

  app.post(
    "/b/:projectId/check-in/:attendeeId",
    async (
      request: FastifyRequest<{
        Params: { projectId: string; attendeeId: string };
        Querystring: { q?: string };
      }>,
      reply,
    ) => {
      const data = await loadProjectPage(app, request);
      const { attendee } = await services.checkins.checkIn(data.actor, {
        attendeeId: request.params.attendeeId,
      });
      return redirectTo(request, reply, back(data.project.id, request.query.q), {
        kind: "success",
        text: `${attendee.name} is checked in.`,
      });
    },
  );

  app.post(
    "/b/:projectId/check-in/:attendeeId/undo",
    async (
      request: FastifyRequest<{
        Params: { projectId: string; attendeeId: string };
        Querystring: { q?: string };
      }>,
      reply,
    ) => {
      const data = await loadProjectPage(app, request);
      const { attendee } = await services.checkins.undoCheckIn(data.actor, {
        attendeeId: request.params.attendeeId,
      });
      return redirectTo(request, reply, back(data.project.id, request.query.q), {
        kind: "info",
        text: `The check-in of ${attendee.name} was undone.`,
      });
    },
  );
}
