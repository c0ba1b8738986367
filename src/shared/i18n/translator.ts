import { IntlMessageFormat } from "intl-messageformat";
import { currencyDigits } from "../money.js";
import { de } from "./catalogues/de.js";
import { type Catalogue, en, type MessageKey } from "./catalogues/en.js";
import { es } from "./catalogues/es.js";
import { fr } from "./catalogues/fr.js";
import { intlLocales, type Language } from "./languages.js";

/** Every language's catalogue, keyed by its code. */
const catalogues: Record<Language, Catalogue> = { en, de, fr, es };

/** A page's or an email's words in one language, and its dates, times and prices through Intl. */
export interface Translator {
  language: Language;
  /** The message `key` with `values` filled in (plain text: the page escapes it, an email is text). */
  t(key: MessageKey, values?: Record<string, string | number>): string;
  /** "Mo., 4. Mai 2026, 09:00 MESZ": a date and time in the event's zone, saying the zone. */
  dateTime(iso: string, timeZone: string): string;
  /** "Montag, 4. Mai 2026": a calendar day in the zone. */
  day(iso: string, timeZone: string): string;
  /** "09:00": a time of day in the zone. */
  time(iso: string, timeZone: string): string;
  /** "12,50 €": an amount in minor units of a currency. */
  money(minor: number, currency: string): string;
  /** "19 %": a rate in basis points (a tax rate, a discount). */
  rate(basisPoints: number): string;
  /** "Deutschland": an ISO 3166 country code's name in the language (the code when Intl lacks it). */
  country(code: string): string;
}

const dateStyles = {
  dateTime: {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  },
  day: { weekday: "long", day: "numeric", month: "long", year: "numeric" },
  time: { hour: "2-digit", minute: "2-digit" },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

// Building a formatter costs far more than using it: one per (language, key) and (language, zone,
// style) is kept. Keys and languages are bounded by the catalogues; zones by the cap.
const messages = new Map<string, IntlMessageFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

function message(language: Language, key: MessageKey): IntlMessageFormat {
  const id = `${language} ${key}`;
  let format = messages.get(id);
  if (!format) {
    format = new IntlMessageFormat(catalogues[language][key], intlLocales[language]);
    messages.set(id, format);
  }
  return format;
}

function dateFormat(language: Language, style: keyof typeof dateStyles, timeZone: string) {
  const id = `${language} ${style} ${timeZone}`;
  let format = dateFormats.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(intlLocales[language], { timeZone, ...dateStyles[style] });
    if (dateFormats.size >= 1_000) dateFormats.clear();
    dateFormats.set(id, format);
  }
  return format;
}

const translators = new Map<Language, Translator>();

/** The translator of a language (one per language, shared: it holds no request state). */
export function translator(language: Language): Translator {
  const known = translators.get(language);
  if (known) return known;
  const percent = new Intl.NumberFormat(intlLocales[language], {
    style: "percent",
    maximumFractionDigits: 2,
  });
  const regions = new Intl.DisplayNames([intlLocales[language]], { type: "region" });
  const made: Translator = {
    language,
    t: (key, values) => String(message(language, key).format(values)),
    dateTime: (iso, timeZone) => dateFormat(language, "dateTime", timeZone).format(new Date(iso)),
    day: (iso, timeZone) => dateFormat(language, "day", timeZone).format(new Date(iso)),
    time: (iso, timeZone) => dateFormat(language, "time", timeZone).format(new Date(iso)),
    money(minor, currency) {
      try {
        return new Intl.NumberFormat(intlLocales[language], { style: "currency", currency }).format(
          minor / 10 ** currencyDigits(currency),
        );
      } catch {
        return `${minor} ${currency}`;
      }
    },
    rate: (basisPoints) => percent.format(basisPoints / 10_000),
    country(code) {
      try {
        return regions.of(code) ?? code;
      } catch {
        return code;
      }
    },
  };
  translators.set(language, made);
  return made;
}
