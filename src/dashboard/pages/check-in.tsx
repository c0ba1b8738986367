import type { FastifyInstance } from "fastify";
import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { CheckIn } from "../../modules/checkins/checkins.service.js";
import { type PageContext, pageContext } from "../context.js";
import { type FormRequest, type RowLookup, rowFormRoute } from "../form-route.js";
import { formatTime } from "../time.js";
import { Badge, EmptyState } from "../ui/components.js";
import { Form } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { queryText, SearchForm } from "./attendees-list.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

/** The check-in desk: a search, then each match with "Check in" or "Undo". */
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

/** Check-in: find a registered attendee, check them in, undo a mistaken check-in. */
export function registerCheckInPages(app: FastifyInstance): void {
  const { services } = app;
  const attendeeRow: RowLookup<Attendee> = {
    param: "attendeeId",
    what: "Attendee",
    find: (actor, id) => services.attendees.findAttendee(actor, id),
  };

  app.get("/b/:projectId/check-in", async (request: FormRequest, reply) => {
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

  // Back to the same search, so the desk can check in the next person of the list.
  const back = (data: ProjectPageData, request: FormRequest) =>
    `/b/${data.project.id}/check-in?q=${encodeURIComponent(queryText(request.query.q))}`;

  rowFormRoute(app, "/b/:projectId/check-in/:attendeeId", attendeeRow, {
    async submit({ request, data, row }) {
      const { attendee } = await services.checkins.checkIn(data.actor, { attendeeId: row.id });
      return { to: back(data, request), flash: { kind: "success", text: `${attendee.name} is checked in.` } };
    },
  });

  rowFormRoute(app, "/b/:projectId/check-in/:attendeeId/undo", attendeeRow, {
    async submit({ request, data, row }) {
      const { attendee } = await services.checkins.undoCheckIn(data.actor, { attendeeId: row.id });
      return {
        to: back(data, request),
        flash: { kind: "info", text: `The check-in of ${attendee.name} was undone.` },
      };
    },
  });
}
