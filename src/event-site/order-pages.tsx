import { formatDateTime } from "../dashboard/time.js";
import { FormError, type FormState, TextAreaField, TextField } from "../dashboard/ui/forms.js";
import type { FormAnswers } from "../dashboard/ui/question-fields.js";
import type { Attendee } from "../modules/attendees/attendees.service.js";
import { type DiscountCode, unitDiscount } from "../modules/discount-codes/discount-codes.model.js";
import type { EventContent, EventTicket } from "../modules/event-page/event-content.js";
import type { EventPageSettings } from "../modules/event-page/event-page.service.js";
import type { Invoice } from "../modules/invoices/invoices.service.js";
import { priceLine } from "../modules/invoices/taxes.js";
import { linePriceWords, type Order, type OrderLine } from "../modules/orders/orders.model.js";
import { paymentProvider } from "../modules/orders/payment-providers.js";
import type { Question } from "../modules/questions/questions.model.js";
import { formatMoney } from "../shared/money.js";
import { CodedPrice, CodeField } from "./checkout-prices.js";
import { eventPaths } from "./event-page.js";
import type { FormTicket } from "./form-token.js";
import { type CancelOutcome, SelfCancel } from "./order-cancel.js";
import { Honeypot, SignedFields } from "./registration-pages.js";
import { SiteLayout } from "./site-layout.js";
import { TicketHolderFields } from "./ticket-holder.js";

/** The most tickets of one type a buyer picks in one order (the order takes at most 20 in all). */
export const maxPerType = 10;

/** Where the checkout lives: step 1 (quantities, a GET form) and step 2 (names, a POST). */
export const orderPaths = {
  choose: (id: string) => `/e/${id}/order`,
  order: (id: string, code: string, token: string) => `/e/${id}/orders/${code}/${token}`,
};

/** The ticket types a buyer may pick here: on sale, sold in orders, with seats left. */
export function offeredTickets(content: EventContent): EventTicket[] {
  return content.tickets.filter((t) => t.orderable && t.remaining > 0);
}

function TicketsError(props: { state: FormState }) {
  const error = props.state.errors.tickets;
  return error ? (
    <p class="notice notice-error" role="alert">
      {error}
    </p>
  ) : null;
}

/** Step 1: how many tickets of each type (sold-out ones say so). Works as a plain GET form. */
export function ChooseTicketsPage(props: {
  content: EventContent;
  settings: EventPageSettings;
  state: FormState;
  url: string;
  code?: DiscountCode | undefined;
}) {
  const { project, tickets } = props.content;
  const sellable = tickets.filter((t) => t.orderable);
  const open = props.settings.registrationOpen && offeredTickets(props.content).length > 0;
  return (
    <SiteLayout
      meta={{
        title: `Tickets · ${project.name}`,
        description: `Buy tickets for ${project.name}.`,
        url: props.url,
      }}
      eventName={project.name}
      eventHref={eventPaths.page(project.id)}
    >
      <h1>Tickets for {project.name}</h1>
      {open ? null : <p class="note">No ticket can be bought here right now.</p>}
      <form method="get" action={orderPaths.choose(project.id)} class="form" aria-label="Choose tickets">
        <FormError state={props.state} />
        <TicketsError state={props.state} />
        {sellable.map((ticket) => (
          <div class="field">
            <label for={`q-${ticket.id}`}>
              {ticket.name} ·{" "}
              <CodedPrice ticket={ticket} code={props.code} pricesNet={props.content.pricesNet} />
            </label>
            {ticket.remaining > 0 && open ? (
              <input
                id={`q-${ticket.id}`}
                name={`q.${ticket.id}`}
                type="number"
                inputMode="numeric"
                min={0}
                max={Math.min(maxPerType, ticket.remaining)}
                value={props.state.values[`q.${ticket.id}`] ?? "0"}
              />
            ) : (
              <p id={`q-${ticket.id}`} class="muted">
                {ticket.remaining > 0 ? "Not on sale now" : "Sold out"}
              </p>
            )}
          </div>
        ))}
        {open ? (
          <button type="submit" class="button">
            Continue
          </button>
        ) : null}
        <CodeField state={props.state} code={props.code} currency={sellable[0]?.currency ?? "EUR"} />
      </form>
    </SiteLayout>
  );
}

/** Step 2: the buyer, and a name and email per ticket; the server prices it all again. */
export function OrderDetailsPage(props: {
  content: EventContent;
  settings: EventPageSettings;
  /** The project's tax rate (for ticket types without their own) and whether prices are entered net. */
  tax: { rateBasisPoints: number; pricesNet: boolean };
  chosen: { ticket: EventTicket; quantity: number }[];
  form: FormTicket;
  state: FormState;
  questions: readonly Question[];
  /** Each ticket's answers as submitted (none on a new form). */
  answers: readonly FormAnswers[];
  url: string;
  code?: DiscountCode | undefined;
}) {
  const { project } = props.content;
  const rows = props.chosen.flatMap(({ ticket, quantity }) => Array.from({ length: quantity }, () => ticket));
  // A preview with the order's price rule (priceLine), so what is shown here is what is invoiced;
  // the server prices it all again when placing it.
  const { pricesNet } = props.tax;
  const priced = props.chosen.map(({ ticket, quantity }) => ({
    quantity,
    ...priceLine({
      unitPriceMinor: ticket.priceMinor,
      unitDiscountMinor: unitDiscount(props.code, ticket.id, ticket.priceMinor),
      quantity,
      rateBasisPoints: ticket.taxRateBasisPoints ?? props.tax.rateBasisPoints,
      pricesNet,
    }),
  }));
  const total = priced.reduce((sum, l) => sum + (l.unitPriceMinor - l.unitDiscountMinor) * l.quantity, 0);
  const tax = priced.reduce((sum, l) => sum + l.taxMinor, 0);
  const currency = props.chosen[0]?.ticket.currency ?? "EUR";
  const company = props.settings.companyField;
  return (
    <SiteLayout
      meta={{
        title: `Your order · ${project.name}`,
        description: `Buy tickets for ${project.name}.`,
        url: props.url,
      }}
      eventName={project.name}
      eventHref={eventPaths.page(project.id)}
    >
      <h1>Your order</h1>
      <ul class="order-lines">
        {props.chosen.map(({ ticket, quantity }) => (
          <li>
            {quantity} × {ticket.name} ·{" "}
            <CodedPrice ticket={ticket} code={props.code} pricesNet={pricesNet} />
          </li>
        ))}
      </ul>
      <p>
        Total <strong>{formatMoney(total, currency)}</strong>
        {tax > 0 ? ` (includes ${formatMoney(tax, currency)} tax)` : ""}{" "}
        <a href={orderPaths.choose(project.id)}>Change</a>
      </p>
      <form method="post" action={orderPaths.choose(project.id)} class="form" aria-label="Order" noValidate>
        <SignedFields ticket={props.form} />
        {props.chosen.map(({ ticket, quantity }) => (
          <input type="hidden" name={`q.${ticket.id}`} value={String(quantity)} />
        ))}
        {props.code ? <input type="hidden" name="code" value={props.code.code} /> : null}
        <FormError state={props.state} />
        <TicketsError state={props.state} />
        {props.state.errors.discountCode ? (
          <p class="notice notice-error" role="alert">
            Code: {props.state.errors.discountCode}
          </p>
        ) : null}
        <TextField name="buyerName" label="Your name" state={props.state} required autocomplete="name" />
        <TextField
          name="buyerEmail"
          label="Your email"
          type="email"
          state={props.state}
          required
          autocomplete="email"
        />
        {company === "HIDDEN" ? null : (
          <TextField name="company" label="Company" state={props.state} required={company === "REQUIRED"} />
        )}
        {total > 0 ? (
          <>
            <TextAreaField
              name="billingAddress"
              label="Billing address (optional)"
              state={props.state}
              rows={3}
              hint="Printed on your invoice."
            />
            <TextField name="vatId" label="VAT id (optional)" state={props.state} />
          </>
        ) : null}
        {rows.map((ticket, i) => (
          <TicketHolderFields
            index={i}
            ticket={ticket}
            questions={props.questions}
            answers={props.answers[i] ?? {}}
            state={props.state}
          />
        ))}
        <Honeypot />
        <button type="submit" class="button">
          Place order
        </button>
      </form>
    </SiteLayout>
  );
}

const stateWords: Record<Order["state"], string> = {
  PENDING: "Awaiting payment",
  PAID: "Paid",
  EXPIRED: "Expired: the seats were released",
  CANCELLED: "Cancelled",
  REFUNDED: "Refunded",
};

/** The buyer's page of an order (their link): what they bought, and how to pay by bank transfer. */
export function OrderPage(props: {
  order: Order;
  lines: OrderLine[];
  tickets: Attendee[];
  bankDetails: string | null;
  invoices: Invoice[];
  /** The order page's own address: its invoices' PDFs are under it. */
  invoiceBase: string;
  content: EventContent;
  url: string;
  /** Where "Pay by card" posts (a pending card order). */
  payAction: string;
  /** Stripe could not be reached when the buyer was to be sent there. */
  paymentFailed: boolean;
  cancelUntil: string | null;
  cancelAction: string;
  cancelOutcome: CancelOutcome;
}) {
  const { order, content } = props;
  const { project } = content;
  const transfer = order.provider === "BANK_TRANSFER" && order.state === "PENDING";
  const card = order.provider === "STRIPE" && order.state === "PENDING";
  const tax = props.lines.reduce((sum, line) => sum + line.taxMinor, 0);
  return (
    <SiteLayout
      meta={{
        title: `Order ${order.code} · ${project.name}`,
        description: `Your order for ${project.name}.`,
        url: props.url,
        noindex: true,
      }}
      eventName={project.name}
      eventHref={eventPaths.page(project.id)}
    >
      <h1>Order {order.code}</h1>
      <dl class="facts">
        <div>
          <dt>State</dt>
          <dd>{stateWords[order.state]}</dd>
        </div>
        <div>
          <dt>Payment</dt>
          <dd>{paymentProvider(order.provider).title}</dd>
        </div>
        {order.discountCode ? (
          <div>
            <dt>Discount</dt>
            <dd>
              {order.discountCode}: −{formatMoney(order.discountMinor, order.currency)}
            </dd>
          </div>
        ) : null}
        <div>
          <dt>Total</dt>
          <dd>
            {formatMoney(order.totalMinor, order.currency)}
            {tax > 0 ? ` (includes ${formatMoney(tax, order.currency)} tax)` : ""}
          </dd>
        </div>
      </dl>
      {transfer ? (
        <section aria-labelledby="pay-heading" class="block">
          <h2 id="pay-heading">Pay by bank transfer</h2>
          <p>
            Transfer {formatMoney(order.totalMinor, order.currency)} with the reference{" "}
            <code class="ticket-code">{order.paymentReference}</code>
            {order.holdExpiresAt
              ? ` by ${formatDateTime(order.holdExpiresAt, project.timezone)} (${project.timezone} time); your seats are held until then.`
              : "."}
          </p>
          <pre class="bank-details">{props.bankDetails}</pre>
          <p class="muted">The organizer confirms your order once the money arrives.</p>
        </section>
      ) : null}
      {card ? (
        <section aria-labelledby="card-heading" class="block">
          <h2 id="card-heading">Pay by card</h2>
          {props.paymentFailed ? (
            <p role="alert">The card payment could not be started. Your seats are still held: try again.</p>
          ) : null}
          <p>
            Paid already? Your order is confirmed as soon as Stripe tells us, usually within seconds: reload
            this page.
            {order.holdExpiresAt
              ? ` Otherwise pay by ${formatDateTime(order.holdExpiresAt, project.timezone)} (${project.timezone} time); your seats are held until then.`
              : ""}
          </p>
          <form method="post" action={props.payAction}>
            <button type="submit" class="button">
              Pay {formatMoney(order.totalMinor, order.currency)} by card
            </button>
          </form>
        </section>
      ) : null}
      <SelfCancel
        order={order}
        lines={props.lines}
        tickets={props.tickets}
        until={props.cancelUntil}
        timezone={project.timezone}
        action={props.cancelAction}
        outcome={props.cancelOutcome}
      />
      {order.refundedMinor > 0 ? <p>Refunded: {formatMoney(order.refundedMinor, order.currency)}.</p> : null}
      <h2>Tickets</h2>
      <ul class="order-lines">
        {props.lines.map((line) => (
          <li>
            {line.quantity} × {line.ticketTypeName} ·{" "}
            {linePriceWords(line, (minor) => formatMoney(minor, order.currency))}
          </li>
        ))}
      </ul>
      <ul class="order-lines">
        {props.tickets.map((ticket) => (
          <li>
            {ticket.name} ({ticket.email}){ticket.status === "CANCELLED" ? " · cancelled" : ""}
          </li>
        ))}
      </ul>
      {props.invoices.length > 0 ? (
        <>
          <h2>Invoices</h2>
          <ul class="order-lines">
            {props.invoices.map((invoice) => (
              <li>
                <a href={`${props.invoiceBase}/invoices/${invoice.id}.pdf`} download>
                  {invoice.kind === "INVOICE" ? "Invoice" : "Credit note"} {invoice.number} (PDF)
                </a>{" "}
                · {formatMoney(invoice.totalMinor, invoice.currency)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </SiteLayout>
  );
}
