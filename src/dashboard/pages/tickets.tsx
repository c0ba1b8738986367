import type { FastifyInstance, FastifyReply } from "fastify";
import type { TicketPaymentMode } from "../../db/schema.js";
import { noFigures, type SeatFigures, seatsLeft } from "../../modules/tickets/seats-left.js";
import { paymentModes } from "../../modules/tickets/ticket-type-input.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { formatMoney, moneyInput, parseMoney } from "../../shared/money.js";
import { type PageContext, pageContext } from "../context.js";
import { FormReader, percentToBasisPoints, stateFromError } from "../form-data.js";
import {
  type FormRequest,
  formRoute,
  loadRow,
  pageRoute,
  type RowLookup,
  rowFormRoute,
} from "../form-route.js";
import { formatDateTime, toLocalInput } from "../time.js";
import { DataTable, EmptyState } from "../ui/components.js";
import {
  EditForm,
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

function salesWindow(ticketType: TicketType, timeZone: string): string {
  if (!ticketType.salesStartAt && !ticketType.salesEndAt) return "Always";
  const from = ticketType.salesStartAt ? `from ${formatDateTime(ticketType.salesStartAt, timeZone)}` : "";
  const until = ticketType.salesEndAt ? `until ${formatDateTime(ticketType.salesEndAt, timeZone)}` : "";
  return [from, until].filter(Boolean).join(" ");
}

const paymentModeLabels: Record<TicketPaymentMode, string> = {
  NONE: "Not offered on the event page",
  AT_DOOR: "Registration on the page, pay at the door",
  INVOICE: "Registration on the page, pay by invoice",
  BANK_TRANSFER: "Order on the page, pay by bank transfer",
  STRIPE: "Order on the page, pay by card (Stripe)",
};
const paymentModeOptions = paymentModes.map((value) => ({ value, label: paymentModeLabels[value] }));

/** The inputs of a ticket type, shared by "Add ticket type" and its edit page. */
function TicketTypeFields(props: { state: FormState }) {
  return (
    <>
      <div class="field-row">
        <TextField name="name" label="Name" state={props.state} required />
        <TextField name="quantity" label="Quantity" type="number" min="0" state={props.state} required />
      </div>
      <div class="field-row">
        <TextField
          name="price"
          label="Price"
          state={props.state}
          required
          hint="e.g. 49.00; 0 for free tickets."
        />
        <TextField name="currency" label="Currency" state={props.state} required hint="ISO code, e.g. EUR." />
      </div>
      <TextAreaField name="description" label="Description" state={props.state} rows={2} />
      <div class="field-row">
        <TextField name="salesStartAt" label="Sales start" type="datetime-local" state={props.state} />
        <TextField name="salesEndAt" label="Sales end" type="datetime-local" state={props.state} />
      </div>
      <SelectField
        name="paymentMode"
        label="Paid tickets on the event page"
        state={props.state}
        required
        options={paymentModeOptions}
        hint="Free tickets can always be registered for on the event page; there is no online payment."
      />
      <TextField
        name="taxRate"
        label="Tax rate (%)"
        type="number"
        min="0"
        step="0.01"
        state={props.state}
        hint="The tax included in the price. Empty: the project's rate (Settings → Payments)."
      />
      <div class="checkbox">
        <input
          type="checkbox"
          id="f-hidden"
          name="hidden"
          value="yes"
          checked={props.state.values.hidden === "yes"}
        />
        <label for="f-hidden">
          <span class="checkbox-label">Hidden</span>
          <span class="hint">
            Offered on the event page only with an access code for it (speakers, sponsors).
          </span>
        </label>
      </div>
    </>
  );
}

function TicketsPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  ticketTypes: TicketType[];
  seats: Map<string, SeatFigures>;
  state: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/tickets`;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="tickets" title="Tickets">
      <PageHeading title="Ticket types" level={2}>
        <a href={`/b/${project.id}/codes`} class="button button-secondary">
          Discount codes
        </a>
        <a href={`/b/${project.id}/questions`} class="button button-secondary">
          Questions
        </a>
        <a href={`/b/${project.id}/waiting-list`} class="button button-secondary">
          Waiting list
        </a>
      </PageHeading>
      {props.ticketTypes.length === 0 ? (
        <EmptyState title="No ticket types yet">
          <p>Create a ticket type (e.g. “Early bird”) to start registering attendees.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption="Ticket types"
          columns={[
            "Name",
            { label: "Price", numeric: true },
            { label: "Quantity", numeric: true },
            { label: "Sold", numeric: true },
            { label: "Remaining", numeric: true },
            "On sale",
            { label: "Actions", hidden: true },
          ]}
        >
          {props.ticketTypes.map((ticketType) => {
            const seats = props.seats.get(ticketType.id) ?? noFigures;
            return (
              <tr>
                <th scope="row">
                  {ticketType.name}
                  {ticketType.hidden ? <span class="muted"> (hidden)</span> : null}
                  {ticketType.description ? <div class="muted small">{ticketType.description}</div> : null}
                </th>
                <td class="num">{formatMoney(ticketType.priceMinor, ticketType.currency)}</td>
                <td class="num">{ticketType.quantity}</td>
                <td class="num">{seats.sold}</td>
                <td class="num">
                  {seatsLeft(ticketType.quantity, seats)}
                  {seats.waiting > 0 ? <div class="muted small">{seats.waiting} waiting</div> : null}
                </td>
                <td class="muted">{salesWindow(ticketType, project.timezone)}</td>
                <td>
                  <div class="row-actions">
                    <a href={`${base}/${ticketType.id}`} aria-label={`Edit ticket type ${ticketType.name}`}>
                      Edit
                    </a>
                    <Form
                      action={`${base}/${ticketType.id}/delete`}
                      csrf={props.ctx.csrf}
                      class="inline-form"
                      confirm={`Delete the ticket type “${ticketType.name}”?`}
                    >
                      <button
                        type="submit"
                        class="button button-link"
                        aria-label={`Delete ticket type ${ticketType.name}`}
                      >
                        Delete
                      </button>
                    </Form>
                  </div>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <section class="panel spaced" aria-labelledby="add-ticket-heading">
        <h2 id="add-ticket-heading">Add ticket type</h2>
        <Form action={base} csrf={props.ctx.csrf} label="Add ticket type">
          <FormError state={props.state} />
          <TicketTypeFields state={props.state} />
          <div class="form-actions">
            <SubmitButton>Add ticket type</SubmitButton>
          </div>
        </Form>
      </section>
    </ProjectLayout>
  );
}

function EditTicketTypePage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  ticketType: TicketType;
  sold: number;
  state: FormState;
}) {
  const base = `/b/${props.data.project.id}/tickets`;
  return (
    <ProjectLayout ctx={props.ctx} project={props.data.project} section="tickets" title="Edit ticket type">
      <div class="narrow-panel panel">
        <PageHeading title="Edit ticket type" level={2} />
        <p class="muted">
          {props.sold} {props.sold === 1 ? "ticket" : "tickets"} sold: the quantity cannot go below that.
        </p>
        <EditForm
          action={`${base}/${props.ticketType.id}`}
          csrf={props.ctx.csrf}
          label="Edit ticket type"
          state={props.state}
          submit="Save ticket type"
          cancel={base}
        >
          <TicketTypeFields state={props.state} />
        </EditForm>
      </div>
    </ProjectLayout>
  );
}

/**
 * The form's values as a ticket type's fields: price text in the currency's minor units, local
 * times in the project's zone. Conversion problems are thrown together, under the form's names.
 */
function ticketTypeInput(values: Record<string, string>, timeZone: string) {
  const form = new FormReader(values, timeZone);
  const currency = form.text("currency").trim().toUpperCase();
  const priceMinor = parseMoney(form.text("price"), currency);
  const taxText = form.text("taxRate").trim().replace(",", ".");
  if (priceMinor === undefined) form.problem("price", "must be an amount such as 49.00");
  const input = {
    name: form.text("name"),
    description: form.text("description"),
    priceMinor: priceMinor ?? 0,
    currency,
    quantity: form.integer("quantity", true) ?? 0,
    salesStartAt: form.time("salesStartAt", false),
    salesEndAt: form.time("salesEndAt", false),
    paymentMode: paymentModes.find((mode) => mode === values.paymentMode) ?? "NONE",
    taxRateBasisPoints: taxText === "" ? null : percentToBasisPoints(taxText),
    hidden: values.hidden === "yes",
  };
  form.done();
  return input;
}

/** Form state after a failed save; the service names the amount `priceMinor`, the form calls it `price`. */
function ticketTypeErrorState(error: unknown, values: Record<string, string>): FormState {
  const state = stateFromError(error, values);
  if (state.errors.priceMinor) state.errors.price ??= state.errors.priceMinor;
  if (state.errors.taxRateBasisPoints) state.errors.taxRate ??= state.errors.taxRateBasisPoints;
  return state;
}

/** Tickets: ticket types with sold and remaining counts, "Add ticket type", edit and delete. */
export function registerTicketPages(app: FastifyInstance): void {
  const { services } = app;
  const ticketTypeRow: RowLookup<TicketType> = {
    param: "ticketTypeId",
    what: "Ticket type",
    find: (actor, id) => services.tickets.findTicketType(actor, id),
  };
  const ticketsPath = (data: ProjectPageData) => `/b/${data.project.id}/tickets`;

  async function listPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
  ) {
    const page = await services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow());
    const seats = await services.tickets.seatFigures(page.items.map((t) => t.id));
    return (
      <TicketsPage
        ctx={pageContext(request, reply)}
        data={data}
        ticketTypes={page.items}
        seats={seats}
        state={state}
      />
    );
  }

  pageRoute(app, "/b/:projectId/tickets", (request, reply, data) =>
    listPage(request, reply, data, formState({ currency: "EUR" })),
  );

  formRoute(app, "/b/:projectId/tickets", {
    async submit({ data, values }) {
      const ticketType = await services.tickets.createTicketType(data.actor, {
        projectId: data.project.id,
        ...ticketTypeInput(values, data.project.timezone),
      });
      return {
        to: ticketsPath(data),
        flash: { kind: "success", text: `Ticket type “${ticketType.name}” added.` },
      };
    },
    errorState: ticketTypeErrorState,
    invalid: ({ request, reply, data }, state) => listPage(request, reply, data, state),
  });

  async function editPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    ticketType: TicketType,
    state: FormState,
  ) {
    const sold = (await services.tickets.soldCounts([ticketType.id])).get(ticketType.id) ?? 0;
    return (
      <EditTicketTypePage
        ctx={pageContext(request, reply)}
        data={data}
        ticketType={ticketType}
        sold={sold}
        state={state}
      />
    );
  }

  app.get("/b/:projectId/tickets/:ticketTypeId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const ticketType = await loadRow(data, ticketTypeRow, request.params);
    const zone = data.project.timezone;
    const values = {
      name: ticketType.name,
      description: ticketType.description ?? "",
      price: moneyInput(ticketType.priceMinor, ticketType.currency),
      currency: ticketType.currency,
      quantity: String(ticketType.quantity),
      salesStartAt: toLocalInput(ticketType.salesStartAt, zone),
      salesEndAt: toLocalInput(ticketType.salesEndAt, zone),
      paymentMode: ticketType.paymentMode,
      taxRate: ticketType.taxRateBasisPoints === null ? "" : String(ticketType.taxRateBasisPoints / 100),
      hidden: ticketType.hidden ? "yes" : "",
    };
    return sendPage(reply, await editPage(request, reply, data, ticketType, formState(values)));
  });

  rowFormRoute(app, "/b/:projectId/tickets/:ticketTypeId", ticketTypeRow, {
    async submit({ data, row, values }) {
      const updated = await services.tickets.updateTicketType(data.actor, {
        id: row.id,
        ...ticketTypeInput(values, data.project.timezone),
      });
      return {
        to: ticketsPath(data),
        flash: { kind: "success", text: `Ticket type “${updated.name}” saved.` },
      };
    },
    errorState: ticketTypeErrorState,
    invalid: ({ request, reply, data, row }, state) => editPage(request, reply, data, row, state),
  });

  rowFormRoute(app, "/b/:projectId/tickets/:ticketTypeId/delete", ticketTypeRow, {
    async submit({ data, row }) {
      const deleted = await services.tickets.deleteTicketType(data.actor, { id: row.id });
      return {
        to: ticketsPath(data),
        flash: { kind: "success", text: `Ticket type “${deleted.name}” deleted.` },
      };
    },
  });
}
