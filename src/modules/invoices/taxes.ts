import { z } from "zod";

// Prices are entered gross (tax included) by default, as pretix does and as consumers see them: the
// tax is taken out of each line, so what the event page shows is what is paid. A project selling to
// businesses enters them net instead (order_settings.prices_net): the tax is then added per ticket.

/** The largest tax rate accepted, in basis points (100 %). */
const maxTaxRateBasisPoints = 10_000;

/**
 * The tax included in `grossMinor` at `rateBasisPoints` (1900: 19 %), in whole minor units: the net
 * is gross × 10000 / (10000 + rate) rounded half away from zero, and the tax is what remains, so net
 * and tax always add up to the gross exactly. Integer arithmetic only: gross × 20000 stays below
 * 2^53 for every amount an order holds (at most 2^31).
 */
export function taxIncluded(grossMinor: number, rateBasisPoints: number): number {
  if (rateBasisPoints === 0 || grossMinor === 0) return 0;
  const sign = grossMinor < 0 ? -1 : 1;
  const gross = Math.abs(grossMinor);
  const divisor = 10_000 + rateBasisPoints;
  const net = Math.floor((gross * 20_000 + divisor) / (2 * divisor));
  const tax = gross - net;
  // Never -0: a credit of a tax-free amount is 0, which JSON and equality treat as one value.
  return tax === 0 ? 0 : sign * tax;
}

/** The tax added to a net amount, rounded half away from zero (integer arithmetic, as taxIncluded). */
function taxAdded(netMinor: number, rateBasisPoints: number): number {
  const tax = Math.floor((Math.abs(netMinor) * rateBasisPoints * 2 + 10_000) / 20_000);
  return tax === 0 ? 0 : Math.sign(netMinor) * tax;
}

/** A line as sold: the unit price and discount as charged (gross) and the line's tax. */
export interface PricedAmounts {
  unitPriceMinor: number;
  unitDiscountMinor: number;
  taxMinor: number;
}

/**
 * The one price rule of an order line, for prices entered gross or net. `unitPriceMinor` and
 * `unitDiscountMinor` are as entered (the ticket type's price and what a code takes off it).
 * Gross: they are charged as they are and the tax is taken out of the line once. Net: the tax is
 * added to each ticket's net price (rounded per ticket, as pretix rounds per position), so a ticket
 * costs a whole number of minor units, a card payment's line items add up to the total and a credit
 * note for some of a line's tickets takes back exactly their share. The answer is always gross (what
 * is paid), so totals, payments, refunds and invoices read every line the same way.
 */
export function priceLine(entered: {
  unitPriceMinor: number;
  unitDiscountMinor: number;
  quantity: number;
  rateBasisPoints: number;
  pricesNet: boolean;
}): PricedAmounts {
  const { unitPriceMinor, unitDiscountMinor, quantity, rateBasisPoints } = entered;
  if (!entered.pricesNet) {
    return {
      unitPriceMinor,
      unitDiscountMinor,
      taxMinor: taxIncluded((unitPriceMinor - unitDiscountMinor) * quantity, rateBasisPoints),
    };
  }
  const paidNet = unitPriceMinor - unitDiscountMinor;
  const unitTax = taxAdded(paidNet, rateBasisPoints);
  const listed = unitPriceMinor + taxAdded(unitPriceMinor, rateBasisPoints);
  return {
    unitPriceMinor: listed,
    unitDiscountMinor: listed - (paidNet + unitTax),
    taxMinor: unitTax * quantity,
  };
}

/** A rate as people write it: 1900 → "19%", 750 → "7.5%". */
export function formatTaxRate(rateBasisPoints: number): string {
  return `${(rateBasisPoints / 100).toLocaleString("en", { maximumFractionDigits: 2 })}%`;
}

/** A tax rate in basis points, as inputs take it. */
export const taxRateInput = z
  .number()
  .int("must be a whole number of basis points (1900 for 19 %)")
  .min(0, "must not be negative")
  .max(maxTaxRateBasisPoints, "must be at most 10000 (100 %)");
