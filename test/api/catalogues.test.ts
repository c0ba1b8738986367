import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IntlMessageFormat } from "intl-messageformat";
import { de } from "../../src/shared/i18n/catalogues/de.js";
import { en } from "../../src/shared/i18n/catalogues/en.js";
import { es } from "../../src/shared/i18n/catalogues/es.js";
import { fr } from "../../src/shared/i18n/catalogues/fr.js";
import { intlLocales, languages, negotiateLanguage } from "../../src/shared/i18n/languages.js";
import { translator } from "../../src/shared/i18n/translator.js";

// Each catalogue as its file exports it (the translator's map is its own).
const catalogues = { en, de, fr, es };

/** The argument names a message fills in ({event}, {count, plural, …}), however deep. */
function argumentsOf(message: string, locale: string): string[] {
  const names = new Set<string>();
  const walk = (elements: unknown[]) => {
    for (const element of elements as {
      type: number;
      value?: unknown;
      options?: Record<string, { value: unknown[] }>;
    }[]) {
      // 0: literal text, 7: the "#" of a plural; every other element names an argument.
      if (element.type !== 0 && element.type !== 7 && typeof element.value === "string")
        names.add(element.value);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(message, locale).getAst());
  return [...names].sort();
}

describe("the message catalogues", () => {
  for (const language of languages.filter((l) => l !== "en")) {
    test(`${language} has exactly the keys English has`, () => {
      const keys = new Set(Object.keys(catalogues[language]));
      const missing = Object.keys(en).filter((key) => !keys.has(key));
      const extra = [...keys].filter((key) => !(key in en));
      assert.deepEqual({ missing, extra }, { missing: [], extra: [] });
    });

    test(`${language} fills in the same placeholders as English in every message`, () => {
      for (const [key, english] of Object.entries(en)) {
        const translated = (catalogues[language] as Record<string, string>)[key] ?? "";
        // A message that does not parse throws here, naming nothing: the key says which.
        assert.deepEqual(
          argumentsOf(translated, intlLocales[language]),
          argumentsOf(english, "en"),
          `${language} ${key}`,
        );
      }
    });
  }

  test("the check fails for a catalogue that misses a key or has an extra one", () => {
    const { "tickets.heading": _dropped, ...short } = catalogues.de;
    const broken: Record<string, string> = { ...short, "tickets.headline": "Tickets" };
    assert.deepEqual(
      Object.keys(en).filter((key) => !(key in broken)),
      ["tickets.heading"],
    );
    assert.deepEqual(
      Object.keys(broken).filter((key) => !(key in en)),
      ["tickets.headline"],
    );
  });

  test("dates, times and prices follow the language", () => {
    const at = "2026-05-04T07:00:00.000Z";
    // Intl puts a no-break space between the amount and the sign.
    assert.equal(translator("de").money(4900, "EUR"), "49,00\u00a0€");
    assert.equal(translator("en").money(4900, "EUR"), "€49.00");
    assert.equal(translator("fr").money(4900, "EUR"), "49,00\u00a0€");
    assert.equal(translator("de").day(at, "Europe/Berlin"), "Montag, 4. Mai 2026");
    assert.equal(translator("es").day(at, "Europe/Madrid"), "lunes, 4 de mayo de 2026");
    assert.equal(translator("fr").time(at, "Europe/Paris"), "09:00");
    assert.equal(translator("de").t("tickets.left", { count: 3 }), "3 frei");
    assert.equal(translator("es").t("tickets.left", { count: 1 }), "queda 1");
  });
});

describe("choosing the page's language", () => {
  const offered = ["en", "de", "fr"] as const;

  test("takes ?lang= when the event offers it, else the header's best offered language", () => {
    assert.equal(negotiateLanguage(offered, "es", "de"), "de");
    assert.equal(negotiateLanguage(offered, "de", "es"), "de", "?lang= of a language not offered is ignored");
    assert.equal(negotiateLanguage(offered, "es-ES,fr;q=0.8,de;q=0.9"), "de");
    assert.equal(negotiateLanguage(offered, "de-AT"), "de");
    assert.equal(negotiateLanguage(offered, "fr;q=0,de;q=0.1"), "de", "q=0 means not this one");
  });

  test("falls back to the event's first language for no header, *, garbage and a huge header", () => {
    assert.equal(negotiateLanguage(["de", "en"], undefined), "de");
    assert.equal(negotiateLanguage(["de", "en"], "*"), "de");
    assert.equal(negotiateLanguage(["de", "en"], ";;;,,q=x,=="), "de");
    assert.equal(negotiateLanguage(["de", "en"], `${"xx,".repeat(100_000)}en`), "de");
    assert.equal(negotiateLanguage(["de", "en"], "es;q=NaN,en;q=0.5"), "en");
  });
});
