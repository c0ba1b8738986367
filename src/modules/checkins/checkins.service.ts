import { z } from "zod";
import type { Db, Tx } from "../../db/database.js";
import { badInput, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { newId } from "../../shared/ids.js";
import type { DomainEvent, ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { idText, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { attendeeVisible } from "../access/policy.js";
import { writeRow } from "../access/row-access.js";
import {
  type Attendee,
  locateAttendee,
  locateAttendeeByTicketCode,
  lockAttendee,
  presentAttendee,
} from "../attendees/attendees.service.js";
import { normalizeTicketCode } from "../attendees/ticket-code.js";
import { type CheckInRow, checkinsRepository as repo } from "./checkins.repository.js";

/** One check-in of an attendee; `undoneAt` is set when it was taken back. */
export interface CheckIn {
  id: string;
  projectId: string;
  attendeeId: string;
  checkedInAt: string;
  /** The organizer who checked the attendee in, if it was one. */
  byUserId: string | null;
  /** The app that checked the attendee in, if it was one. */
  byAppId: string | null;
  undoneAt: string | null;
}

/** What a check-in mutation answers: the attendee and the check-in it made or undid. */
export interface CheckInResult {
  attendee: Attendee;
  /** For `undoCheckIn`: the check-in taken back (or the latest one), null if never checked in. */
  checkIn: CheckIn | null;
}

/** A check-in as it leaves the service. */
function presentCheckIn(row: CheckInRow): CheckIn {
  return {
    id: row.id,
    projectId: row.project_id,
    attendeeId: row.attendee_id,
    checkedInAt: row.checked_in_at,
    byUserId: row.by_user_id,
    byAppId: row.by_app_id,
    undoneAt: row.undone_at,
  };
}

const checkInInput = z.object({ attendeeId: idText });
export type CheckInInput = z.input<typeof checkInInput>;
const byCodeInput = z.object({
  projectId: idText,
  ticketCode: z.string().max(200, "must be at most 200 characters"),
});
export type CheckInByCodeInput = z.input<typeof byCodeInput>;

/** What the door tells the person scanning: each answer is an expected outcome, not an error. */
type DoorOutcome =
  | "CHECKED_IN"
  | "ALREADY_CHECKED_IN"
  | "CANCELLED"
  | "UNPAID"
  | "OTHER_EVENT"
  | "UNKNOWN_CODE";

/** The answer to a scanned or typed ticket code. `attendee` only when the ticket is of this event. */
export interface DoorResult {
  outcome: DoorOutcome;
  attendee: Attendee | null;
  /** The check-in made now or the earlier one (ALREADY_CHECKED_IN); null otherwise. */
  checkIn: CheckIn | null;
}

/** Checked in and expected (registered) attendees of one ticket type, for the door's counter. */
export interface DoorCount {
  ticketTypeId: string;
  expected: number;
  checkedIn: number;
}

// Without checkins:write, only a caller that may read attendees learns that the id exists (FORBIDDEN);
// anyone else gets NOT_FOUND. With checkins:write the id is enough, attendees:read is not needed.

function groupByAttendee(ids: readonly string[], rows: CheckInRow[]): Map<string, CheckIn[]> {
  const map = new Map<string, CheckIn[]>(ids.map((id) => [id, []]));
  for (const row of rows) map.get(row.attendee_id)?.push(presentCheckIn(row));
  return map;
}

/** Undoes an attendee's active check-in when their registration is cancelled (wired by services.ts). */
export function undoCheckInOfCancelled(
  trx: Db,
  projectId: string,
  attendeeId: string,
  at: string,
): Promise<unknown> {
  return repo.undoActive(trx, projectId, attendeeId, at);
}

/**
 * `checkin.created|undone`, about the attendee (a check-in is no node; `Attendee.checkIn` shows it).
 * The attendee's row, locked and read in the same transaction, goes with it for the audit log.
 */
function checkinEvent(
  projectId: string,
  attendee: { id: string } & Record<string, unknown>,
  verb: "created" | "undone",
): DomainEvent {
  return {
    projectId,
    type: `checkin.${verb}`,
    object: { typename: "Attendee", id: attendee.id },
    row: attendee,
  };
}

/** A new active check-in of the attendee, by the actor, now. */
function activeCheckIn(actor: Actor, projectId: string, attendeeId: string): Omit<CheckInRow, "undone_at"> {
  return {
    id: newId(),
    project_id: projectId,
    attendee_id: attendeeId,
    checked_in_at: nowIso(),
    by_user_id: actor.kind === "user" ? actor.userId : null,
    by_app_id: actor.kind === "app" ? actor.appId : null,
  };
}

/**
 * Locks the attendee, then checks them in. The lock orders this check-in after a concurrent
 * cancellation (or before it); the INSERT, run after it, inserts nothing for a cancelled or missing
 * attendee. `made` is the check-in made now, if any.
 */
async function lockAndCheckIn(trx: Tx, actor: Actor, projectId: string, attendeeId: string) {
  const attendee = await lockAttendee(trx, projectId, attendeeId);
  const made = await repo.insertActive(trx, activeCheckIn(actor, projectId, attendeeId));
  return { attendee, made };
}

/** Check-in at the door: idempotent check-in and undo, recorded with who did it. */
export function createCheckinsService(db: Db, access: AccessService, changes: ProjectChanges) {
  const writer = { db, access, changes };
  /** A write about one attendee's check-in, under checkins:write. */
  const writeOnAttendee = async <T>(
    actor: Actor,
    attendeeId: string,
    body: (trx: Tx, projectId: string) => Promise<T>,
  ): Promise<T> =>
    writeRow(
      writer,
      actor,
      await locateAttendee(db, attendeeId),
      "Attendee",
      "checkins:write",
      attendeeVisible,
      body,
    );
  return {
    /** Active check-in per attendee (attendees without one are absent), one statement for any number. */
    async activeByAttendeeIds(attendeeIds: readonly string[]): Promise<Map<string, CheckIn>> {
      if (attendeeIds.length === 0) return new Map();
      const rows = await repo.activeByAttendeeIds(db, attendeeIds);
      return new Map(rows.map((r) => [r.attendee_id, presentCheckIn(r)]));
    },

    /** Every check-in per attendee, oldest first; every asked id is a key. */
    async historyByAttendeeIds(attendeeIds: readonly string[]): Promise<Map<string, CheckIn[]>> {
      if (attendeeIds.length === 0) return new Map();
      return groupByAttendee(attendeeIds, await repo.historyByAttendeeIds(db, attendeeIds));
    },

    /** Checks a registered attendee in; checking in again returns the same active check-in. */
    async checkIn(actor: Actor, input: CheckInInput): Promise<CheckInResult> {
      const data = parseInput(checkInInput, input);
      return writeOnAttendee(actor, data.attendeeId, async (trx, projectId) => {
        const { attendee, made } = await lockAndCheckIn(trx, actor, projectId, data.attendeeId);
        if (!attendee) throw notFound("Attendee");
        if (attendee.status === "CANCELLED") {
          throw badInput([
            {
              field: ["attendeeId"],
              message: "is cancelled and cannot be checked in",
            },
          ]);
        }
        if (attendee.held_until !== null) {
          throw badInput([
            {
              field: ["attendeeId"],
              message: "holds a ticket of an order not paid yet: mark the order paid first",
            },
          ]);
        }
        // Checking in again answers the existing check-in: no new event, and nothing changed.
        if (made) await changes.event(trx, actor, checkinEvent(projectId, attendee, "created"));
        else changes.unchanged(trx);
        const active = made ?? (await repo.findActive(trx, projectId, attendee.id));
        if (!active) throw notFound("Check-in");
        return { attendee: presentAttendee(attendee), checkIn: presentCheckIn(active) };
      });
    },

    /**
     * Checks in the holder of a ticket code at this project's door. A code of another project
     * answers OTHER_EVENT and nothing about that event; a code of no ticket UNKNOWN_CODE (80 random
     * bits: guessing one takes ~10^19 tries, each one an authenticated request). Needs checkins:write.
     */
    async checkInByCode(actor: Actor, input: CheckInByCodeInput): Promise<DoorResult> {
      const data = parseInput(byCodeInput, input);
      await access.requirePermission(actor, data.projectId, "checkins:write");
      const code = normalizeTicketCode(data.ticketCode);
      const found = code ? await locateAttendeeByTicketCode(db, code) : undefined;
      if (!found) return { outcome: "UNKNOWN_CODE", attendee: null, checkIn: null };
      if (found.project_id !== data.projectId)
        return { outcome: "OTHER_EVENT", attendee: null, checkIn: null };
      const projectId = data.projectId;
      return changes.write(
        db,
        actor,
        projectId,
        async (trx): Promise<DoorResult> => {
          const { attendee, made } = await lockAndCheckIn(trx, actor, projectId, found.id);
          // Every answer but CHECKED_IN wrote nothing (the INSERT skips a cancelled attendee).
          if (!made) changes.unchanged(trx);
          if (!attendee) return { outcome: "UNKNOWN_CODE", attendee: null, checkIn: null };
          if (attendee.status === "CANCELLED") {
            return { outcome: "CANCELLED", attendee: presentAttendee(attendee), checkIn: null };
          }
          if (attendee.held_until !== null) {
            return { outcome: "UNPAID", attendee: presentAttendee(attendee), checkIn: null };
          }
          // A scan of someone already in answers the existing check-in and is no new event.
          if (made) await changes.event(trx, actor, checkinEvent(projectId, attendee, "created"));
          const active = made ?? (await repo.findActive(trx, projectId, attendee.id));
          if (!active) throw notFound("Check-in");
          return {
            outcome: made ? "CHECKED_IN" : "ALREADY_CHECKED_IN",
            attendee: presentAttendee(attendee),
            checkIn: presentCheckIn(active),
          };
        },
        areasWrittenUnder("checkins:write"),
      );
    },

    /** Checked in / expected per ticket type (ticket types without registrations are absent). */
    async doorCounts(actor: Actor, projectId: string): Promise<DoorCount[]> {
      await access.requirePermission(actor, projectId, "checkins:write");
      return repo.doorCounts(db, projectId);
    },

    /** Takes back the active check-in (idempotent: without one, answers the latest, or null). */
    async undoCheckIn(actor: Actor, input: CheckInInput): Promise<CheckInResult> {
      const data = parseInput(checkInInput, input);
      return writeOnAttendee(actor, data.attendeeId, async (trx, projectId) => {
        // The lock first, as in lockAndCheckIn.
        const attendee = await lockAttendee(trx, projectId, data.attendeeId);
        const justUndone = await repo.undoActive(trx, projectId, data.attendeeId, nowIso());
        if (!attendee) throw notFound("Attendee");
        if (justUndone) await changes.event(trx, actor, checkinEvent(projectId, attendee, "undone"));
        else changes.unchanged(trx);
        const undone = justUndone ?? (await repo.findLatest(trx, projectId, attendee.id));
        return { attendee: presentAttendee(attendee), checkIn: undone ? presentCheckIn(undone) : null };
      });
    },
  };
}
