import { z } from "zod";
import type { TicketPaymentMode } from "../../db/schema.js";
import { badInput } from "../../errors.js";
import { dateTime, idText, notNull, optionalMultilineText, requiredText } from "../../shared/validation.js";
import { taxRateInput } from "../invoices/taxes.js";

// What a ticket type write may contain: the inputs of create, update, delete and list, checked
// before any row is read, apart from the service's rules over stored rows (sold seats, names taken).

/** The payment modes, for forms and inputs. */
export const paymentModes = [
  "NONE",
  "AT_DOOR",
  "INVOICE",
  "BANK_TRANSFER",
  "STRIPE",
] as const satisfies readonly TicketPaymentMode[];
const paymentMode = z.enum(paymentModes);

// Intl knows the currencies in use today; the list is read once, not per request.
const currencies = new Set(Intl.supportedValuesOf("currency"));

const id = idText;
const ticketTypeFields = {
  name: requiredText(200),
  description: optionalMultilineText(5_000),
  priceMinor: z
    .number()
    .int("must be a whole number of minor units (cents)")
    .min(0, "must not be negative")
    // Stored in a 32-bit integer column on PostgreSQL.
    .max(2_000_000_000, "is too large"),
  currency: z
    .string()
    .trim()
    .transform((c) => c.toUpperCase())
    .refine((c) => currencies.has(c), "must be an ISO 4217 currency code such as EUR or USD"),
  quantity: z
    .number()
    .int("must be a whole number")
    .min(0, "must not be negative")
    .max(10_000_000, "is too large"),
  salesStartAt: dateTime.nullish(),
  salesEndAt: dateTime.nullish(),
  paymentMode: paymentMode.nullish(),
  taxRateBasisPoints: taxRateInput.nullish(),
  hidden: z.boolean().nullish(),
};
export const createInput = z.object({ projectId: idText, ...ticketTypeFields });
export const updateInput = z
  .object({
    id,
    ...ticketTypeFields,
    name: notNull(ticketTypeFields.name),
    priceMinor: notNull(ticketTypeFields.priceMinor),
    currency: notNull(ticketTypeFields.currency),
    quantity: notNull(ticketTypeFields.quantity),
  })
  .partial({
    name: true,
    description: true,
    priceMinor: true,
    currency: true,
    quantity: true,
    salesStartAt: true,
    salesEndAt: true,
    paymentMode: true,
    taxRateBasisPoints: true,
    hidden: true,
  });
export const deleteInput = z.object({ id });
// From GraphQL arguments, where an omitted filter may be null (meaning the default).
export const listFilter = z.object({ onSaleOnly: z.boolean().nullish() });

export type CreateTicketTypeInput = z.input<typeof createInput>;
export type UpdateTicketTypeInput = z.input<typeof updateInput>;
export type TicketTypeFilter = z.input<typeof listFilter>;

/** Refuses a sales window that ends before it starts (either end may be open). */
export function checkSalesWindow(start: string | null | undefined, end: string | null | undefined): void {
  if (start && end && end <= start) {
    throw badInput([{ field: ["salesEndAt"], message: "must be after salesStartAt" }]);
  }
}
