import type { FastifyInstance, FastifyReply } from "fastify";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import type { WaitingListEntry } from "../../modules/waiting-list/waiting-list.model.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { type PageContext, pageContext } from "../context.js";
import { type FormRequest, formRoute, type RowLookup, rowFormRoute } from "../form-route.js";
import { formatDateTime } from "../time.js";
import { DataTable, EmptyState } from "../ui/components.js";
import { Form, FormError, type FormState, formState, SubmitButton, TextField } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

const pageSize = 50;

const stateLabels: Record<WaitingListEntry["state"], string> = {
  WAITING: "Waiting",
  OFFERED: "Offered",
  ACCEPTED: "Accepted",
  EXPIRED: "Expired",
  REMOVED: "Removed",
};

function WaitingListPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  entries: WaitingListEntry[];
  total: number;
  next: string | null;
  ticketTypes: TicketType[];
  ticketTypeId: string | undefined;
  offerHours: number;
  state: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/waiting-list`;
  const names = new Map(props.ticketTypes.map((t) => [t.id, t.name]));
  const filter = props.ticketTypeId ? `ticket=${encodeURIComponent(props.ticketTypeId)}&` : "";
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="tickets" title="Waiting list">
      <PageHeading title="Waiting list" level={2}>
        <a
          href={`${base}/export.csv${props.ticketTypeId ? `?ticket=${encodeURIComponent(props.ticketTypeId)}` : ""}`}
          class="button button-secondary"
          download
        >
          Download CSV
        </a>
        <a href={`/b/${project.id}/tickets`} class="button button-secondary">
          Ticket types
        </a>
      </PageHeading>
      <p class="muted">
        {props.total} {props.total === 1 ? "person" : "people"}, in line order (first come, first served).
        When a seat frees, the next person waiting is emailed an offer that holds the seat for{" "}
        {props.offerHours} hours.
      </p>
      <nav aria-label="Ticket types" class="filters">
        <a href={base} aria-current={props.ticketTypeId ? undefined : "page"}>
          All
        </a>
        {props.ticketTypes.map((t) => (
          <>
            {" · "}
            <a
              href={`${base}?ticket=${encodeURIComponent(t.id)}`}
              aria-current={props.ticketTypeId === t.id ? "page" : undefined}
            >
              {t.name}
            </a>
          </>
        ))}
      </nav>
      {props.entries.length === 0 ? (
        <EmptyState title="Nobody is waiting">
          <p>When a ticket type sells out, the event page offers visitors to join its waiting list.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption="Waiting list"
          columns={[
            "Name",
            "Email",
            "Ticket type",
            "State",
            "Joined",
            "Offer held until",
            { label: "Actions", hidden: true },
          ]}
        >
          {props.entries.map((entry) => (
            <tr>
              <th scope="row">{entry.name}</th>
              <td>{entry.email}</td>
              <td>{names.get(entry.ticketTypeId) ?? "(deleted)"}</td>
              <td>{stateLabels[entry.state]}</td>
              <td class="muted">{formatDateTime(entry.createdAt, project.timezone)}</td>
              <td class="muted">
                {entry.state === "OFFERED" ? formatDateTime(entry.offerExpiresAt, project.timezone) : ""}
              </td>
              <td>
                <div class="row-actions">
                  {entry.state === "WAITING" ? (
                    <Form action={`${base}/${entry.id}/offer`} csrf={props.ctx.csrf} class="inline-form">
                      <button
                        type="submit"
                        class="button button-link"
                        aria-label={`Send offer to ${entry.name}`}
                      >
                        Send offer
                      </button>
                    </Form>
                  ) : null}
                  {entry.state === "WAITING" || entry.state === "OFFERED" ? (
                    <Form
                      action={`${base}/${entry.id}/remove`}
                      csrf={props.ctx.csrf}
                      class="inline-form"
                      confirm={`Remove ${entry.name} from the waiting list?`}
                    >
                      <button type="submit" class="button button-link" aria-label={`Remove ${entry.name}`}>
                        Remove
                      </button>
                    </Form>
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {props.next ? (
        <p>
          <a href={`${base}?${filter}after=${encodeURIComponent(props.next)}`}>Next page</a>
        </p>
      ) : null}
      <section class="panel spaced" aria-labelledby="offer-hours-heading">
        <h2 id="offer-hours-heading">Offers</h2>
        <Form action={`${base}/settings`} csrf={props.ctx.csrf} label="Offer settings">
          <FormError state={props.state} />
          <TextField
            name="offerHours"
            label="Hours an offer holds its seat"
            type="number"
            min="1"
            state={props.state}
            required
            hint="1 to 720 hours; unused, the seat passes to the next person in line."
          />
          <div class="form-actions">
            <SubmitButton>Save</SubmitButton>
          </div>
        </Form>
      </section>
    </ProjectLayout>
  );
}

/** The waiting list: its people in line order and their state, its CSV, offers by hand, removal, offer length. */
export function registerWaitingListPages(app: FastifyInstance): void {
  const { services } = app;
  const entryRow: RowLookup<WaitingListEntry> = {
    param: "entryId",
    what: "Waiting list entry",
    find: (actor, id) => services.waitingList.findEntry(actor, id),
  };
  const listPath = (data: ProjectPageData) => `/b/${data.project.id}/waiting-list`;

  async function page(request: FormRequest, reply: FastifyReply, data: ProjectPageData, state?: FormState) {
    const query = request.query as { ticket?: string; after?: string };
    const ticketTypeId = query.ticket?.slice(0, 64) || undefined;
    const window = resolvePageArgs({ first: pageSize, after: query.after || null });
    const [list, total, ticketTypes, offerHours] = await Promise.all([
      services.waitingList.list(data.access, ticketTypeId, window),
      services.waitingList.count(data.access, ticketTypeId),
      services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow()),
      services.waitingList.offerHours(data.actor, data.project.id),
    ]);
    return (
      <WaitingListPage
        ctx={pageContext(request, reply)}
        data={data}
        entries={list.items}
        total={total}
        next={list.hasNextPage ? list.endCursor : null}
        ticketTypes={ticketTypes.items}
        ticketTypeId={ticketTypeId}
        offerHours={offerHours}
        state={state ?? formState({ offerHours: String(offerHours) })}
      />
    );
  }

  app.get("/b/:projectId/waiting-list", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    return sendPage(reply, await page(request, reply, data));
  });

  // The CSV of the page's filter, made by the same export as `eventgraph waiting-list export`
  // (every entry in line order, streamed page by page); the service checks attendees:read first.
  app.get("/b/:projectId/waiting-list/export.csv", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const ticketTypeId = (request.query as { ticket?: string }).ticket?.slice(0, 64) || undefined;
    const csv = services.waitingList.exportCsv(data.access, ticketTypeId);
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="waiting-list-${data.project.id}-${day}.csv"`)
      .send(csv);
  });

  formRoute(app, "/b/:projectId/waiting-list/settings", {
    async submit({ data, values }) {
      const hours = await services.waitingList.setOfferHours(data.actor, data.project.id, {
        offerHours: Number(values.offerHours),
      });
      return {
        to: listPath(data),
        flash: { kind: "success", text: `Offers now hold their seat for ${hours} hours.` },
      };
    },
    invalid: ({ request, reply, data }, state) => page(request, reply, data, state),
  });

  rowFormRoute(app, "/b/:projectId/waiting-list/:entryId/offer", entryRow, {
    async submit({ data, row }) {
      await services.waitingList.offerByHand(data.actor, data.project.id, row.id);
      return { to: listPath(data), flash: { kind: "success", text: `A seat was offered to ${row.name}.` } };
    },
  });

  rowFormRoute(app, "/b/:projectId/waiting-list/:entryId/remove", entryRow, {
    async submit({ data, row }) {
      await services.waitingList.remove(data.actor, data.project.id, row.id);
      return {
        to: listPath(data),
        flash: { kind: "info", text: `${row.name} was removed from the waiting list.` },
      };
    },
  });
}
