import type { PaymentProviderName, TicketPaymentMode } from "../../db/schema.js";

/**
 * How an order is paid: the one seam between orders and money. An order keeps the name of its
 * provider; the order service asks the provider only what differs between ways of paying, so a new
 * one (Stripe, then Mollie or PayPal: docs/payments.md) is one more entry here plus the steps it
 * adds (creating a payment, confirming it from the provider's signed notification, refunding).
 */
export interface PaymentProvider {
  name: PaymentProviderName;
  /** How the buyer pays, as the confirmation page, the mail and the dashboard say it. */
  title: string;
  /**
   * What a new order is. `paid`: nothing is due (free tickets). `held`: the tickets hold their
   * seats only until the project's hold lapses, unless the order is paid first. `kept`: the seats
   * stay taken until someone cancels, payment is collected outside Eventgraph (at the door, by
   * invoice) and an organizer marks the order paid.
   */
  start: "paid" | "held" | "kept";
  /** What the buyer quotes when paying, or null when nothing is to be quoted. */
  reference(code: string): string | null;
}

const providers: Record<PaymentProviderName, PaymentProvider> = {
  FREE: { name: "FREE", title: "Free", start: "paid", reference: () => null },
  AT_DOOR: { name: "AT_DOOR", title: "Paid at the door", start: "kept", reference: () => null },
  INVOICE: { name: "INVOICE", title: "Paid by invoice", start: "kept", reference: (code) => code },
  BANK_TRANSFER: { name: "BANK_TRANSFER", title: "Bank transfer", start: "held", reference: (code) => code },
  // Paid on Stripe Checkout; only Stripe's signed notification marks it paid (stripe/stripe-payments.ts).
  STRIPE: { name: "STRIPE", title: "Card (Stripe)", start: "held", reference: () => null },
};

/** The provider an order names. */
export function paymentProvider(name: PaymentProviderName): PaymentProvider {
  return providers[name];
}

/**
 * The provider of an order of tickets paid the ways `paidModes` say (the payment modes of its
 * ticket types with a price): FREE when nothing is paid, the one way they share, or undefined when
 * they differ or one is not sold on the event page (NONE): such tickets are bought in separate orders.
 */
export function providerForModes(paidModes: readonly TicketPaymentMode[]): PaymentProvider | undefined {
  const modes = new Set(paidModes);
  if (modes.size === 0) return providers.FREE;
  if (modes.size > 1) return undefined;
  const [mode] = modes;
  return mode === undefined || mode === "NONE" ? undefined : providers[mode];
}
