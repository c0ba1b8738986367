import type { ComponentChildren } from "preact";
import { FormError, type FormState, TextAreaField, TextField } from "../dashboard/ui/forms.js";
import type { FormAnswers } from "../dashboard/ui/question-fields.js";
import { type DiscountCode, unitDiscount } from "../modules/discount-codes/discount-codes.model.js";
import type { EventContent, EventTicket } from "../modules/event-page/event-content.js";
import type { EventPageSettings } from "../modules/event-page/page-settings.js";
import { priceLine } from "../modules/invoices/taxes.js";
import type { Question } from "../modules/questions/questions.model.js";
import { CodedPrice, CodeField } from "./checkout-prices.js";
import { eventPaths } from "./event-paths.js";
import type { FormTicket } from "./form-token.js";
import { inLanguage, type PageLanguage } from "./page-language.js";
import { Honeypot, SignedForm } from "./registration-pages.js";
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

/** The frame of a checkout step: the event's name linking back, the switcher to step 1 in another language. */
function CheckoutLayout(props: {
  content: EventContent;
  lang: PageLanguage;
  title: string;
  url: string;
  children: ComponentChildren;
}) {
  const { project } = props.content;
  const { t } = props.lang.words;
  return (
    <SiteLayout
      meta={{
        title: props.title,
        description: t("order.chooseDescription", { event: project.name }),
        url: props.url,
      }}
      eventName={project.name}
      eventHref={inLanguage(eventPaths.page(project.id), props.lang)}
      lang={props.lang}
      path={orderPaths.choose(project.id)}
    >
      {props.children}
    </SiteLayout>
  );
}

/** Step 1: how many tickets of each type (sold-out ones say so). Works as a plain GET form. */
export function ChooseTicketsPage(props: {
  content: EventContent;
  settings: EventPageSettings;
  state: FormState;
  url: string;
  code?: DiscountCode | undefined;
  lang: PageLanguage;
}) {
  const { project, tickets } = props.content;
  const { words } = props.lang;
  const { t } = words;
  const sellable = tickets.filter((ticket) => ticket.orderable);
  const open = props.settings.registrationOpen && offeredTickets(props.content).length > 0;
  return (
    <CheckoutLayout
      content={props.content}
      lang={props.lang}
      title={t("order.chooseTitle", { event: project.name })}
      url={props.url}
    >
      <h1>{t("order.chooseHeading", { event: project.name })}</h1>
      {open ? null : <p class="note">{t("order.none")}</p>}
      <form
        method="get"
        action={orderPaths.choose(project.id)}
        class="form"
        aria-label={t("order.chooseForm")}
      >
        {props.lang.languages.length > 1 ? <input type="hidden" name="lang" value={words.language} /> : null}
        <FormError state={props.state} />
        <TicketsError state={props.state} />
        {sellable.map((ticket) => (
          <div class="field">
            <label for={`q-${ticket.id}`}>
              {ticket.name} ·{" "}
              <CodedPrice
                ticket={ticket}
                code={props.code}
                pricesNet={props.content.pricesNet}
                words={words}
              />
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
                {ticket.remaining > 0 ? t("order.notOnSale") : t("tickets.soldOut")}
              </p>
            )}
          </div>
        ))}
        {open ? (
          <button type="submit" class="button">
            {t("order.continue")}
          </button>
        ) : null}
        <CodeField
          state={props.state}
          code={props.code}
          currency={sellable[0]?.currency ?? "EUR"}
          words={words}
        />
      </form>
    </CheckoutLayout>
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
  lang: PageLanguage;
}) {
  const { project } = props.content;
  const { words } = props.lang;
  const { t } = words;
  const optional = t("field.optional");
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
  const changeHref = inLanguage(orderPaths.choose(project.id), props.lang);
  return (
    <CheckoutLayout
      content={props.content}
      lang={props.lang}
      title={t("order.detailsTitle", { event: project.name })}
      url={props.url}
    >
      <h1>{t("order.heading")}</h1>
      <ul class="order-lines">
        {props.chosen.map(({ ticket, quantity }) => (
          <li>
            {quantity} × {ticket.name} ·{" "}
            <CodedPrice ticket={ticket} code={props.code} pricesNet={pricesNet} words={words} />
          </li>
        ))}
      </ul>
      <p>
        {t("order.total")} <strong>{words.money(total, currency)}</strong>
        {tax > 0 ? ` ${t("order.includesTax", { tax: words.money(tax, currency) })}` : ""}{" "}
        <a href={changeHref}>{t("order.change")}</a>
      </p>
      <SignedForm
        action={orderPaths.choose(project.id)}
        label={t("order.form")}
        ticket={props.form}
        language={words.language}
      >
        {props.chosen.map(({ ticket, quantity }) => (
          <input type="hidden" name={`q.${ticket.id}`} value={String(quantity)} />
        ))}
        {props.code ? <input type="hidden" name="code" value={props.code.code} /> : null}
        <FormError state={props.state} />
        <TicketsError state={props.state} />
        {props.state.errors.discountCode ? (
          <p class="notice notice-error" role="alert">
            {t("code.error", { error: props.state.errors.discountCode })}
          </p>
        ) : null}
        <TextField
          name="buyerName"
          label={t("order.buyerName")}
          state={props.state}
          required
          autocomplete="name"
        />
        <TextField
          name="buyerEmail"
          label={t("order.buyerEmail")}
          type="email"
          state={props.state}
          required
          autocomplete="email"
        />
        {company === "HIDDEN" ? null : (
          <TextField
            name="company"
            label={t("register.company")}
            state={props.state}
            required={company === "REQUIRED"}
            optionalLabel={optional}
            autocomplete="organization"
          />
        )}
        {total > 0 ? (
          <>
            <TextAreaField
              name="billingAddress"
              label={t("order.billingAddress")}
              state={props.state}
              rows={3}
              hint={t("order.billingHint")}
              optionalLabel={optional}
            />
            <TextField name="vatId" label={t("order.vatId")} state={props.state} optionalLabel={optional} />
          </>
        ) : null}
        {rows.map((ticket, i) => (
          <TicketHolderFields
            index={i}
            ticket={ticket}
            questions={props.questions}
            answers={props.answers[i] ?? {}}
            state={props.state}
            words={words}
          />
        ))}
        <Honeypot label={t("register.honeypot")} />
        <button type="submit" class="button">
          {t("order.place")}
        </button>
      </SignedForm>
    </CheckoutLayout>
  );
}
