import type { Attendee } from "../modules/attendees/attendees.service.js";
import type { EventContent } from "../modules/event-page/event-content.js";
import type { Invoice } from "../modules/invoices/invoices.service.js";
import { linePriceWords, type Order, type OrderLine } from "../modules/orders/orders.model.js";
import { eventPaths } from "./event-paths.js";
import { type CancelOutcome, SelfCancel } from "./order-cancel.js";
import { inLanguage, type PageLanguage } from "./page-language.js";
import { SiteLayout } from "./site-layout.js";

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
  lang: PageLanguage;
}) {
  const { order, content, lang } = props;
  const { project } = content;
  const { words } = lang;
  const { t } = words;
  const money = (minor: number) => words.money(minor, order.currency);
  const zone = project.timezone;
  const transfer = order.provider === "BANK_TRANSFER" && order.state === "PENDING";
  const card = order.provider === "STRIPE" && order.state === "PENDING";
  const tax = props.lines.reduce((sum, line) => sum + line.taxMinor, 0);
  // The page's ticket names are in its language; a line keeps the name it was sold under otherwise.
  const ticketNames = new Map(content.tickets.map((ticket) => [ticket.id, ticket.name]));
  const heldUntil = order.holdExpiresAt
    ? t("orderPage.heldUntil", { date: words.dateTime(order.holdExpiresAt, zone), zone })
    : null;
  return (
    <SiteLayout
      meta={{
        title: t("orderPage.title", { code: order.code, event: project.name }),
        description: t("orderPage.description", { event: project.name }),
        url: props.url,
        noindex: true,
      }}
      eventName={project.name}
      eventHref={inLanguage(eventPaths.page(project.id), lang)}
      lang={lang}
      path={props.invoiceBase}
    >
      <h1>{t("orderPage.heading", { code: order.code })}</h1>
      <dl class="facts">
        <div>
          <dt>{t("orderPage.state")}</dt>
          <dd>{t(`state.${order.state}`)}</dd>
        </div>
        <div>
          <dt>{t("orderPage.payment")}</dt>
          <dd>{t(`provider.${order.provider}`)}</dd>
        </div>
        {order.discountCode ? (
          <div>
            <dt>{t("orderPage.discount")}</dt>
            <dd>
              {order.discountCode}: −{money(order.discountMinor)}
            </dd>
          </div>
        ) : null}
        <div>
          <dt>{t("order.total")}</dt>
          <dd>
            {money(order.totalMinor)}
            {tax > 0 ? ` ${t("order.includesTax", { tax: money(tax) })}` : ""}
          </dd>
        </div>
      </dl>
      {transfer ? (
        <section aria-labelledby="pay-heading" class="block">
          <h2 id="pay-heading">{t("orderPage.transferHeading")}</h2>
          <p>
            {t("orderPage.transfer", { amount: money(order.totalMinor) })}{" "}
            <code class="ticket-code">{order.paymentReference}</code>
          </p>
          {heldUntil ? <p>{heldUntil}</p> : null}
          <pre class="bank-details">{props.bankDetails}</pre>
          <p class="muted">{t("orderPage.transferNote")}</p>
        </section>
      ) : null}
      {card ? (
        <section aria-labelledby="card-heading" class="block">
          <h2 id="card-heading">{t("orderPage.cardHeading")}</h2>
          {props.paymentFailed ? <p role="alert">{t("orderPage.cardFailed")}</p> : null}
          <p>{t("orderPage.cardPaid")}</p>
          {heldUntil ? <p>{heldUntil}</p> : null}
          <form method="post" action={props.payAction}>
            <button type="submit" class="button">
              {t("orderPage.cardButton", { amount: money(order.totalMinor) })}
            </button>
          </form>
        </section>
      ) : null}
      <SelfCancel
        order={order}
        lines={props.lines}
        tickets={props.tickets}
        until={props.cancelUntil}
        timezone={zone}
        action={props.cancelAction}
        outcome={props.cancelOutcome}
        words={words}
      />
      {order.refundedMinor > 0 ? (
        <p>{t("orderPage.refunded", { amount: money(order.refundedMinor) })}</p>
      ) : null}
      <h2>{t("orderPage.tickets")}</h2>
      <ul class="order-lines">
        {props.lines.map((line) => (
          <li>
            {line.quantity} × {ticketNames.get(line.ticketTypeId) ?? line.ticketTypeName} ·{" "}
            {linePriceWords(line, words, order.currency)}
          </li>
        ))}
      </ul>
      <ul class="order-lines">
        {props.tickets.map((ticket) => (
          <li>
            {ticket.name} ({ticket.email})
            {ticket.status === "CANCELLED" ? ` · ${t("orderPage.ticketCancelled")}` : ""}
          </li>
        ))}
      </ul>
      {props.invoices.length > 0 ? (
        <>
          <h2>{t("orderPage.invoices")}</h2>
          <ul class="order-lines">
            {props.invoices.map((invoice) => (
              <li>
                <a href={`${props.invoiceBase}/invoices/${invoice.id}.pdf`} download>
                  {t(invoice.kind === "INVOICE" ? "orderPage.invoice" : "orderPage.creditNote", {
                    number: invoice.number,
                  })}
                </a>{" "}
                · {words.money(invoice.totalMinor, invoice.currency)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </SiteLayout>
  );
}
