/** Digits after the decimal point of a currency (2 for EUR, 0 for JPY); 2 when unknown. */
export function currencyDigits(currency: string): number {
  try {
    return (
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/** "12.50" EUR → 1250 minor units; undefined for text that is not an amount. */
export function parseMoney(text: string, currency: string): number | undefined {
  const digits = currencyDigits(currency);
  const match = /^(\d{1,10})(?:[.,](\d+))?$/.exec(text.trim());
  if (!match) return undefined;
  const fraction = match[2] ?? "";
  if (fraction.length > digits) return undefined;
  return Number(match[1]) * 10 ** digits + Number(fraction.padEnd(digits, "0") || "0");
}

/** 1250 EUR → "€12.50". */
export function formatMoney(minor: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).format(
      minor / 10 ** currencyDigits(currency),
    );
  } catch {
    return `${minor} ${currency}`;
  }
}

/** The form text for an amount in minor units: 1250 EUR → "12.50". */
export function moneyInput(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  return (minor / 10 ** digits).toFixed(digits);
}
