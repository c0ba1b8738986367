import type { Attendee } from "../modules/attendees/attendees.service.js";
import { type Order, type OrderLine, ticketRefundMinor } from "../modules/orders/orders.model.js";
import type { Translator } from "../shared/i18n/translator.js";

/** What the cancel forms say after a post: the order or one ticket cancelled, or refused. */
export const cancelOutcomes = ["done", "ticket", "refused"] as const;
export type CancelOutcome = (typeof cancelOutcomes)[number] | undefined;

/** One ticket's own cancel form: a required checkbox stands in for a script's confirm(). */
function TicketCancelForm(props: { ticket: Attendee; back: string; action: string; words: Translator }) {
  const { ticket } = props;
  const { t } = props.words;
  return (
    <form
      method="post"
      action={props.action}
      class="cancel-form"
      aria-label={t("cancel.ticketForm", { name: ticket.name })}
    >
      <input type="hidden" name="ticket" value={ticket.id} />
      <label>
        <input type="checkbox" name="confirm" value="yes" required />{" "}
        {t("cancel.ticketConfirm", { name: ticket.name })}
      </label>
      <button type="submit" class="button button-secondary">
        {t("cancel.ticketButton", { amount: props.back })}
      </button>
    </form>
  );
}

/**
 * The buyer's "cancel" block on the order page, shown while the organizer allows it: each active
 * ticket on its own (when there are several) and the whole order. Each form works without JavaScript.
 */
export function SelfCancel(props: {
  order: Order;
  lines: readonly OrderLine[];
  tickets: readonly Attendee[];
  /** Until when cancelling is allowed; null: not (any more). */
  until: string | null;
  timezone: string;
  action: string;
  outcome: CancelOutcome;
  words: Translator;
}) {
  const { order, until, outcome, words } = props;
  const { t } = words;
  const done =
    outcome === "done" ? (
      <p role="status">{t("cancel.done")}</p>
    ) : outcome === "ticket" ? (
      <p role="status">{t("cancel.ticketDone")}</p>
    ) : null;
  const refused = outcome === "refused" ? <p role="alert">{t("cancel.refused")}</p> : null;
  if (until === null || order.state !== "PAID") return done ?? refused;
  const left = order.totalMinor - order.refundedMinor;
  const amount = words.money(left, order.currency);
  const active = props.tickets.filter((ticket) => ticket.status === "REGISTERED");
  const lineOf = (ticket: Attendee) => props.lines.find((l) => l.ticketTypeId === ticket.ticketTypeId);
  return (
    <section aria-labelledby="cancel-heading" class="block">
      <h2 id="cancel-heading">{t("cancel.heading")}</h2>
      {done}
      {refused}
      <p>
        {t("cancel.until", { date: words.dateTime(until, props.timezone), zone: props.timezone, amount })}
      </p>
      {active.length > 1
        ? active.map((ticket) => (
            <TicketCancelForm
              ticket={ticket}
              back={words.money(ticketRefundMinor(lineOf(ticket), left, false), order.currency)}
              action={props.action}
              words={words}
            />
          ))
        : null}
      <form method="post" action={props.action} class="cancel-form" aria-label={t("cancel.orderForm")}>
        <label>
          <input type="checkbox" name="confirm" value="yes" required /> {t("cancel.confirm")}
        </label>
        <button type="submit" class="button">
          {t("cancel.button", { amount })}
        </button>
      </form>
    </section>
  );
}
