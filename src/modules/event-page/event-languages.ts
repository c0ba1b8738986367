import { z } from "zod";
import type { Db } from "../../db/database.js";
import { badInput } from "../../errors.js";
import { type Language, languageList, languages } from "../../shared/i18n/languages.js";
import { translator } from "../../shared/i18n/translator.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { hasControlCharacters, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import type { createTicketsService } from "../tickets/tickets.service.js";
import type { EventContent } from "./event-content.js";
import { eventLanguagesRepository as repo, type TranslationRow } from "./event-languages.repository.js";
import { eventPageRepository } from "./event-page.repository.js";

/** The fields an organizer translates, with their longest text (as long as the originals may be). */
const translatable = { name: 200, description: 10_000 } as const;
type TranslatableField = keyof typeof translatable;

/** The subject of the project's own texts; any other subject is a ticket type's id. */
export const projectSubject = "project";

/** An event's languages and the organizer's translations of its texts, as the dashboard edits them. */
export interface EventLanguages {
  /** The event's languages; the first is the one its own texts are written in. */
  languages: Language[];
  translations: TranslationRow[];
}

const updateInput = z.object({
  languages: z
    .array(z.enum(languages))
    .min(1, "must name at least one language")
    .max(languages.length)
    .refine((list) => new Set(list).size === list.length, "must name each language once"),
  translations: z
    .array(
      z.object({ language: z.enum(languages), subject: z.string(), field: z.string(), text: z.string() }),
    )
    .max(1_000),
});

/** The translations of one language as a lookup: subject → field → text. */
function byField(rows: readonly TranslationRow[]): Map<string, string> {
  return new Map(rows.map((row) => [`${row.subject} ${row.field}`, row.text]));
}

/**
 * The event's content in `language`: the organizer's translation of each text where there is one,
 * its own text (the event's first language) where there is none. `rows` are that language's.
 */
export function localizeContent(content: EventContent, rows: readonly TranslationRow[]): EventContent {
  if (rows.length === 0) return content;
  const text = byField(rows);
  const pick = (subject: string, field: TranslatableField, own: string | null) =>
    text.get(`${subject} ${field}`) ?? own;
  return {
    ...content,
    project: {
      ...content.project,
      name: pick(projectSubject, "name", content.project.name) ?? content.project.name,
      description: pick(projectSubject, "description", content.project.description),
    },
    tickets: content.tickets.map((ticket) => ({
      ...ticket,
      name: pick(ticket.id, "name", ticket.name) ?? ticket.name,
      description: pick(ticket.id, "description", ticket.description),
    })),
  };
}

/** The event's names in `language` for an email: the project's and ticket types' (by id). */
export async function translatedNames(
  db: Db,
  projectId: string,
  language: Language,
): Promise<(subject: string, own: string) => string> {
  const text = byField(await repo.translations(db, projectId, [language]));
  return (subject, own) => text.get(`${subject} name`) ?? own;
}

/**
 * The words of an email to someone who used the page in `wanted`: that language while the event
 * still offers it, else the event's first; with the event's names in that language.
 */
async function mailWording(db: Db, projectId: string, wanted: string | null) {
  const settings = await eventPageRepository.findSettings(db, projectId);
  const offered = languageList(settings?.languages);
  const language = offered.find((l) => l === wanted) ?? offered[0] ?? "en";
  return { words: translator(language), named: await translatedNames(db, projectId, language) };
}

interface LanguageDeps {
  db: Db;
  access: AccessService;
  changes: ProjectChanges;
  tickets: ReturnType<typeof createTicketsService>;
}

/** The event's languages and translations: read by any member, changed with project:write. */
export function eventLanguagesService(deps: LanguageDeps) {
  const { db, access, changes } = deps;
  return {
    /** The languages and translations of a project the actor can see. */
    async read(actor: Actor, projectId: string): Promise<EventLanguages> {
      const found = await access.require(actor, projectId);
      const [settings, translations] = await Promise.all([
        eventPageRepository.findSettings(db, found.projectId),
        repo.translations(db, found.projectId),
      ]);
      return { languages: languageList(settings?.languages), translations };
    },

    /** The event's names in a language, for a page of one registration (the caller checked its link). */
    namesIn: (projectId: string, language: Language) => translatedNames(db, projectId, language),

    /** The words of an email to an attendee or buyer who used the page in `wanted` (null: none known). */
    mailWording: (projectId: string, wanted: string | null) => mailWording(db, projectId, wanted),

    /** The translations of one language, for the public page (the caller opened the page). */
    translationsIn: (projectId: string, language: Language): Promise<TranslationRow[]> =>
      repo.translations(db, projectId, [language]),

    /**
     * Sets the event's languages and replaces its translations. A translation in the first language
     * (the texts themselves) or a language the event does not offer is dropped, a blank one too; a
     * subject must be the project or one of its ticket types.
     */
    async update(
      actor: Actor,
      projectId: string,
      input: z.input<typeof updateInput>,
    ): Promise<EventLanguages> {
      const found = await access.requirePermission(actor, projectId, "project:write");
      const data = parseInput(updateInput, input);
      const others = new Set<string>(data.languages.slice(1));
      const kept = data.translations
        .map((row) => ({ ...row, text: row.text.trim() }))
        .filter((row) => others.has(row.language) && row.text !== "");
      const subjects = [...new Set(kept.map((row) => row.subject).filter((s) => s !== projectSubject))];
      const ticketTypes = await deps.tickets.ticketTypesByIds(subjects);
      const problems: { field: string[]; message: string }[] = [];
      for (const row of kept) {
        const path = ["translations", row.language, row.subject, row.field];
        const max = translatable[row.field as TranslatableField];
        const subjectKnown =
          row.subject === projectSubject || ticketTypes.get(row.subject)?.projectId === found.projectId;
        if (!max || !subjectKnown) problems.push({ field: path, message: "is not a text of this event" });
        else if ([...row.text].length > max)
          problems.push({ field: path, message: `must be at most ${max} characters` });
        else if (hasControlCharacters(row.text, row.field === "description"))
          problems.push({ field: path, message: "must not contain control characters" });
      }
      if (problems.length > 0) throw badInput(problems);
      await changes.write(db, actor, found.projectId, async (trx) => {
        await repo.saveLanguages(trx, found.projectId, data.languages.join(","), nowIso());
        await repo.replaceTranslations(trx, found.projectId, kept);
      });
      return { languages: data.languages, translations: kept };
    },
  };
}
