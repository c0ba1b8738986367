import { formatDateTime } from "../dashboard/time.js";
import type { Order } from "../modules/orders/orders.model.js";
import { formatMoney } from "../shared/money.js";

/** What the cancel form says after a post: done, or refused (the deadline passed, the refund failed). */
export type CancelOutcome = "done" | "refused" | undefined;

/**
 * The buyer's "cancel my order" block on the order page, shown while the organizer allows it. A
 * required checkbox stands in for a script's confirm(): the page works without JavaScript.
 */
export function SelfCancel(props: {
  order: Order;
  /** Until when cancelling is allowed; null: not (any more). */
  until: string | null;
  timezone: string;
  action: string;
  outcome: CancelOutcome;
}) {
  const { order, until, outcome } = props;
  if (outcome === "done") return <p role="status">Your order is cancelled and its payment refunded.</p>;
  const refused =
    outcome === "refused" ? (
      <p role="alert">
        The order could not be cancelled: the organizer no longer allows it, or the refund could not be made
        yet. Try again later or contact the organizer.
      </p>
    ) : null;
  if (until === null) return refused;
  const back = formatMoney(order.totalMinor - order.refundedMinor, order.currency);
  return (
    <section aria-labelledby="cancel-heading" class="block">
      <h2 id="cancel-heading">Cancel your order</h2>
      {refused}
      <p>
        You can cancel all tickets of this order until {formatDateTime(until, props.timezone)} (
        {props.timezone} time) and get {back} back, the way you paid.
      </p>
      <form method="post" action={props.action}>
        <label>
          <input type="checkbox" name="confirm" value="yes" required /> I want to cancel all tickets of this
          order
        </label>
        <button type="submit" class="button">
          Cancel the order and refund {back}
        </button>
      </form>
    </section>
  );
}
