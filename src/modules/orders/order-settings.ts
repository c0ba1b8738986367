import { z } from "zod";
import { optionalMultilineText } from "../../shared/validation.js";
import type { OrderSettingsRow } from "./orders.repository.js";

/** A project's order settings. */
export interface OrderSettings {
  /** How long a pending order paid by bank transfer holds its seats. */
  holdMinutes: number;
  /** What a buyer paying by bank transfer is shown (account holder, IBAN, BIC); null: not taken. */
  bankDetails: string | null;
}

/**
 * Fifteen minutes, as ticket shops hold a cart. An organizer taking bank transfers, which take days,
 * sets a longer hold (up to 14 days); a payment arriving after it lapsed is a late payment
 * (docs/payments.md).
 */
const defaultOrderSettings: OrderSettings = { holdMinutes: 15, bankDetails: null };

export const orderSettingsInput = z.object({
  holdMinutes: z
    .number()
    .int("must be a whole number of minutes")
    .min(5, "must be at least 5 minutes")
    .max(20_160, "must be at most 20,160 minutes (14 days)"),
  bankDetails: optionalMultilineText(1_000),
});

export function presentOrderSettings(row: OrderSettingsRow | undefined): OrderSettings {
  if (!row) return { ...defaultOrderSettings };
  return { holdMinutes: Number(row.hold_minutes), bankDetails: row.bank_details };
}
