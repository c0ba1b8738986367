import type { EventContent, EventTicket } from "../modules/event-page/event-content.js";
import type { EventPageSettings } from "../modules/event-page/page-settings.js";
import type { MessageKey } from "../shared/i18n/catalogues/en.js";
import type { Translator } from "../shared/i18n/translator.js";
import { eventPaths } from "./event-paths.js";
import { inLanguage, type PageLanguage } from "./page-language.js";

const priceKeys: Partial<Record<EventTicket["paymentMode"], MessageKey>> = {
  AT_DOOR: "price.atDoor",
  INVOICE: "price.invoice",
  BANK_TRANSFER: "price.bankTransfer",
  STRIPE: "price.card",
};

function priceText(ticket: EventTicket, words: Translator, pricesNet: boolean): string {
  if (ticket.priceMinor === 0) return words.t("price.free");
  const money = words.money(ticket.priceMinor, ticket.currency);
  // A net price is not what the buyer pays: the tax is added at checkout.
  const price = pricesNet ? words.t("price.plusTax", { price: money }) : money;
  const key = priceKeys[ticket.paymentMode];
  return key ? words.t(key, { price }) : price;
}

/** The ticket list of the event page: price, seats left and what a visitor can do for each. */
export function Tickets(props: { content: EventContent; settings: EventPageSettings; lang: PageLanguage }) {
  const { project, tickets } = props.content;
  const { words } = props.lang;
  const { t } = words;
  if (tickets.length === 0) return null;
  return (
    <section aria-labelledby="tickets-heading" class="block">
      <h2 id="tickets-heading">{t("tickets.heading")}</h2>
      {props.settings.registrationOpen ? null : <p class="note">{t("tickets.closed")}</p>}
      <ul class="tickets">
        {tickets.map((ticket) => (
          <li class="ticket">
            <div class="ticket-main">
              <h3>{ticket.name}</h3>
              <p class="price">{priceText(ticket, words, props.content.pricesNet)}</p>
              {ticket.description ? <p class="muted">{ticket.description}</p> : null}
            </div>
            <div class="ticket-side">
              <p class="left">
                {ticket.remaining > 0 ? t("tickets.left", { count: ticket.remaining }) : t("tickets.soldOut")}
              </p>
              {props.settings.registrationOpen && ticket.registrable && ticket.remaining > 0 ? (
                <a class="button" href={inLanguage(eventPaths.register(project.id, ticket.id), props.lang)}>
                  {t("tickets.register")}
                  <span class="visually-hidden">{t("tickets.registerFor", { ticket: ticket.name })}</span>
                </a>
              ) : null}
              {props.settings.registrationOpen &&
              !ticket.registrable &&
              ticket.orderable &&
              ticket.remaining > 0 ? (
                <a
                  class="button"
                  href={inLanguage(`/e/${project.id}/order?q.${encodeURIComponent(ticket.id)}=1`, props.lang)}
                >
                  {t("tickets.buy")}
                  <span class="visually-hidden">{` ${ticket.name}`}</span>
                </a>
              ) : null}
              {props.settings.registrationOpen &&
              ticket.remaining === 0 &&
              (ticket.registrable || ticket.orderable) ? (
                <a
                  class="button button-secondary"
                  href={`/e/${project.id}/waiting-list?ticket=${encodeURIComponent(ticket.id)}`}
                >
                  Join the waiting list<span class="visually-hidden">{` for ${ticket.name}`}</span>
                </a>
              ) : null}
              {ticket.orderable || ticket.remaining === 0 ? null : (
                <p class="muted">{t("tickets.notSold")}</p>
              )}
            </div>
          </li>
        ))}
      </ul>
      {props.settings.registrationOpen && tickets.some((t) => t.orderable && t.remaining > 0) ? (
        <p>
          <a href={inLanguage(`/e/${project.id}/order`, props.lang)}>{t("tickets.several")}</a>
        </p>
      ) : null}
    </section>
  );
}
