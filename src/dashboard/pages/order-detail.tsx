import type { FastifyInstance } from "fastify";
import { AppError, ErrorCode } from "../../errors.js";
import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { AuditEntry } from "../../modules/audit/audit.visibility.js";
import { invoiceDownloadRule, sendInvoicePdf } from "../../modules/invoices/invoice-reply.js";
import type { Invoice } from "../../modules/invoices/invoices.service.js";
import { formatTaxRate } from "../../modules/invoices/taxes.js";
import {
  type Order,
  type OrderLine,
  paidUnitMinor,
  shownUnitMinor,
} from "../../modules/orders/orders.model.js";
import { paymentProvider } from "../../modules/orders/payment-providers.js";
import { formatMoney } from "../../shared/money.js";
import { type PageContext, pageContext } from "../context.js";
import { type FormRequest, loadRow, type RowLookup } from "../form-route.js";
import { formatDateTime } from "../time.js";
import { Badge, DataTable, Facts } from "../ui/components.js";
import { Form, SubmitButton } from "../ui/forms.js";
import { ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { loadProjectPage, type ProjectPageData } from "./project-page.js";

/** How an order's state reads in the dashboard, and its badge's tone. */
export const orderStateLabels = {
  PENDING: ["Awaiting payment", "warning"],
  PAID: ["Paid", "success"],
  EXPIRED: ["Expired", "neutral"],
  CANCELLED: ["Cancelled", "danger"],
  REFUNDED: ["Refunded", "neutral"],
} as const;

/** The dashboard address of an invoice's PDF. */
const invoicePath = (projectId: string, invoice: Invoice) =>
  `/b/${projectId}/orders/${invoice.orderId}/invoices/${invoice.id}.pdf`;

function LinesTable(props: { order: Order; lines: OrderLine[] }) {
  const money = (minor: number) => formatMoney(minor, props.order.currency);
  return (
    <DataTable
      caption="Tickets ordered"
      class="order-lines"
      columns={[
        "Ticket type",
        { label: "Qty", numeric: true },
        { label: props.lines.some((l) => l.pricesNet) ? "Unit price (net)" : "Unit price", numeric: true },
        { label: "Tax rate", numeric: true },
        { label: "Net", numeric: true },
        { label: "Tax", numeric: true },
        { label: "Gross", numeric: true },
      ]}
    >
      {props.lines.map((line) => {
        const gross = paidUnitMinor(line) * line.quantity;
        return (
          <tr>
            <td>
              {line.ticketTypeName}
              {line.unitDiscountMinor > 0
                ? ` (code ${props.order.discountCode}: −${money(line.unitDiscountMinor)} each)`
                : ""}
            </td>
            <td class="num">{line.quantity}</td>
            <td class="num">{money(shownUnitMinor(line))}</td>
            <td class="num">{formatTaxRate(line.taxRateBasisPoints)}</td>
            <td class="num">{money(gross - line.taxMinor)}</td>
            <td class="num">{money(line.taxMinor)}</td>
            <td class="num">{money(gross)}</td>
          </tr>
        );
      })}
    </DataTable>
  );
}

function History(props: { entries: AuditEntry[] | undefined; timeZone: string }) {
  if (!props.entries) return <p class="muted">The history is shown to the project's owners and admins.</p>;
  if (props.entries.length === 0) return <p class="muted">Nothing recorded yet.</p>;
  return (
    <ol class="history">
      {props.entries.map((entry) => (
        <li>
          <time datetime={entry.occurredAt}>{formatDateTime(entry.occurredAt, props.timeZone)}</time>{" "}
          {entry.action} · {entry.actor.label ?? entry.actor.kind}
        </li>
      ))}
    </ol>
  );
}

function OrderDetail(props: {
  ctx: PageContext;
  data: ProjectPageData;
  order: Order;
  lines: OrderLine[];
  tickets: Attendee[];
  invoices: Invoice[];
  history: AuditEntry[] | undefined;
}) {
  const { order, data } = props;
  const zone = data.project.timezone;
  const [label, tone] = orderStateLabels[order.state];
  const money = (minor: number) => formatMoney(minor, order.currency);
  const tax = props.lines.reduce((sum, l) => sum + l.taxMinor, 0);
  const when = (iso: string | null) => (iso ? formatDateTime(iso, zone) : "—");
  return (
    <ProjectLayout ctx={props.ctx} project={data.project} section="orders" title={`Order ${order.code}`}>
      <p>
        <a href={`/b/${data.project.id}/orders`}>← Orders</a>
      </p>
      <h2>
        Order {order.code} <Badge tone={tone}>{label}</Badge>
      </h2>
      <Facts
        items={[
          ["Buyer", `${order.buyerName} <${order.buyerEmail}>`],
          ["Company", order.buyerCompany ?? "—"],
          ["Billing address", order.buyerAddress ?? "—"],
          ["VAT id", order.buyerVatId ?? "—"],
          ["Total", `${money(order.totalMinor)} (tax ${money(tax)})`],
        ]}
      />
      <h3>Tickets ordered</h3>
      <LinesTable order={order} lines={props.lines} />
      <h3>Attendees</h3>
      <ul>
        {props.tickets.map((t) => (
          <li>
            {t.name} ({t.email}) · {t.ticketCode}
            {t.status === "CANCELLED" ? " · cancelled" : ""}
          </li>
        ))}
      </ul>
      <h3>Payment</h3>
      <Facts
        items={[
          ["Paid with", paymentProvider(order.provider).title],
          ["Reference", order.paymentReference ?? "—"],
          ["Placed", when(order.createdAt)],
          ["Paid", when(order.paidAt)],
          ["Closed", when(order.closedAt)],
        ]}
      />
      {order.state === "PAID" ||
      (order.state === "PENDING" && paymentProvider(order.provider).start === "kept") ? (
        <Form
          action={`/b/${data.project.id}/orders/${order.id}/resend`}
          csrf={props.ctx.csrf}
          label={`Resend the confirmation of ${order.code}`}
        >
          <SubmitButton variant="secondary">Resend confirmation</SubmitButton>
        </Form>
      ) : null}
      <h3>Invoices</h3>
      {props.invoices.length === 0 ? (
        <p class="muted">
          No invoice yet: one is issued when the order is paid, if Settings → Payments names the seller.
        </p>
      ) : (
        <ul>
          {props.invoices.map((invoice) => (
            <li>
              <a href={invoicePath(data.project.id, invoice)} download>
                {invoice.kind === "INVOICE" ? "Invoice" : "Credit note"} {invoice.number}
              </a>{" "}
              · {money(invoice.totalMinor)} · {when(invoice.issuedAt)}
            </li>
          ))}
        </ul>
      )}
      <h3>History</h3>
      <History entries={props.history} timeZone={zone} />
    </ProjectLayout>
  );
}

/** An order's page (orders:read) and its invoices' PDFs. */
export function registerOrderDetail(app: FastifyInstance, orderRow: RowLookup<Order>): void {
  const { services } = app;

  app.get("/b/:projectId/orders/:orderId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const order = await loadRow(data, orderRow, request.params);
    const [lines, tickets, invoices] = await Promise.all([
      services.orders.linesOf([order.id]),
      services.orders.ticketsOf(order),
      services.orders.invoicesOf([order.id]),
    ]);
    const own = invoices.get(order.id) ?? [];
    const objects = [order.id, ...tickets.map((t) => t.id), ...own.map((i) => i.id)];
    // Members without audit:read see the order without its history, not an error page.
    const history = await services.audit.historyOf(data.actor, data.project.id, objects).catch((error) => {
      if (error instanceof AppError && error.code === ErrorCode.FORBIDDEN) return undefined;
      throw error;
    });
    return sendPage(
      reply,
      <OrderDetail
        ctx={pageContext(request, reply)}
        data={data}
        order={order}
        lines={lines.get(order.id) ?? []}
        tickets={tickets}
        invoices={own}
        history={history}
      />,
    );
  });

  app.get("/b/:projectId/orders/:orderId/invoices/:file", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const order = await loadRow(data, orderRow, request.params);
    const id = /^([A-Za-z0-9_-]{1,64})\.pdf$/.exec(request.params.file ?? "")?.[1] ?? "";
    const invoice = await services.orders.findInvoice(data.actor, id);
    if (!invoice || invoice.orderId !== order.id)
      throw new AppError(ErrorCode.NOT_FOUND, "Invoice not found");
    const key = data.actor.kind === "user" ? `user:${data.actor.userId}` : data.actor.kind;
    if (!(await services.throttle.take([{ rule: invoiceDownloadRule, key }]))) {
      throw new AppError(ErrorCode.RATE_LIMITED, "Too many invoice downloads; try again within the hour");
    }
    return sendInvoicePdf(reply, invoice);
  });
}
