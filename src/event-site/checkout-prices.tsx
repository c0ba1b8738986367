import { type FormState, TextField } from "../dashboard/ui/forms.js";
import { type DiscountCode, unitDiscount } from "../modules/discount-codes/discount-codes.model.js";
import type { EventTicket } from "../modules/event-page/event-content.js";
import { formatMoney } from "../shared/money.js";

// The checkout's prices and its code field: a ticket's price as the visitor's code and the
// project's way of entering prices make it, in both steps of the checkout (order-pages.tsx).

/** A price as the checkout prints it: "free" or the amount. */
function priceOf(ticket: { priceMinor: number; currency: string }): string {
  return ticket.priceMinor === 0 ? "free" : formatMoney(ticket.priceMinor, ticket.currency);
}

/**
 * A ticket's price with the visitor's code: the code's price, the list price struck through beside
 * it; "plus tax" after a price the organizer entered net, which is not what the buyer pays.
 */
export function CodedPrice(props: {
  ticket: EventTicket;
  code: DiscountCode | undefined;
  pricesNet: boolean;
}) {
  const { ticket } = props;
  const off = unitDiscount(props.code, ticket.id, ticket.priceMinor);
  const plusTax = props.pricesNet && ticket.priceMinor - off > 0 ? " plus tax" : "";
  if (off === 0) return <>{`${priceOf(ticket)}${plusTax}`}</>;
  return (
    <>
      <s>{priceOf(ticket)}</s> {priceOf({ ...ticket, priceMinor: ticket.priceMinor - off })}
      {plusTax}
    </>
  );
}

/** What a code does, in the visitor's words. */
function codeTerms(code: DiscountCode, currency: string): string {
  switch (code.kind) {
    case "PERCENTAGE":
      return `${code.percentOff}% off`;
    case "FIXED_AMOUNT":
      return `${formatMoney(code.amountOffMinor ?? 0, currency)} off each ticket`;
    case "ACCESS":
      return "unlocks tickets";
  }
}

/** The code field of step 1: type a code and apply it, or see the one applied. */
export function CodeField(props: { state: FormState; code: DiscountCode | undefined; currency: string }) {
  return (
    <div class="code-field">
      <TextField name="code" label="Discount or access code" state={props.state} autocomplete="off" />
      {props.code ? (
        <p class="notice" role="status">
          Code {props.code.code} applied: {codeTerms(props.code, props.currency)}.
        </p>
      ) : null}
      <button type="submit" name="apply" value="1" class="button button-secondary">
        Apply code
      </button>
    </div>
  );
}
