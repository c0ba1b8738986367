import type { FastifyInstance } from "fastify";
import type { OrderState } from "../../db/schema.js";
import { AppError, ErrorCode, isUserError } from "../../errors.js";
import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { Order } from "../../modules/orders/orders.model.js";
import { paymentProvider } from "../../modules/orders/payment-providers.js";
import type { Refund } from "../../modules/orders/refunds.js";
import { formatMoney } from "../../shared/money.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { type PageContext, pageContext } from "../context.js";
import { type FormRequest, type RowLookup, rowFormRoute } from "../form-route.js";
import { formatDateTime } from "../time.js";
import { Badge, EmptyState, Tabs } from "../ui/components.js";
import { Form, formState, SubmitButton, TextField } from "../ui/forms.js";
import { ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { orderStateLabels, registerOrderDetail } from "./order-detail.js";
import { registerStatementImport } from "./orders-statement.js";
import { loadProjectPage, type ProjectPageData } from "./project-page.js";

const states: readonly OrderState[] = ["PENDING", "PAID", "EXPIRED", "CANCELLED", "REFUNDED"];
const stateLabel = (state: OrderState) => orderStateLabels[state][0];
const pageSize = 20;

/** Digits after the point of a currency (2 for EUR, 0 for JPY), for reading an amount typed in it. */
function fractionDigits(currency: string): number {
  return (
    new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

/** An amount typed in major units ("12.50") as minor units; null for garbage (refused by the service as not positive). */
function minorOf(text: string, currency: string): number | null {
  const digits = fractionDigits(currency);
  const match = /^(\d{1,9})(?:[.,](\d+))?$/.exec(text.trim());
  if (!match || (match[2]?.length ?? 0) > digits) return null;
  return Number(match[1]) * 10 ** digits + Number((match[2] ?? "").padEnd(digits, "0") || 0);
}

const refundReasons = {
  REQUESTED: "refund",
  LATE: "late payment sent back",
  DUPLICATE: "second payment sent back",
  MISMATCH: "payment not matching the order sent back",
} as const;

function RefundForm(props: { ctx: PageContext; base: string; order: Order }) {
  const { order } = props;
  const left = order.totalMinor - order.refundedMinor;
  return (
    <Form
      action={`${props.base}/refund`}
      csrf={props.ctx.csrf}
      label={`Refund ${order.code}`}
      confirm={`Refund order ${order.code}? ${order.provider === "STRIPE" ? "Stripe sends the money back to the card." : "Send the money back yourself; this records it."} Refunding everything cancels its tickets.`}
    >
      <TextField
        name="amount"
        label={`Refund amount (${order.currency})`}
        state={formState()}
        hint={`Empty: everything left, ${formatMoney(left, order.currency)}.`}
      />
      <SubmitButton variant="danger">Refund</SubmitButton>
    </Form>
  );
}

function OrderCard(props: {
  ctx: PageContext;
  data: ProjectPageData;
  order: Order;
  tickets: Attendee[];
  refunds: Refund[];
}) {
  const { order, data } = props;
  const base = `/b/${data.project.id}/orders/${order.id}`;
  const open = order.state === "PENDING" || order.state === "PAID";
  const refundable = order.paidAt !== null && order.refundedMinor < order.totalMinor;
  return (
    <li class="panel" aria-label={`Order ${order.code}`}>
      <h3>
        <a href={base}>{order.code}</a>{" "}
        <Badge tone={orderStateLabels[order.state][1]}>{stateLabel(order.state)}</Badge>
      </h3>
      <p>
        {order.buyerName} ({order.buyerEmail}) · {formatMoney(order.totalMinor, order.currency)} ·{" "}
        {paymentProvider(order.provider).title}
        {order.paymentReference ? ` · reference ${order.paymentReference}` : ""}
        {order.discountCode
          ? ` · code ${order.discountCode} (−${formatMoney(order.discountMinor, order.currency)})`
          : ""}
      </p>
      <p class="muted">
        Placed {formatDateTime(order.createdAt, data.project.timezone)}
        {order.state === "PENDING" && order.holdExpiresAt
          ? `; seats held until ${formatDateTime(order.holdExpiresAt, data.project.timezone)}`
          : ""}
      </p>
      <ul>
        {props.tickets.map((t) => (
          <li>
            {t.name} ({t.email}){t.status === "CANCELLED" ? " · cancelled" : ""}
          </li>
        ))}
      </ul>
      {props.refunds.length > 0 ? (
        <ul aria-label="Refunds">
          {props.refunds.map((r) => (
            <li>
              {formatMoney(r.amountMinor, order.currency)} {refundReasons[r.reason]}
              {r.manual ? " (by hand)" : ""}
              {r.state === "SUCCEEDED" ? "" : r.state === "PENDING" ? " · waiting for Stripe" : " · failed"} ·{" "}
              {formatDateTime(r.createdAt, data.project.timezone)}
            </li>
          ))}
        </ul>
      ) : null}
      {refundable ? <RefundForm ctx={props.ctx} base={base} order={order} /> : null}
      {open ? (
        <div class="button-row">
          {order.state === "PENDING" ? (
            <Form action={`${base}/paid`} csrf={props.ctx.csrf} label={`Mark ${order.code} paid`}>
              <SubmitButton>Mark paid</SubmitButton>
            </Form>
          ) : null}
          <Form
            action={`${base}/cancel`}
            csrf={props.ctx.csrf}
            label={`Cancel ${order.code}`}
            confirm={`Cancel order ${order.code}? Its tickets are cancelled and their seats freed${refundable ? "; what was paid is refunded" : ""}.`}
          >
            <SubmitButton variant="danger">Cancel order</SubmitButton>
          </Form>
        </div>
      ) : null}
    </li>
  );
}

/** Orders: by state, newest pages on, with their tickets; mark paid and cancel (orders:write). */
export function registerOrderPages(app: FastifyInstance): void {
  const { services } = app;
  const orderRow: RowLookup<Order> = {
    param: "orderId",
    what: "Order",
    find: (actor, id) => services.orders.findOrder(actor, id),
  };

  // The list's filter from its address: the state tab and the search box.
  const listView = (request: FormRequest) => {
    const query = request.query as { state?: string; q?: string; after?: string };
    const state = states.find((s) => s === query.state);
    const search = (query.q ?? "").trim().slice(0, 200);
    return { state, search, after: query.after || null };
  };
  const listQuery = (view: { state: OrderState | undefined; search: string }) =>
    new URLSearchParams([
      ...(view.state ? [["state", view.state]] : []),
      ...(view.search ? [["q", view.search]] : []),
    ]).toString();

  // The CSV of the list's current filter, streamed from the database page by page.
  app.get("/b/:projectId/orders/export.csv", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const { state, search } = listView(request);
    const csv = services.orders.exportCsv(data.access, { state, search });
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .type("text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="orders-${data.project.id}-${day}.csv"`)
      .send(csv);
  });

  app.get("/b/:projectId/orders", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const { state, search, after } = listView(request);
    const window = resolvePageArgs({ first: pageSize, after });
    const page = await services.orders.listOrders(data.access, { state, search }, window);
    const tickets = await Promise.all(page.items.map((order) => services.orders.ticketsOf(order)));
    const refunds = await services.refunds.refundsOf(page.items.map((order) => order.id));
    const ctx = pageContext(request, reply);
    const path = `/b/${data.project.id}/orders`;
    const tabs = [
      { id: "ALL", label: "All", href: `${path}?${listQuery({ state: undefined, search })}` },
      ...states.map((s) => ({
        id: s,
        label: stateLabel(s),
        href: `${path}?${listQuery({ state: s, search })}`,
      })),
    ];
    const query = listQuery({ state, search });
    return sendPage(
      reply,
      <ProjectLayout ctx={ctx} project={data.project} section="orders" title="Orders">
        <h2>Orders</h2>
        <form method="get" action={path} class="search-form filter-form" aria-label="Find orders">
          {state ? <input type="hidden" name="state" value={state} /> : null}
          <div class="field">
            <label for="orders-q">Search orders</label>
            <input id="orders-q" name="q" type="search" value={search} placeholder="Code, name or email" />
          </div>
          <button type="submit" class="button button-secondary">
            Search
          </button>
        </form>
        <Tabs label="Order state" tabs={tabs} current={state ?? "ALL"} />
        <p>
          <a href={`${path}/export.csv${query ? `?${query}` : ""}`} download>
            Export CSV
          </a>{" "}
          · <a href={`${path}/statement`}>Import bank statement</a>
        </p>
        {page.items.length === 0 ? (
          <EmptyState title="No orders">
            {search ? "No order matches this search." : "Orders placed on the event page appear here."}
          </EmptyState>
        ) : (
          <ul class="order-list">
            {page.items.map((order, i) => (
              <OrderCard
                ctx={ctx}
                data={data}
                order={order}
                tickets={tickets[i] ?? []}
                refunds={refunds.get(order.id) ?? []}
              />
            ))}
          </ul>
        )}
        {page.hasNextPage && page.endCursor ? (
          <p>
            <a href={`${path}?${query ? `${query}&` : ""}after=${encodeURIComponent(page.endCursor)}`}>
              Next page
            </a>
          </p>
        ) : null}
      </ProjectLayout>,
    );
  });

  registerOrderDetail(app, orderRow);
  registerStatementImport(app);

  rowFormRoute(app, "/b/:projectId/orders/:orderId/paid", orderRow, {
    async submit({ data, row }) {
      const order = await services.orders.markOrderPaid(data.actor, { id: row.id });
      return {
        to: `/b/${data.project.id}/orders`,
        flash: { kind: "success", text: `Order ${order.code} is paid.` },
      };
    },
  });

  rowFormRoute(app, "/b/:projectId/orders/:orderId/refund", orderRow, {
    async submit({ data, row, values }) {
      const text = values.amount?.trim() ?? "";
      const to = `/b/${data.project.id}/orders`;
      try {
        const order = await services.refunds.refundOrder(data.actor, {
          id: row.id,
          amountMinor: text === "" ? undefined : (minorOf(text, row.currency) ?? 0),
        });
        const refunded = formatMoney(order.refundedMinor, order.currency);
        return { to, flash: { kind: "success", text: `Order ${order.code}: ${refunded} refunded in all.` } };
      } catch (error) {
        // A refusal (too much, not paid, Stripe declined or unreachable) is told on the list.
        if (!(error instanceof AppError)) throw error;
        if (error.code !== ErrorCode.SERVICE_UNAVAILABLE && !isUserError(error)) throw error;
        const problem = error.details.fieldErrors?.[0];
        const text =
          problem && problem.field[0] === "amountMinor" ? `amount ${problem.message}` : error.message;
        return { to, flash: { kind: "error", text: `Order ${row.code} not refunded: ${text}.` } };
      }
    },
  });

  rowFormRoute(app, "/b/:projectId/orders/:orderId/resend", orderRow, {
    async submit({ data, row }) {
      const order = await services.orders.resendConfirmation(data.actor, { id: row.id });
      return {
        to: `/b/${data.project.id}/orders/${order.id}`,
        flash: {
          kind: "success",
          text: `The confirmation of ${order.code} is on its way to ${order.buyerEmail}.`,
        },
      };
    },
  });

  rowFormRoute(app, "/b/:projectId/orders/:orderId/cancel", orderRow, {
    async submit({ data, row }) {
      let order: Order;
      try {
        order = await services.refunds.cancelOrder(data.actor, { id: row.id });
      } catch (error) {
        // A refused refund or Stripe without an answer: nothing was cancelled, and the page says why.
        if (!(error instanceof AppError)) throw error;
        if (error.code !== ErrorCode.SERVICE_UNAVAILABLE && !isUserError(error)) throw error;
        const text = `Order ${row.code} not cancelled: ${error.message}`;
        return { to: `/b/${data.project.id}/orders`, flash: { kind: "error", text } };
      }
      // In all: a cancel after Stripe failed once finishes the refund reserved then.
      const refunded =
        order.refundedMinor > 0
          ? `, ${formatMoney(order.refundedMinor, order.currency)} refunded in all`
          : "";
      return {
        to: `/b/${data.project.id}/orders`,
        flash: { kind: "info", text: `Order ${order.code} is cancelled${refunded}; its seats are free.` },
      };
    },
  });
}
