import type { Order } from "../modules/orders/orders.model.js";
import type { Translator } from "../shared/i18n/translator.js";

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
  words: Translator;
}) {
  const { order, until, outcome, words } = props;
  const { t } = words;
  if (outcome === "done") return <p role="status">{t("cancel.done")}</p>;
  const refused = outcome === "refused" ? <p role="alert">{t("cancel.refused")}</p> : null;
  if (until === null) return refused;
  const amount = words.money(order.totalMinor - order.refundedMinor, order.currency);
  return (
    <section aria-labelledby="cancel-heading" class="block">
      <h2 id="cancel-heading">{t("cancel.heading")}</h2>
      {refused}
      <p>
        {t("cancel.until", { date: words.dateTime(until, props.timezone), zone: props.timezone, amount })}
      </p>
      <form method="post" action={props.action}>
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
