import { z } from "zod";
import { optionalMultilineText } from "../../shared/validation.js";
import { taxRateInput } from "../invoices/taxes.js";
import type { OrderSettingsRow } from "./orders.repository.js";

/** A project's order settings. */
export interface OrderSettings {
  /** How long a pending order paid by bank transfer holds its seats. */
  holdMinutes: number;
  /** What a buyer paying by bank transfer is shown (account holder, IBAN, BIC); null: not taken. */
  bankDetails: string | null;
  /** The tax rate of ticket types without a rate of their own (1900: 19 %). */
  taxRateBasisPoints: number;
  /** The seller as printed on invoices (name, address, VAT id); null: no invoices are issued. */
  sellerDetails: string | null;
  /** What invoice numbers start with: `INV-` gives INV-0001, INV-0002, … */
  invoicePrefix: string;
  /** Until when a buyer may cancel their own paid order for a refund (ISO instant); null: never. */
  selfCancelUntil: string | null;
  /** Ticket prices are entered net: the tax is added on top (false: prices include it). */
  pricesNet: boolean;
}

/**
 * Fifteen minutes, as ticket shops hold a cart. An organizer taking bank transfers, which take days,
 * sets a longer hold (up to 14 days); a payment arriving after it lapsed is a late payment
 * (docs/payments.md). No tax and no invoices until the organizer says who sells.
 */
const defaultOrderSettings: OrderSettings = {
  holdMinutes: 15,
  bankDetails: null,
  taxRateBasisPoints: 0,
  sellerDetails: null,
  invoicePrefix: "INV-",
  selfCancelUntil: null,
  pricesNet: false,
};

export const orderSettingsInput = z.object({
  holdMinutes: z
    .number()
    .int("must be a whole number of minutes")
    .min(5, "must be at least 5 minutes")
    .max(20_160, "must be at most 20,160 minutes (14 days)"),
  bankDetails: optionalMultilineText(1_000),
  taxRateBasisPoints: taxRateInput.optional(),
  sellerDetails: optionalMultilineText(1_000),
  // Letters, digits and separators only: the number is printed, filed and quoted on transfers.
  invoicePrefix: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9/_-]{0,16}$/, "must be up to 16 letters, digits, '-', '_' or '/'")
    .optional(),
  // An instant with its offset, so the deadline means the same whatever the server's zone.
  selfCancelUntil: z.string().datetime({ offset: true, message: "must be a date and time" }).nullish(),
  pricesNet: z.boolean().optional(),
});

export function presentOrderSettings(row: OrderSettingsRow | undefined): OrderSettings {
  if (!row) return { ...defaultOrderSettings };
  return {
    holdMinutes: Number(row.hold_minutes),
    bankDetails: row.bank_details,
    taxRateBasisPoints: Number(row.tax_rate_bp),
    sellerDetails: row.seller_details,
    invoicePrefix: row.invoice_prefix,
    selfCancelUntil: row.self_cancel_until,
    pricesNet: Number(row.prices_net) === 1,
  };
}
