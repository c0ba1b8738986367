import type { FastifyRequest } from "fastify";
import { type Language, languageNames, negotiateLanguage } from "../shared/i18n/languages.js";
import { type Translator, translator } from "../shared/i18n/translator.js";

/** The language a public page is shown in, and the event's others for the switcher. */
export interface PageLanguage {
  words: Translator;
  /** The event's languages; the first is its own. */
  languages: readonly Language[];
}

/**
 * The page's language for a request: `?lang=` when the event offers it (the switcher's links, no
 * script needed), else the best of `Accept-Language` among the event's languages, else its first.
 */
export function pageLanguage(
  request: FastifyRequest,
  languages: readonly Language[],
  asked?: unknown,
): PageLanguage {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const language = negotiateLanguage(languages, request.headers["accept-language"], asked ?? query.lang);
  return { words: translator(language), languages };
}

/**
 * `path` with the page's language when the event has more than one, so a visitor who chose one
 * keeps it from page to page; a one-language event's links stay as they are.
 */
export function inLanguage(path: string, lang: PageLanguage): string {
  if (lang.languages.length < 2) return path;
  return `${path}${path.includes("?") ? "&" : "?"}lang=${lang.words.language}`;
}

/** The switcher's entries: each of the event's languages with its own name and this page in it. */
export function languageLinks(path: string, lang: PageLanguage) {
  if (lang.languages.length < 2) return [];
  return lang.languages.map((language) => ({
    language,
    name: languageNames[language],
    href: inLanguage(path, { words: translator(language), languages: lang.languages }),
    current: language === lang.words.language,
  }));
}
