import { z } from "zod";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { objectEvent } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import {
  httpUrl,
  idText,
  notNull,
  optionalMultilineText,
  optionalText,
  parseInput,
  requiredText,
} from "../../shared/validation.js";
import type { ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertPermission, speakerVisible as canSeeSpeaker } from "../access/policy.js";
import { createRow, patchFrom, type RowWriter, resolveRowAccess } from "../access/row-access.js";
import { type DeleteInput, type Found, presentSpeaker, rowId, type Speaker } from "./agenda.model.js";
import { agendaRepository as repo } from "./agenda.repository.js";
import { type SpeakerRow, speakerFieldColumns } from "./agenda-rows.js";
import { type AgendaTable, deleteAgendaRow, updateAgendaRow } from "./agenda-writes.js";

const speakerFields = {
  name: requiredText(200),
  bio: optionalMultilineText(10_000),
  company: optionalText(200),
  jobTitle: optionalText(200),
  photoUrl: httpUrl.nullish(),
  // GraphQL sends null for a list the caller cleared (or left out on create): both mean "none".
  links: z
    .array(z.object({ label: requiredText(100), url: httpUrl }))
    .max(20, "must list at most 20 links")
    .nullish()
    .transform((links) => links ?? []),
};
const createSpeakerInput = z.object({ projectId: idText, ...speakerFields });
const updateSpeakerInput = z
  .object({ id: rowId, ...speakerFields, name: notNull(speakerFields.name) })
  .partial({
    name: true,
    bio: true,
    company: true,
    jobTitle: true,
    photoUrl: true,
    links: true,
  });
const speakerFilter = z.object({ includeUnpublished: z.boolean().nullish() });

/** Input of `createSpeaker`. */
export type CreateSpeakerInput = z.input<typeof createSpeakerInput>;
/** Input of `updateSpeaker`; omitted fields stay, `links` replaces the list. */
export type UpdateSpeakerInput = z.input<typeof updateSpeakerInput>;
/** Which speakers a list shows. */
export type SpeakerFilter = z.input<typeof speakerFilter>;

function speakersPublishedOnly(access: ProjectAccess, filter: SpeakerFilter): boolean {
  const data = parseInput(speakerFilter, filter);
  if (data.includeUnpublished) {
    assertPermission(access, "agenda:read");
    return false;
  }
  return true;
}

/** Speakers: the public see those of a published session; agenda:read sees all, agenda:write changes them. */
export function createSpeakersService(writer: RowWriter) {
  const { db } = writer;
  const speakerVisible = (projectAccess: ProjectAccess, row: SpeakerRow) =>
    canSeeSpeaker(projectAccess, () => repo.speakerIsPublished(db, row.project_id, row.id));
  const speakerTable: AgendaTable<SpeakerRow, Speaker> = {
    what: "Speaker",
    visible: speakerVisible,
    find: repo.findSpeaker,
    locate: repo.locateSpeaker,
    remove: repo.deleteSpeaker,
    present: presentSpeaker,
  };

  return {
    /** Speakers by name; only those of a published session unless includeUnpublished (agenda:read). */
    async listSpeakers(
      projectAccess: ProjectAccess,
      filter: SpeakerFilter,
      window: PageWindow,
    ): Promise<Page<Speaker>> {
      const publishedOnly = speakersPublishedOnly(projectAccess, filter);
      const rows = await repo.listSpeakers(db, projectAccess.projectId, publishedOnly, window);
      return toPage(rows.map(presentSpeaker), window, (s) => [s.name, s.id]);
    },

    /** Total of `listSpeakers` for the same filter. */
    async countSpeakers(projectAccess: ProjectAccess, filter: SpeakerFilter): Promise<number> {
      return repo.countSpeakers(db, projectAccess.projectId, speakersPublishedOnly(projectAccess, filter));
    },

    /** A speaker the actor may see (on a published session, or any with agenda:read). */
    async findSpeaker(actor: Actor, speakerId: string): Promise<Found<Speaker> | undefined> {
      const row = await repo.locateSpeaker(db, speakerId);
      const found = await resolveRowAccess(writer.access, actor, row, speakerVisible);
      return row && found ? { item: presentSpeaker(row), access: found } : undefined;
    },

    /** Creates a speaker; needs agenda:write. */
    async createSpeaker(actor: Actor, input: CreateSpeakerInput): Promise<Speaker> {
      const row = await createRow(
        writer,
        actor,
        input.projectId,
        "agenda:write",
        (): SpeakerRow => {
          const data = parseInput(createSpeakerInput, input);
          const now = nowIso();
          return {
            id: newId(),
            project_id: data.projectId,
            name: data.name,
            bio: data.bio,
            company: data.company,
            job_title: data.jobTitle,
            photo_url: data.photoUrl ?? null,
            links: JSON.stringify(data.links),
            created_at: now,
            updated_at: now,
          };
        },
        async (trx, prepared) => {
          await repo.insertSpeaker(trx, prepared);
          await writer.changes.event(
            trx,
            actor,
            objectEvent(prepared.project_id, "Speaker", prepared.id, "created"),
          );
        },
      );
      return presentSpeaker(row);
    },

    /** Updates a speaker's profile; `links` replaces the list. Needs agenda:write. */
    async updateSpeaker(actor: Actor, input: UpdateSpeakerInput): Promise<Speaker> {
      const data = parseInput(updateSpeakerInput, input);
      return updateAgendaRow(writer, actor, speakerTable, data, async (trx, projectId) => {
        const patch: Partial<SpeakerRow> = {
          ...patchFrom<typeof data, SpeakerRow>(data, speakerFieldColumns),
          updated_at: nowIso(),
        };
        // Links are stored as JSON text.
        if (data.links !== undefined) patch.links = JSON.stringify(data.links);
        await repo.updateSpeaker(trx, projectId, data.id, patch);
      });
    },

    /** Deletes a speaker and removes them from their sessions; needs agenda:write. */
    deleteSpeaker: (actor: Actor, input: DeleteInput): Promise<Speaker> =>
      deleteAgendaRow(writer, actor, speakerTable, input),
  };
}
