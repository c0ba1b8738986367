import { z } from "zod";

// Prices are entered gross (tax included), as pretix does by default and as consumers see them: the
// tax is taken out of each line, never added on top, so what the event page shows is what is paid.

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
