import { z } from "zod";
import type { Db, Tx } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { attendeeText, type ErasedPerson, withoutPerson } from "../../shared/erasure.js";
import { newId } from "../../shared/ids.js";
import {
  type Page,
  type PageArgs,
  type PageWindow,
  resolvePageArgs,
  toPage,
} from "../../shared/pagination.js";
import type { DomainEvent } from "../../shared/project-changes.js";
import { spreadsheetSafe } from "../../shared/spreadsheet-safe.js";
import { nowIso } from "../../shared/time.js";
import { dateTime, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import { type Actor, originOf } from "../access/actor.js";
import { userLookup } from "../accounts/users.service.js";
import { appLookup } from "../apps/app-lookup.js";
import { type AuditFilter, type AuditRow, auditRepository } from "./audit.repository.js";
import { type FieldChange, recordedChanges } from "./audit.snapshot.js";
import { type AuditEntry, auditVisibility, visibleEntry } from "./audit.visibility.js";

const asText = (value: unknown): string | null =>
  value === undefined || value === null ? null : typeof value === "string" ? value : JSON.stringify(value);

/** The stored changes: a list of FieldChange, or (entries written before it) an object of new values. */
function storedChanges(json: string | null): FieldChange[] {
  if (!json) return [];
  const parsed = JSON.parse(json) as FieldChange[] | Record<string, unknown>;
  if (Array.isArray(parsed)) return parsed;
  return Object.entries(parsed).map(([field, after]) => ({ field, after }));
}

function presentEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    actor: { kind: row.actor_kind, id: row.actor_id, label: row.actor_label, linkId: row.link_id },
    via: row.via,
    ip: row.ip,
    action: row.action,
    object: { type: row.object_type, id: row.object_id },
    changes: storedChanges(row.changes).map((c) => ({
      field: c.field,
      value: asText(c.after),
      ...(Object.hasOwn(c, "before") ? { before: asText(c.before) } : {}),
      ...(c.currency ? { currency: c.currency } : {}),
    })),
  };
}

const filterInput = z.object({
  actor: z
    .string()
    .trim()
    .regex(/^(system|public|(user|app):[A-Za-z0-9-]{1,64})$/, "must be user:<id>, app:<id>, public or system")
    .optional(),
  action: z
    .string()
    .trim()
    .regex(
      /^[a-z_]+(\.[a-z_]+)*\.?$/,
      "must be an action name such as session.updated, or a prefix such as session.",
    )
    .max(80)
    .optional(),
  from: dateTime.optional(),
  to: dateTime.optional(),
});

/** The filter as a person or app typed it (empty strings count as unset). */
export type AuditFilterInput = z.input<typeof filterInput>;

/** Most rows one CSV export carries: a year of a busy event, still a bounded amount of work. */
const maxExportRows = 50_000;
const exportBatch = 1_000;
const pruneBatch = 1_000;
const maxValueLength = 500;

// Long texts (a session description) are cut: the log says that a field changed and how it starts.
function bounded(value: unknown): unknown {
  if (typeof value === "string" && value.length > maxValueLength) return `${value.slice(0, maxValueLength)}…`;
  return value;
}

/** The audit log: records every audited action in its write's transaction, lists, exports and prunes. */
export function createAuditService(db: Db, access: AccessService, logger: Logger) {
  async function describeActor(trx: Tx, actor: Actor | undefined, projectId: string) {
    // No actor: the server's own work (no person or app asked for it).
    if (!actor) return { kind: "system" as const, id: null, label: "Eventgraph (server)", linkId: null };
    if (actor.kind === "system")
      return { kind: "system" as const, id: null, label: "Operator (CLI)", linkId: null };
    if (actor.kind === "user") {
      const user = await userLookup.byId(trx, actor.userId);
      return { kind: "user" as const, id: actor.userId, label: user?.email ?? actor.userId, linkId: null };
    }
    if (actor.kind === "app") {
      const label = actor.appName ?? (await appLookup.name(trx, actor.appId)) ?? actor.appId;
      const linkId =
        actor.homeProjectId === projectId
          ? null
          : ((await appLookup.activeLinkId(trx, actor.appId, projectId)) ?? null);
      return { kind: "app" as const, id: actor.appId, label, linkId };
    }
    return { kind: "public" as const, id: null, label: "Public (event page)", linkId: null };
  }

  async function entryRow(trx: Tx, actor: object | undefined, event: DomainEvent) {
    const who = await describeActor(trx, actor as Actor | undefined, event.projectId);
    // The public actor is one shared object (no origin of its own): an attendee on the event page.
    const origin =
      actor && who.kind !== "public" ? originOf(actor) : { via: "server" as const, ip: undefined };
    const recorded = await recordedChanges(trx, event);
    const changes =
      recorded && recorded.length > 0
        ? JSON.stringify(
            recorded.map((c) =>
              Object.hasOwn(c, "before")
                ? { ...c, before: bounded(c.before), after: bounded(c.after) }
                : { ...c, after: bounded(c.after) },
            ),
          )
        : null;
    return {
      id: newId(),
      project_id: event.projectId as string | null,
      occurred_at: nowIso(),
      actor_kind: who.kind,
      actor_id: who.id,
      actor_label: who.label,
      link_id: who.linkId,
      via: origin.via,
      ip: origin.ip ?? null,
      action: event.type,
      object_type: event.object.typename,
      object_id: event.object.id,
      changes,
    };
  }

  /**
   * Replaces a deleted project's log by its tombstone: the log's values may hold attendees'
   * personal data, which must go with the project, while who deleted it, when and from where stays
   * for the retention period, without a project id that a new project drawing the same id inherits.
   */
  async function replaceByTombstone(trx: Tx, actor: object | undefined, event: DomainEvent) {
    await auditRepository.deleteForProject(trx, event.projectId);
    await auditRepository.insert(trx, { ...(await entryRow(trx, actor, event)), project_id: null });
  }

  // One rule for people and apps: `audit:read` (OWNER and ADMIN hold it, policy.ts; apps when granted);
  // what of each entry the reader sees depends on their other permissions (audit.visibility.ts).
  async function readable(actor: Actor, projectId: string) {
    return auditVisibility(await access.requirePermission(actor, projectId, "audit:read"));
  }

  function parseFilter(input: AuditFilterInput): AuditFilter {
    const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== "" && v != null));
    return parseInput(filterInput, clean);
  }

  return {
    /**
     * Writes the entry of `event` inside the write's transaction `trx`, so a rolled-back write leaves
     * no entry and a committed one always has its entry. Registered as a recorder on ProjectChanges.
     */
    async record(trx: Tx, actor: object | undefined, event: DomainEvent): Promise<void> {
      if (event.type === "project.deleted") return replaceByTombstone(trx, actor, event);
      await auditRepository.insert(trx, await entryRow(trx, actor, event));
    },

    /** A page of the project's log, newest first (`audit:read`), from connection arguments. */
    list(actor: Actor, projectId: string, filterInput: AuditFilterInput, args: PageArgs) {
      return this.listPage(actor, projectId, filterInput, resolvePageArgs(args));
    },

    /** A page of the project's log for a checked window (`toConnection` resolves the arguments). */
    async listPage(
      actor: Actor,
      projectId: string,
      filterInput: AuditFilterInput,
      window: PageWindow,
    ): Promise<Page<AuditEntry> & { totalCount: () => Promise<number> }> {
      const visibility = await readable(actor, projectId);
      const filter = parseFilter(filterInput);
      const rows = await auditRepository.list(db, projectId, filter, window);
      const page = toPage(rows, window, (row) => [row.occurred_at, row.id]);
      return {
        ...page,
        items: page.items.map((row) => visibleEntry(presentEntry(row), visibility)),
        totalCount: () => auditRepository.count(db, projectId, filter),
      };
    },

    /**
     * The newest entries (at most 100) about some objects of a project, e.g. an order with its tickets
     * and invoices (`audit:read`; the values as the reader may see them).
     */
    async historyOf(actor: Actor, projectId: string, objectIds: readonly string[]): Promise<AuditEntry[]> {
      const visibility = await readable(actor, projectId);
      const rows = await auditRepository.ofObjects(db, projectId, objectIds.slice(0, 100), 100);
      return rows.map((row) => visibleEntry(presentEntry(row), visibility));
    },

    /** Who appears in the project's recent log, for the actor filter (`audit:read`). */
    async actors(actor: Actor, projectId: string): Promise<{ value: string; label: string }[]> {
      const visibility = await readable(actor, projectId);
      const rows = await auditRepository.actors(db, projectId, 5_000);
      return rows.map((r) => ({
        value: r.actor_id === null ? r.actor_kind : `${r.actor_kind}:${r.actor_id}`,
        label:
          r.actor_kind === "app"
            ? `${r.actor_label ?? ""} (app)`
            : r.actor_kind === "user" && !visibility.organizerData
              ? `Organizer ${r.actor_id ?? ""}`
              : (r.actor_label ?? ""),
      }));
    },

    /**
     * The filtered log as CSV rows (header first), newest first, in batches so a long export neither
     * holds the event loop nor a database snapshot; stops after `maxExportRows`.
     */
    async *exportCsvRows(actor: Actor, projectId: string, filterInput: AuditFilterInput) {
      const visibility = await readable(actor, projectId);
      const filter = parseFilter(filterInput);
      yield [
        "time",
        "actor_kind",
        "actor",
        "actor_id",
        "link_id",
        "via",
        "ip",
        "action",
        "object_type",
        "object_id",
        "changes",
      ];
      let after: [string, string] | undefined;
      for (let sent = 0; sent < maxExportRows; ) {
        const window = { limit: exportBatch, after, before: undefined, backward: false };
        const rows = (await auditRepository.list(db, projectId, filter, window)).slice(0, exportBatch);
        for (const row of rows) {
          const e = visibleEntry(presentEntry(row), visibility);
          yield csvRow([
            e.occurredAt,
            e.actor.kind,
            e.actor.label,
            e.actor.id ?? "",
            e.actor.linkId ?? "",
            e.via,
            e.ip ?? "",
            e.action,
            e.object.type,
            e.object.id,
            e.changes
              .map(
                (c) => `${c.field}=${c.before === undefined ? "" : `${c.before ?? ""} → `}${c.value ?? ""}`,
              )
              .join("; "),
          ]);
        }
        sent += rows.length;
        const last = rows.at(-1);
        if (!last || rows.length < exportBatch) return;
        after = [last.occurred_at, last.id];
      }
    },

    /** Deletes the entries older than the retention period, in small batches; returns how many. */
    async prune(retentionDays: number, now = new Date()): Promise<number> {
      const before = new Date(now.getTime() - retentionDays * 86_400_000).toISOString();
      let total = 0;
      for (;;) {
        const deleted = await auditRepository.pruneBatch(db, before, pruneBatch);
        total += deleted;
        if (deleted < pruneBatch) break;
      }
      if (total > 0) logger.info({ deleted: total, before }, "audit log pruned");
      return total;
    },
  };
}

function csvRow(cells: string[]): string[] {
  return cells.map(spreadsheetSafe);
}

/** How often every server process prunes the log past its retention (app.ts). */
export const auditPruneEveryMs = 60 * 60 * 1000;

/**
 * Takes an erased attendee out of the project's audit log: each entry stays (who did what, when),
 * its recorded values lose the person's name, address and (in entries about them) company.
 */
export async function eraseFromAuditLog(trx: Tx, person: ErasedPerson): Promise<void> {
  for (const entry of await auditRepository.mentioning(trx, person)) {
    if (entry.changes === null) continue;
    const changes = withoutPerson(entry.changes, attendeeText(person), entry.object_id === person.attendeeId);
    if (changes !== entry.changes) await auditRepository.replaceChanges(trx, entry.id, changes);
  }
}
