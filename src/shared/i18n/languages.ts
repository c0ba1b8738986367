/**
 * The languages the event site and the attendee emails are written in. Adding one is a catalogue
 * under catalogues/ and one line here; test/api/catalogues.test.ts checks it has every key English has.
 */
export const languages = ["en", "de", "fr", "es"] as const;

export type Language = (typeof languages)[number];

/** Each language named in itself, as a switcher shows it (a reader looks for their own language's name). */
export const languageNames: Record<Language, string> = {
  en: "English",
  de: "Deutsch",
  fr: "Français",
  es: "Español",
};

/** The locale Intl formats with: en-GB writes dates the way the rest of Eventgraph does (4 May 2026, 09:00). */
export const intlLocales: Record<Language, string> = { en: "en-GB", de: "de-DE", fr: "fr-FR", es: "es-ES" };

/** True for a language code Eventgraph has a catalogue for. */
export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (languages as readonly string[]).includes(value);
}

/**
 * The languages of a stored list ("de,en"): known ones only, each once, in order; English when none
 * is left, so an event always has a first language to fall back to.
 */
export function languageList(stored: string | null | undefined): Language[] {
  const list = [...new Set((stored ?? "").split(",").map((code) => code.trim()))].filter(isLanguage);
  return list.length > 0 ? list : ["en"];
}

/**
 * The language a page is shown in: the one asked for (`?lang=`) when the event offers it, else the
 * best of the visitor's `Accept-Language` among the event's languages, else the event's first.
 * A header is read only up to 500 characters and 20 entries: it is attacker-controlled text.
 */
export function negotiateLanguage(
  offered: readonly Language[],
  acceptLanguage: string | undefined,
  asked?: unknown,
): Language {
  const first = offered[0] ?? "en";
  if (isLanguage(asked) && offered.includes(asked)) return asked;
  if (!acceptLanguage) return first;
  const ranges = acceptLanguage
    .slice(0, 500)
    .split(",")
    .slice(0, 20)
    .map((part, index) => {
      const [range = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return {
        primary: range.trim().toLowerCase().split("-")[0] ?? "",
        q: q === undefined ? 1 : Number(q),
        index,
      };
    })
    .filter((r) => r.q > 0 && Number.isFinite(r.q))
    // Highest quality first; among equals, the visitor's own order.
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const range of ranges) {
    if (range.primary === "*") return first;
    const match = offered.find((language) => language === range.primary);
    if (match) return match;
  }
  return first;
}
