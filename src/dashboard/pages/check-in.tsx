import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { pageContext, redirectTo } from "../context.js";
import { formValues } from "../form-data.js";
import { type FormRequest, type RowLookup, rowFormRoute } from "../form-route.js";
import { streamDoorCounts } from "../live-counts.js";
import { sendPage } from "../ui/render.js";
import { queryText } from "./attendees-list.js";
import { CheckInPage, doorAnswer, doorCounts } from "./check-in-view.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

// The page's script asks for JSON; a form posted without script gets a redirect and a flash.
function wantsJson(request: FastifyRequest): boolean {
  return (request.headers.accept ?? "").includes("application/json");
}

/** Check-in: scan or type a ticket code, or find an attendee by name; undo a mistaken check-in. */
export function registerCheckInPages(app: FastifyInstance): void {
  const { services } = app;
  const attendeeRow: RowLookup<Attendee> = {
    param: "attendeeId",
    what: "Attendee",
    find: (actor, id) => services.attendees.findAttendee(actor, id),
  };
  const ticketTypesOf = async (data: ProjectPageData): Promise<TicketType[]> =>
    (await services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow())).items;
  const countsOf = async (data: ProjectPageData, ticketTypes: TicketType[]) =>
    doorCounts(await services.checkins.doorCounts(data.actor, data.project.id), ticketTypes);
  const page = (projectId: string, query: string) =>
    `/b/${projectId}/check-in${query ? `?q=${encodeURIComponent(query)}` : ""}`;

  app.get("/b/:projectId/check-in", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const query = queryText(request.query.q);
    const attendees = query
      ? (await services.attendees.listAttendees(data.access, { search: query }, listWindow())).items
      : [];
    const [active, ticketTypes] = await Promise.all([
      services.checkins.activeByAttendeeIds(attendees.map((a) => a.id)),
      ticketTypesOf(data),
    ]);
    return sendPage(
      reply,
      <CheckInPage
        ctx={pageContext(request, reply)}
        data={data}
        query={query}
        attendees={attendees}
        active={active}
        ticketTypes={ticketTypes}
        counts={await countsOf(data, ticketTypes)}
      />,
    );
  });

  // The counter, polled by the page's script when its live stream (below) is not available.
  app.get("/b/:projectId/check-in/counts", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    return reply.header("cache-control", "no-store").send(await countsOf(data, await ticketTypesOf(data)));
  });

  // The counter as it changes, for the page's script and the Overview's (dashboard/live-counts.ts).
  app.get("/b/:projectId/check-in/live", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    await streamDoorCounts(request, reply, data, async () => countsOf(data, await ticketTypesOf(data)));
  });

  // A scanned or typed code, and the "Check in" buttons of the search results (they post the
  // attendee's code): one place decides, and answers the door in words.
  app.post("/b/:projectId/check-in/scan", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const values = formValues(request.body);
    const result = await services.checkins.checkInByCode(data.actor, {
      projectId: data.project.id,
      ticketCode: values.code ?? "",
    });
    const ticketTypes = await ticketTypesOf(data);
    const answer = doorAnswer(result, data.project.timezone, ticketTypes);
    if (wantsJson(request)) {
      return reply
        .header("cache-control", "no-store")
        .send({ ...answer, counts: await countsOf(data, ticketTypes) });
    }
    const text = answer.detail ? `${answer.title}: ${answer.detail}` : answer.title;
    return redirectTo(request, reply, page(data.project.id, queryText(values.q)), {
      kind: answer.ok ? "success" : "error",
      text,
    });
  });

  // The "Check in" button of a search result without script (the script posts the code to /scan).
  rowFormRoute(app, "/b/:projectId/check-in/:attendeeId", attendeeRow, {
    async submit({ request, data, row }) {
      const { attendee } = await services.checkins.checkIn(data.actor, { attendeeId: row.id });
      return {
        to: page(data.project.id, queryText(request.query.q)),
        flash: { kind: "success", text: `${attendee.name} is checked in.` },
      };
    },
  });

  rowFormRoute(app, "/b/:projectId/check-in/:attendeeId/undo", attendeeRow, {
    async submit({ request, data, row }) {
      const { attendee } = await services.checkins.undoCheckIn(data.actor, { attendeeId: row.id });
      return {
        to: page(data.project.id, queryText(request.query.q)),
        flash: { kind: "info", text: `The check-in of ${attendee.name} was undone.` },
      };
    },
  });
}
