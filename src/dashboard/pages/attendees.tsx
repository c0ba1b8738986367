import type { FastifyInstance, FastifyReply } from "fastify";
import type { AttendeeFilter } from "../../modules/attendees/attendee-input.js";
import type { Attendee } from "../../modules/attendees/attendees.service.js";
import { isAskedFor } from "../../modules/questions/questions.model.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { pageContext, redirectTo } from "../context.js";
import { formList, formValues } from "../form-data.js";
import {
  type FormRequest,
  formRoute,
  loadRow,
  pageRoute,
  type RowLookup,
  rowFormRoute,
} from "../form-route.js";
import { type FormState, formState } from "../ui/forms.js";
import { type FormAnswers, formAnswers } from "../ui/question-fields.js";
import { sendPage } from "../ui/render.js";
import { storedFormAnswers } from "./attendee-answers.js";
import { attendeeInput, EditAttendeePage, ticketMailFlash } from "./attendee-edit.js";
import { EraseAttendeePage } from "./attendee-erase.js";
import { BulkCancelPage } from "./attendees-bulk.js";
import { registerAttendeeImportPages } from "./attendees-import.js";
import { type AttendeeListView, AttendeesPage, type ListPosition, queryText } from "./attendees-list.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

const pageSize = 50;
/** The most registrations one bulk cancel takes (two pages of the list). */
const maxBulk = 100;

/** The list's filters and order from its query string; anything unknown falls back to "all". */
function listView(query: Record<string, string | undefined>): AttendeeListView {
  const pick = <T extends string>(value: string | undefined, allowed: readonly T[]): T | "" =>
    allowed.includes(value as T) ? (value as T) : "";
  return {
    query: queryText(query.q),
    status: pick(query.status, ["REGISTERED", "CANCELLED"]),
    ticketType: typeof query.ticketType === "string" ? query.ticketType.slice(0, 64) : "",
    checkedIn: pick(query.checkedIn, ["yes", "no"]),
    sort: query.sort === "name" ? "name" : "registered",
  };
}

/** The service filter of a list view. */
function listFilter(view: AttendeeListView): AttendeeFilter {
  return {
    search: view.query || undefined,
    status: view.status === "REGISTERED" || view.status === "CANCELLED" ? view.status : undefined,
    ticketTypeId: view.ticketType || undefined,
    checkedIn: view.checkedIn === "" ? undefined : view.checkedIn === "yes",
  };
}

/** An attendee as its edit form shows it. */
const attendeeValues = (attendee: Attendee) => ({
  name: attendee.name,
  email: attendee.email,
  company: attendee.company ?? "",
  ticketTypeId: attendee.ticketTypeId,
});

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
    answers: FormAnswers = {},
  ) {
    const view = listView(request.query);
    const filter = listFilter(view);
    const { before, after } = request.query;
    const window = resolvePageArgs(
      before ? { last: pageSize, before } : { first: pageSize, after: after || null },
    );
    const page = await services.attendees.listAttendees(data.access, filter, window, view.sort);
    const total = await services.attendees.countAttendees(data.access, filter);
    const first = page.items[0];
    const skipped = first ? await services.attendees.countBefore(data.access, filter, view.sort, first) : 0;
    const position: ListPosition = {
      start: skipped + 1,
      end: skipped + page.items.length,
      total,
      previousCursor: page.hasPreviousPage || skipped > 0 ? page.startCursor : null,
      nextCursor: page.hasNextPage || skipped + page.items.length < total ? page.endCursor : null,
    };
    return (
      <AttendeesPage
        ctx={pageContext(request, reply)}
        data={data}
        attendees={page.items}
        ticketTypes={await ticketTypes(data)}
        view={view}
        position={position}
        state={state}
        questions={await services.questions.listQuestions(data.access)}
        answers={answers}
        mailDelivers={services.ticketMails.delivers}
      />
    );
  }

  // The CSV of the list's current filter, streamed from the database page by page.
  app.get("/b/:projectId/attendees/export.csv", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const csv = services.attendeeFiles.exportCsv(data.access, listFilter(listView(request.query)));
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="attendees-${data.project.id}-${day}.csv"`)
      .send(csv);
  });

  // Bulk cancel: the list's checkboxes post here; the first post shows what will be cancelled and
  // asks to confirm (no script needed), the confirmation cancels each through cancelAttendee.
  app.post("/b/:projectId/attendees/bulk-cancel", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const ids = [...new Set(formList(request.body, "id"))].slice(0, maxBulk);
    const found = await Promise.all(ids.map((id) => services.attendees.findAttendee(data.actor, id)));
    const selected = found
      .filter((f) => f !== undefined && f.item.projectId === data.project.id)
      .map((f) => (f as { item: Attendee }).item)
      .filter((a) => a.status === "REGISTERED");
    if (selected.length === 0) {
      return redirectTo(request, reply, attendeesPath(data), {
        kind: "error",
        text: "Select the registrations to cancel first.",
      });
    }
    if (formValues(request.body).confirm !== "yes") {
      return sendPage(
        reply,
        <BulkCancelPage ctx={pageContext(request, reply)} data={data} attendees={selected} />,
      );
    }
    for (const attendee of selected) await services.attendees.cancelAttendee(data.actor, { id: attendee.id });
    const text =
      selected.length === 1
        ? "1 registration is cancelled."
        : `${selected.length} registrations are cancelled.`;
    return redirectTo(request, reply, attendeesPath(data), { kind: "success", text });
  });

  // "Resend tickets" on the list's selection (the same checkboxes as bulk cancel).
  app.post("/b/:projectId/attendees/bulk-resend", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const ids = [...new Set(formList(request.body, "id"))].slice(0, maxBulk);
    if (ids.length === 0) {
      return redirectTo(request, reply, attendeesPath(data), {
        kind: "error",
        text: "Select the attendees to send tickets to first.",
      });
    }
    const queued = await services.ticketMails.send(data.actor, data.project.id, ids);
    const delivers = services.ticketMails.delivers;
    return redirectTo(request, reply, attendeesPath(data), {
      kind: delivers && queued > 0 ? "success" : "error",
      text: ticketMailFlash(queued, delivers),
    });
  });

  pageRoute(app, "/b/:projectId/attendees", (request, reply, data) =>
    attendeesPage(request, reply, data, formState()),
  );

  /** The register form's answers, for the questions the chosen ticket type asks. */
  async function registerAnswers(data: ProjectPageData, body: unknown, ticketTypeId: string) {
    return formAnswers(body, await services.questions.listQuestions(data.access), "", ticketTypeId);
  }

  formRoute(app, "/b/:projectId/attendees", {
    async submit({ data, values, request }) {
      const attendee = await services.attendees.registerAttendee(data.actor, {
        projectId: data.project.id,
        ...attendeeInput(values),
        answers: await registerAnswers(data, request.body, values.ticketTypeId ?? ""),
      });
      const registered = `${attendee.name} is registered.`;
      if (values.sendTickets !== "yes")
        return { to: attendeesPath(data), flash: { kind: "success", text: registered } };
      const queued = await services.ticketMails.send(data.actor, data.project.id, [attendee.id]);
      const delivers = services.ticketMails.delivers;
      return {
        to: attendeesPath(data),
        flash: {
          kind: delivers ? "success" : "info",
          text: `${registered} ${ticketMailFlash(queued, delivers)}`,
        },
      };
    },
    invalid: async ({ request, reply, data, values }, state) =>
      attendeesPage(
        request,
        reply,
        data,
        state,
        await registerAnswers(data, request.body, values.ticketTypeId ?? ""),
      ),
  });

  async function editPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    attendee: Attendee,
    state: FormState,
    answersState: { form?: FormAnswers; state: FormState } = { state: formState() },
  ) {
    const [questions, answers] = await Promise.all([
      services.questions.listQuestions(data.access),
      services.questions.answersOf(data.access, [attendee.id]),
    ]);
    const given = answers.get(attendee.id) ?? [];
    const answersPanel = {
      questions,
      answers: given,
      form: answersState.form ?? storedFormAnswers(given),
      state: answersState.state,
    };
    return (
      <EditAttendeePage
        answers={answersPanel}
        ctx={pageContext(request, reply)}
        data={data}
        attendee={attendee}
        ticketTypes={await ticketTypes(data)}
        state={state}
        lastMail={(await services.ticketMails.latest(data.access, [attendee.id])).get(attendee.id)}
        billingDetails={await services.eventPage.billingDetails(data.access, attendee.id)}
      />
    );
  }

  app.get("/b/:projectId/attendees/:attendeeId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const attendee = await loadRow(data, attendeeRow, request.params);
    const state = formState(attendeeValues(attendee));
    return sendPage(reply, await editPage(request, reply, data, attendee, state));
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

  // The organizer's change of some answers: every question the ticket type asks is sent, a blank
  // one clearing its answer; the service checks them as at registration and audits the change.
  rowFormRoute(app, "/b/:projectId/attendees/:attendeeId/answers", attendeeRow, {
    async submit({ data, row, request }) {
      const questions = await services.questions.listQuestions(data.access);
      const given = formAnswers(request.body, questions, "", row.ticketTypeId);
      const answers = Object.fromEntries(
        questions.filter((q) => isAskedFor(q, row.ticketTypeId)).map((q) => [q.id, given[q.id] ?? null]),
      );
      await services.questions.setAnswers(data.actor, { attendeeId: row.id, answers });
      const to = `${attendeesPath(data)}/${row.id}`;
      return { to, flash: { kind: "success", text: `${row.name}'s answers saved.` } };
    },
    invalid: async ({ request, reply, data, row }, state) => {
      const questions = await services.questions.listQuestions(data.access);
      const form = formAnswers(request.body, questions, "", row.ticketTypeId);
      return editPage(request, reply, data, row, formState(attendeeValues(row)), { form, state });
    },
  });

  registerAttendeeImportPages(app);

  rowFormRoute(app, "/b/:projectId/attendees/:attendeeId/resend-ticket", attendeeRow, {
    async submit({ data, row }) {
      const queued = await services.ticketMails.send(data.actor, data.project.id, [row.id]);
      const delivers = services.ticketMails.delivers;
      return {
        to: `${attendeesPath(data)}/${row.id}`,
        flash: {
          kind: delivers && queued > 0 ? "success" : "error",
          text: ticketMailFlash(queued, delivers),
        },
      };
    },
  });

  // Erasure: a confirmation page first (it cannot be undone), then the POST that erases.
  app.get("/b/:projectId/attendees/:attendeeId/erase", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const attendee = await loadRow(data, attendeeRow, request.params);
    return sendPage(
      reply,
      <EraseAttendeePage ctx={pageContext(request, reply)} data={data} attendee={attendee} />,
    );
  });

  rowFormRoute(app, "/b/:projectId/attendees/:attendeeId/erase", attendeeRow, {
    async submit({ data, row }) {
      await services.attendees.eraseAttendee(data.actor, { id: row.id });
      return {
        to: attendeesPath(data),
        flash: { kind: "success", text: "The attendee's personal data is erased." },
      };
    },
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
