import type { FastifyInstance, FastifyReply } from "fastify";
import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { pageContext } from "../context.js";
import { type FormRequest, formRoute, loadRow, type RowLookup, rowFormRoute } from "../form-route.js";
import { type FormState, formState } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { attendeeInput, EditAttendeePage } from "./attendee-edit.js";
import { AttendeesPage, queryText } from "./attendees-list.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

/** Attendees: search, register, edit, cancel (check-in has its own pages, see check-in.tsx). */
export function registerAttendeePages(app: FastifyInstance): void {
  const { services } = app;
  const attendeeRow: RowLookup<Attendee> = {
    param: "attendeeId",
    what: "Attendee",
    find: (actor, id) => services.attendees.findAttendee(actor, id),
  };
  const attendeesPath = (data: ProjectPageData) => `/b/${data.project.id}/attendees`;

  async function ticketTypes(data: ProjectPageData): Promise<TicketType[]> {
    return (await services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow())).items;
  }

  async function attendeesPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
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
    return (
      <AttendeesPage
        ctx={pageContext(request, reply)}
        data={data}
        attendees={page.items}
        ticketTypes={await ticketTypes(data)}
        query={query}
        status={statusFilter}
        nextCursor={page.hasNextPage ? page.endCursor : null}
        state={state}
      />
    );
  }

  app.get("/b/:projectId/attendees", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    return sendPage(reply, await attendeesPage(request, reply, data, formState()));
  });

  formRoute(app, "/b/:projectId/attendees", {
    async submit({ data, values }) {
      const attendee = await services.attendees.registerAttendee(data.actor, {
        projectId: data.project.id,
        ...attendeeInput(values),
      });
      return { to: attendeesPath(data), flash: { kind: "success", text: `${attendee.name} is registered.` } };
    },
    invalid: ({ request, reply, data }, state) => attendeesPage(request, reply, data, state),
  });

  async function editPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    attendee: Attendee,
    state: FormState,
  ) {
    return (
      <EditAttendeePage
        ctx={pageContext(request, reply)}
        data={data}
        attendee={attendee}
        ticketTypes={await ticketTypes(data)}
        state={state}
      />
    );
  }

  app.get("/b/:projectId/attendees/:attendeeId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const attendee = await loadRow(data, attendeeRow, request.params);
    const values = {
      name: attendee.name,
      email: attendee.email,
      company: attendee.company ?? "",
      ticketTypeId: attendee.ticketTypeId,
    };
    return sendPage(reply, await editPage(request, reply, data, attendee, formState(values)));
  });

  rowFormRoute(app, "/b/:projectId/attendees/:attendeeId", attendeeRow, {
    async submit({ data, row, values }) {
      const updated = await services.attendees.updateAttendee(data.actor, {
        id: row.id,
        ...attendeeInput(values),
      });
      return { to: attendeesPath(data), flash: { kind: "success", text: `${updated.name} saved.` } };
    },
    invalid: ({ request, reply, data, row }, state) => editPage(request, reply, data, row, state),
  });

  rowFormRoute(app, "/b/:projectId/attendees/:attendeeId/cancel", attendeeRow, {
    async submit({ data, row }) {
      const attendee = await services.attendees.cancelAttendee(data.actor, { id: row.id });
      return {
        to: attendeesPath(data),
        flash: { kind: "success", text: `The registration of ${attendee.name} is cancelled.` },
      };
    },
  });
}
