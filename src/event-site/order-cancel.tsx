import { formatDateTime } from "../dashboard/time.js";
import type { Attendee } from "../modules/attendees/attendees.service.js";
import { type Order, type OrderLine, ticketRefundMinor } from "../modules/orders/orders.model.js";
import { formatMoney } from "../shared/money.js";

/** What the cancel forms say after a post: the order or one ticket cancelled, or refused. */
export const cancelOutcomes = ["done", "ticket", "refused"] as const;
export type CancelOutcome = (typeof cancelOutcomes)[number] | undefined;

/** One ticket's own cancel form: a required checkbox stands in for a script's confirm(). */
function TicketCancelForm(props: { ticket: Attendee; back: string; action: string }) {
  const { ticket } = props;
  return (
    <form
      method="post"
      action={props.action}
      class="cancel-form"
      aria-label={`Cancel ${ticket.name}'s ticket`}
    >
      <input type="hidden" name="ticket" value={ticket.id} />
      <label>
        <input type="checkbox" name="confirm" value="yes" required /> I want to cancel {ticket.name}'s ticket
      </label>
      <button type="submit" class="button button-secondary">
        Cancel this ticket and refund {props.back}
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
}) {
  const { order, until, outcome } = props;
  const done =
    outcome === "done" ? (
      <p role="status">Your order is cancelled and its payment refunded.</p>
    ) : outcome === "ticket" ? (
      <p role="status">The ticket is cancelled and its price refunded, the way you paid.</p>
    ) : null;
  const refused =
    outcome === "refused" ? (
      <p role="alert">
        Nothing was cancelled: the organizer no longer allows it, or the refund could not be made yet. Try
        again later or contact the organizer.
      </p>
    ) : null;
  if (until === null || order.state !== "PAID") return done ?? refused;
  const money = (minor: number) => formatMoney(minor, order.currency);
  const left = order.totalMinor - order.refundedMinor;
  const active = props.tickets.filter((t) => t.status === "REGISTERED");
  const lineOf = (ticket: Attendee) => props.lines.find((l) => l.ticketTypeId === ticket.ticketTypeId);
  return (
    <section aria-labelledby="cancel-heading" class="block">
      <h2 id="cancel-heading">Cancel tickets</h2>
      {done}
      {refused}
      <p>
        You can cancel until {formatDateTime(until, props.timezone)} ({props.timezone} time) and get your
        money back the way you paid.
      </p>
      {active.length > 1
        ? active.map((ticket) => (
            <TicketCancelForm
              ticket={ticket}
              back={money(ticketRefundMinor(lineOf(ticket), left, false))}
              action={props.action}
            />
          ))
        : null}
      <form method="post" action={props.action} class="cancel-form" aria-label="Cancel the order">
        <label>
          <input type="checkbox" name="confirm" value="yes" required /> I want to cancel all tickets of this
          order
        </label>
        <button type="submit" class="button">
          Cancel the order and refund {money(left)}
        </button>
      </form>
    </section>
  );
}
