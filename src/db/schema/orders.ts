import type { Generated } from "kysely";

/*
 * Orders: orders and their lines, discount codes, payment settings and accounts, refunds, provider
 * notifications and invoices. The database as a whole: ../schema.ts.
 */

/**
 * PENDING: awaiting payment, seats held; PAID; EXPIRED: the hold lapsed unpaid; CANCELLED (when it
 * was paid, what was left of it refunded: `refunded_minor`); REFUNDED: paid, then refunded in full
 * by amount (its tickets cancelled).
 */
export type OrderState = "PENDING" | "PAID" | "EXPIRED" | "CANCELLED" | "REFUNDED";

/** How an order is paid (modules/orders/payment-providers.ts). */
export type PaymentProviderName = "FREE" | "AT_DOOR" | "INVOICE" | "BANK_TRANSFER" | "STRIPE";

/** One purchase by one buyer (see migrations/2026-11-28T20-00_orders.ts). */
export interface OrdersTable {
  id: string;
  project_id: string;
  /** The code people quote, unique in its project (`aB3x-7KQ3M`). */
  code: string;
  buyer_name: string;
  buyer_email: string;
  state: OrderState;
  /** Sum of the lines, in minor units of `currency`, computed on the server. */
  total_minor: number;
  currency: string;
  provider: PaymentProviderName;
  /** What the buyer writes on the bank transfer; null for providers without one. */
  payment_reference: string | null;
  /** While PENDING: when the hold lapses. */
  hold_expires_at: string | null;
  /** The checkout form's key: a repeated submit finds this order. */
  idempotency_key: string | null;
  /** SHA-256 of the secret in the buyer's link to the order's page; null for orders placed elsewhere. */
  buyer_token_hash: string | null;
  /** Whom to invoice, as the buyer gave it at checkout (null: not given). */
  buyer_company: Generated<string | null>;
  buyer_address: Generated<string | null>;
  buyer_vat_id: Generated<string | null>;
  created_at: string;
  paid_at: string | null;
  /** When it was cancelled or expired. */
  closed_at: string | null;
  updated_at: string;
  /** The provider's checkout (a Stripe Checkout Session id) the buyer was last sent to. */
  provider_session_id: Generated<string | null>;
  /** The provider's payment that paid it (a Stripe PaymentIntent id): what a refund names. */
  provider_payment_id: Generated<string | null>;
  /** Minor units refunded, refunds in flight included: never more than `total_minor`. */
  refunded_minor: Generated<number>;
  /** The discount code the order was placed with (null: none, or deleted since). */
  discount_code_id: Generated<string | null>;
  /** The code as applied, kept when the code is deleted. */
  discount_code: Generated<string | null>;
  /** What the code took off the order in all, in minor units (total_minor is after it). */
  discount_minor: Generated<number>;
}

/** One ticket type of an order, with its price frozen when the order was placed. */
export interface OrderLinesTable {
  order_id: string;
  ticket_type_id: string;
  ticket_type_name: string;
  quantity: number;
  /** Gross, tax included. */
  unit_price_minor: number;
  /** The tax rate the line was sold at, in basis points. */
  tax_rate_bp: Generated<number>;
  /** The tax included in the line's gross amount (quantity × unit price), rounded to a minor unit. */
  tax_minor: Generated<number>;
  /** What the order's code took off each ticket of the line, in minor units. */
  unit_discount_minor: Generated<number>;
  /** 1: the price was entered net and the tax added per ticket; 0: entered gross, tax included. */
  prices_net: Generated<number>;
}

/** What a discount code does: an amount off each ticket it covers, or only unlocking hidden types. */
export type DiscountKind = "PERCENTAGE" | "FIXED_AMOUNT" | "ACCESS";

/** A discount or access code of a project (modules/discount-codes). */
export interface DiscountCodesTable {
  id: string;
  project_id: string;
  /** As the organizer wrote it. */
  code: string;
  /** Upper-cased: lookups ignore case; unique per project. */
  code_key: string;
  kind: DiscountKind;
  /** 1..100 for PERCENTAGE; else null. */
  percent_off: number | null;
  /** Minor units off each ticket for FIXED_AMOUNT (never below zero); else null. */
  amount_off_minor: number | null;
  /** Tickets the code may be applied to in all; null: no limit. */
  max_uses: number | null;
  /** Tickets of one order the code may be applied to; null: no limit. */
  max_per_order: number | null;
  valid_from: string | null;
  valid_until: string | null;
  /** JSON array of the ticket type ids it covers; null: every ticket type. */
  ticket_type_ids: string | null;
  /** The label of the bulk generation that made it, or null. */
  batch: string | null;
  /** Tickets it was applied to, in orders not cancelled or expired. */
  uses: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** A project's order settings; a project without a row has the defaults. */
export interface OrderSettingsTable {
  project_id: string;
  hold_minutes: number;
  /** Shown to buyers paying by bank transfer (account holder, IBAN, BIC); null: bank transfer off. */
  bank_details: string | null;
  /** The default tax rate of the project's ticket types, in basis points. */
  tax_rate_bp: Generated<number>;
  /** Who sells, as printed on invoices (name, address, VAT id); null: no invoices are issued. */
  seller_details: Generated<string | null>;
  /** What invoice numbers start with (`INV-2026-`): the number is the prefix and a 4-digit sequence. */
  invoice_prefix: Generated<string>;
  /** Until when buyers may cancel their own paid order for a refund (ISO instant); null: they may not. */
  self_cancel_until: Generated<string | null>;
  /** 1: ticket prices are entered net and tax is added on top; 0 (default): entered gross. */
  prices_net: Generated<number>;
  updated_at: string;
}

/** A project's Stripe keys, encrypted at rest (modules/orders/stripe/key-box.ts); no row: no Stripe. */
export interface PaymentAccountsTable {
  project_id: string;
  stripe_secret_key: string;
  stripe_webhook_secret: string;
  /** What the dashboard shows instead of the key: its mode prefix and last four characters. */
  stripe_key_hint: string;
  updated_at: string;
}

/** PENDING while the provider is asked; SUCCEEDED; FAILED (its amount is refundable again). */
type RefundState = "PENDING" | "SUCCEEDED" | "FAILED";

/**
 * REQUESTED: an organizer or app refunded (part of) the order's payment. LATE: a card payment
 * arrived after the hold lapsed and the seats were gone. DUPLICATE: a second payment of a paid
 * order. MISMATCH: a payment whose amount or currency is not the order's. The last three are sent
 * back on their own (docs/payments.md) and do not count against the order's refundable amount.
 */
export type RefundReason = "REQUESTED" | "LATE" | "DUPLICATE" | "MISMATCH";

/** One refund of an order; its id is the provider's idempotency key. */
export interface OrderRefundsTable {
  id: string;
  project_id: string;
  order_id: string;
  amount_minor: number;
  state: RefundState;
  reason: RefundReason;
  /** The provider's payment it sends money back from; null for a manual refund. */
  provider_payment_id: string | null;
  /** The provider's refund (a Stripe `re_…` id); null for a manual refund. */
  provider_refund_id: string | null;
  /** The ticket (attendee) this refund cancels once made; null: it names no ticket. */
  attendee_id: string | null;
  /** 1: this refund cancels the whole order once made (an organizer's or buyer's cancellation). */
  cancels_order: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** Provider notifications already applied, by the provider's event id: a replay changes nothing. */
export interface PaymentNotificationsTable {
  project_id: string;
  event_id: string;
  type: string;
  received_at: string;
}

/** INVOICE for an order's payment; CREDIT_NOTE takes back (part of) an invoice. */
export type InvoiceKind = "INVOICE" | "CREDIT_NOTE";

/** An invoice or credit note as issued, never changed (see migrations/2026-11-29T00-10_invoices.ts). */
export interface InvoicesTable {
  id: string;
  project_id: string;
  order_id: string;
  kind: InvoiceKind;
  /** The project's gapless sequence, shared by invoices and credit notes. */
  sequence: number;
  number: string;
  /** Gross total in minor units; negative for a credit note. */
  total_minor: number;
  currency: string;
  /** The issued document as JSON (modules/invoices/invoice-document.ts). */
  document: string;
  issued_at: string;
}

/** The last invoice sequence number issued in a project. */
export interface InvoiceCountersTable {
  project_id: string;
  last_sequence: number;
}
