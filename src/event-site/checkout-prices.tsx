import { type FormState, TextField } from "../dashboard/ui/forms.js";
import { type DiscountCode, unitDiscount } from "../modules/discount-codes/discount-codes.model.js";
import type { EventTicket } from "../modules/event-page/event-content.js";
import type { Translator } from "../shared/i18n/translator.js";

// The checkout's prices and its code field, in the visitor's language: a ticket's price as the
// visitor's code and the project's way of entering prices make it, in both steps of the checkout
// (order-pages.tsx).

/** A price as the checkout prints it: "free" or the amount. */
function priceOf(ticket: { priceMinor: number; currency: string }, words: Translator): string {
  return ticket.priceMinor === 0 ? words.t("price.free") : words.money(ticket.priceMinor, ticket.currency);
}

/**
 * A ticket's price with the visitor's code: the code's price, the list price struck through beside
 * it; "plus tax" after a price the organizer entered net, which is not what the buyer pays.
 */
export function CodedPrice(props: {
  ticket: EventTicket;
  code: DiscountCode | undefined;
  pricesNet: boolean;
  words: Translator;
}) {
  const { ticket, words } = props;
  const off = unitDiscount(props.code, ticket.id, ticket.priceMinor);
  const paid = { ...ticket, priceMinor: ticket.priceMinor - off };
  const net = (price: string) =>
    props.pricesNet && paid.priceMinor > 0 ? words.t("price.plusTax", { price }) : price;
  if (off === 0) return <>{net(priceOf(ticket, words))}</>;
  return (
    <>
      <s>{priceOf(ticket, words)}</s> {net(priceOf(paid, words))}
    </>
  );
}

/** What a code does, in the visitor's words. */
function codeTerms(code: DiscountCode, currency: string, words: Translator): string {
  switch (code.kind) {
    case "PERCENTAGE":
      return words.t("code.percent", { percent: words.rate((code.percentOff ?? 0) * 100) });
    case "FIXED_AMOUNT":
      return words.t("code.fixed", { amount: words.money(code.amountOffMinor ?? 0, currency) });
    case "ACCESS":
      return words.t("code.access");
  }
}

/** The code field of step 1: type a code and apply it, or see the one applied. */
export function CodeField(props: {
  state: FormState;
  code: DiscountCode | undefined;
  currency: string;
  words: Translator;
}) {
  const { t } = props.words;
  return (
    <div class="code-field">
      <TextField
        name="code"
        label={t("code.label")}
        state={props.state}
        autocomplete="off"
        optionalLabel={t("field.optional")}
      />
      {props.code ? (
        <p class="notice" role="status">
          {t("code.applied", {
            code: props.code.code,
            terms: codeTerms(props.code, props.currency, props.words),
          })}
        </p>
      ) : null}
      <button type="submit" name="apply" value="1" class="button button-secondary">
        {t("code.apply")}
      </button>
    </div>
  );
}
