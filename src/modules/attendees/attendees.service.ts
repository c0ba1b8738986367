import type { z } from "zod";
import { isUniqueViolation } from "../../db/constraint-errors.js";
import type { Db, Tx } from "../../db/database.js";
import type { Columns } from "../../db/projection.js";
import type { AttendeeStatus } from "../../db/schema.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { allAreas, areasWrittenUnder } from "../../shared/data-areas.js";
import type { OnAttendeeErased } from "../../shared/erasure.js";
import { isLanguage, type Language } from "../../shared/i18n/languages.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { objectEvent, type ProjectChanges, updateEvent } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { parseInput } from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { attendeeVisible } from "../access/policy.js";
import { requireRowPermission, resolveRowsAccess, writeRow } from "../access/row-access.js";
import { answerRegistration } from "../questions/registration-answers.js";
import type { SeatClaim } from "../tickets/seats-left.js";
import {
  type AttendeeFilter,
  attendeeQueryFor,
  cancelInput,
  type RegisterAttendeeInput,
  registrationRow,
  type UpdateAttendeeInput,
  updateInput,
} from "./attendee-input.js";
import { type AttendeeRow, type AttendeeSort, attendeesRepository as repo } from "./attendees.repository.js";
import { claimSeat, claimSeatOnMove } from "./attendees-seats.js";
import { cancelActiveRegistration, type OnAttendeeCancelled } from "./cancellation.js";
import { eraseAttendeeIn } from "./erasure.js";

/** A registration: personal data, never public. */
export interface Attendee {
  id: string;
  projectId: string;
  ticketTypeId: string;
  name: string;
  email: string;
  company: string | null;
  status: AttendeeStatus;
  registeredAt: string;
  cancelledAt: string | null;
  updatedAt: string;
  /** Unguessable code on the ticket, scanned at the door. */
  ticketCode: string;
  /** The order that bought the ticket; null for a registration made without one. */
  orderId: string | null;
  /** The language the attendee registered in on the event page; null: the event's first language. */
  language: Language | null;
}

/** An attendee as it leaves the service. */
export function presentAttendee(row: AttendeeRow): Attendee {
  return {
    id: row.id,
    projectId: row.project_id,
    ticketTypeId: row.ticket_type_id,
    name: row.name,
    email: row.email,
    company: row.company,
    status: row.status,
    registeredAt: row.registered_at,
    cancelledAt: row.cancelled_at,
    updatedAt: row.updated_at,
    ticketCode: row.ticket_code,
    orderId: row.order_id,
    language: isLanguage(row.language) ? row.language : null,
  };
}

/** The sort key of an attendee in a list read in `sort` order (its keyset cursor). */
function sortKey(attendee: Attendee, sort: AttendeeSort): [string, string] {
  return [sort === "name" ? attendee.name : attendee.registeredAt, attendee.id];
}

function emailTaken(): AppError {
  return new AppError(ErrorCode.CONFLICT, "This email already has a registration for this event", {
    fieldErrors: [{ field: ["email"], message: "is already registered for this event" }],
  });
}

/** An attendee's id and project, wherever it is, for the access check before another module's write. */
export function locateAttendee(db: Db, id: string): Promise<{ id: string; project_id: string } | undefined> {
  return repo.projectOf(db, id);
}

/** An attendee by ticket code in whichever project holds it; the door checks the project itself. */
export function locateAttendeeByTicketCode(db: Db, ticketCode: string): Promise<AttendeeRow | undefined> {
  return repo.locateByTicketCode(db, ticketCode);
}

/** Reads an attendee and write-locks its row until the transaction ends (orders check-ins and cancellations). */
export function lockAttendee(trx: Db, projectId: string, id: string): Promise<AttendeeRow | undefined> {
  return repo.lock(trx, projectId, id);
}

/**
 * Registrations: register, update and cancel attendees; every read needs attendees:read.
 * `onCancelled` runs inside each cancellation's transaction.
 */
export function createAttendeesService(
  db: Db,
  access: AccessService,
  changes: ProjectChanges,
  onCancelled: OnAttendeeCancelled,
  onErased: OnAttendeeErased,
) {
  const writer = { db, access, changes };

  async function registerIn(
    trx: Tx,
    actor: Actor,
    input: RegisterAttendeeInput,
    claim: SeatClaim = "open",
  ): Promise<Attendee> {
    const row = registrationRow(input);
    // Seat locks in one order (docs/runtime.md "Seat locks"): the project's version row, then the ticket type.
    await changes.recordAreas(trx, row.project_id, areasWrittenUnder("attendees:write"));
    await claimSeat(trx, actor, row.project_id, row.ticket_type_id, claim);
    if (!(await repo.insertRegistered(trx, row))) throw emailTaken();
    await answerRegistration(trx, presentAttendee(row), input.answers);
    await changes.event(trx, actor, objectEvent(row.project_id, "Attendee", row.id, "registered"));
    return presentAttendee(row);
  }

  // Idempotent: a cancelled registration is returned as it is.
  async function cancelIn(trx: Tx, actor: Actor, projectId: string, id: string): Promise<Attendee> {
    const row = await repo.lock(trx, projectId, id);
    if (!row) throw notFound("Attendee");
    if (row.status === "CANCELLED") {
      // Cancelling again (a manage link followed twice) writes nothing: cached answers stay.
      changes.unchanged(trx);
      return presentAttendee(row);
    }
    return presentAttendee(
      await cancelActiveRegistration(trx, { changes, onCancelled }, actor, row, nowIso()),
    );
  }

  /** The project of an attendee the actor may change (attendees:write); otherwise it is not found. */
  async function writableProjectOf(actor: Actor, attendeeId: string): Promise<ProjectAccess> {
    const row = await repo.locate(db, attendeeId);
    return requireRowPermission(access, actor, row, "Attendee", "attendees:write", attendeeVisible);
  }

  return {
    /**
     * Attendees by registration time (or name), filtered by text, status, ticket type and check-in.
     * With `columns`, only those fields are filled (see Columns).
     */
    async listAttendees(
      projectAccess: ProjectAccess,
      filter: AttendeeFilter,
      window: PageWindow,
      sort: AttendeeSort = "registered",
      columns?: Columns,
    ): Promise<Page<Attendee>> {
      const query = attendeeQueryFor(projectAccess, filter);
      const rows = await repo.list(db, projectAccess.projectId, query, window, sort, columns);
      return toPage(rows.map(presentAttendee), window, (a) => sortKey(a, sort));
    },

    /** How many attendees of the same list come before `attendee` (the "21" of "21–40 of 312"). */
    async countBefore(
      projectAccess: ProjectAccess,
      filter: AttendeeFilter,
      sort: AttendeeSort,
      attendee: Attendee,
    ): Promise<number> {
      const query = attendeeQueryFor(projectAccess, filter);
      return repo.countBefore(db, projectAccess.projectId, query, sort, sortKey(attendee, sort));
    },

    /** Total of `listAttendees` for the same filter. */
    async countAttendees(projectAccess: ProjectAccess, filter: AttendeeFilter): Promise<number> {
      return repo.count(db, projectAccess.projectId, attendeeQueryFor(projectAccess, filter));
    },

    /** An attendee, when the actor holds attendees:read in its project. */
    async findAttendee(
      actor: Actor,
      attendeeId: string,
    ): Promise<{ item: Attendee; access: ProjectAccess } | undefined> {
      return (await this.findAttendees(actor, [attendeeId]))[0];
    },

    /** Attendees by id as `findAttendee` finds each, in the order of `ids`, read in one statement. */
    async findAttendees(actor: Actor, ids: readonly string[]) {
      const rows = new Map((await repo.locateMany(db, ids)).map((row) => [row.id, row]));
      const found = await resolveRowsAccess(access, actor, [...rows.values()], attendeeVisible);
      return ids.map((id) => {
        const row = rows.get(id);
        const rowAccess = row && found.get(row);
        return row && rowAccess ? { item: presentAttendee(row), access: rowAccess } : undefined;
      });
    },

    /** Registers an attendee on a ticket type that is not sold out; one active registration per email. */
    async registerAttendee(actor: Actor, input: RegisterAttendeeInput): Promise<Attendee> {
      await access.requirePermission(actor, input.projectId, "attendees:write");
      return changes.write(
        db,
        actor,
        input.projectId,
        (trx) => registerIn(trx, actor, input),
        areasWrittenUnder("attendees:write"),
      );
    },

    /**
     * Registers inside the caller's transaction (which records the project's change), with exactly
     * the rules of `registerAttendee` (capacity, sales window, one registration per email) but no
     * permission check: for the public event page, whose service decides who may register there,
     * and for a waiting-list offer taken in the write that ends it (`offered`, see SeatClaim).
     */
    registerWithin(
      trx: Tx,
      actor: Actor,
      input: RegisterAttendeeInput,
      claim: SeatClaim = "open",
    ): Promise<Attendee> {
      return registerIn(trx, actor, input, claim);
    },

    /** The active registration of an email in a project, inside the caller's transaction. */
    async registeredByEmail(trx: Db, projectId: string, address: string): Promise<Attendee | undefined> {
      const row = await repo.findRegisteredByEmail(trx, projectId, address.trim().toLowerCase());
      return row ? presentAttendee(row) : undefined;
    },

    /**
     * An attendee by id within a project, for a caller that proved it holds the registration (the
     * secret of its manage link): no actor, since the link is the only credential.
     */
    async registrationOf(
      projectId: string,
      attendeeId: string,
      within: Db = db,
    ): Promise<Attendee | undefined> {
      const row = await repo.findById(within, projectId, attendeeId);
      return row ? presentAttendee(row) : undefined;
    },

    /** Cancels a registration whose holder proved it (see `registrationOf`); same effects as `cancelAttendee`. */
    cancelRegistration(actor: Actor, projectId: string, attendeeId: string): Promise<Attendee> {
      return changes.write(
        db,
        actor,
        projectId,
        (trx) => cancelIn(trx, actor, projectId, attendeeId),
        areasWrittenUnder("attendees:write"),
      );
    },

    /** Updates name, email, company or ticket type (a new ticket type must have a seat left). */
    async updateAttendee(actor: Actor, input: UpdateAttendeeInput): Promise<Attendee> {
      const data = parseInput(updateInput, input);
      const { projectId } = await writableProjectOf(actor, data.id);
      let attendee: Attendee;
      try {
        attendee = await changes.write(
          db,
          actor,
          projectId,
          async (trx) => {
            // A move takes a seat: locks in one order (docs/runtime.md "Seat locks"), the version row first.
            if (data.ticketTypeId !== undefined)
              await changes.recordAreas(trx, projectId, areasWrittenUnder("attendees:write"));
            const row = await repo.lock(trx, projectId, data.id);
            if (!row) throw notFound("Attendee");
            const patch: Partial<AttendeeRow> = { updated_at: nowIso() };
            if (data.name !== undefined) patch.name = data.name;
            if (data.company !== undefined) patch.company = data.company;
            if (data.email !== undefined) {
              patch.email = data.email;
              patch.email_normalized = data.email.toLowerCase();
              const holder =
                row.status === "REGISTERED"
                  ? await repo.findRegisteredByEmail(trx, projectId, patch.email_normalized)
                  : undefined;
              if (holder && holder.id !== row.id) throw emailTaken();
            }
            if (data.ticketTypeId !== undefined && data.ticketTypeId !== row.ticket_type_id) {
              await claimSeatOnMove(trx, actor, projectId, data.ticketTypeId, row.status === "REGISTERED");
              patch.ticket_type_id = data.ticketTypeId;
            }
            await repo.update(trx, projectId, data.id, patch);
            const updated = await repo.findById(trx, projectId, data.id);
            if (!updated) throw notFound("Attendee");
            await changes.event(
              trx,
              actor,
              updateEvent(projectId, "Attendee", data.id, data, { before: row, after: updated }),
            );
            return presentAttendee(updated);
          },
          areasWrittenUnder("attendees:write"),
        );
      } catch (error) {
        // Another transaction took the email between our check and our write.
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
      return attendee;
    },

    /**
     * Erases a person's registration and what every module stored of them (erasure.ts); idempotent.
     * Every area is moved: the audit log and the orders they bought change too.
     */
    async eraseAttendee(actor: Actor, input: z.input<typeof cancelInput>): Promise<Attendee> {
      const data = parseInput(cancelInput, input);
      const { projectId } = await writableProjectOf(actor, data.id);
      const erase = async (trx: Tx) => {
        const row = await repo.lock(trx, projectId, data.id);
        if (!row) throw notFound("Attendee");
        return presentAttendee(await eraseAttendeeIn(trx, { changes, onErased }, actor, row));
      };
      return changes.write(db, actor, projectId, erase, allAreas);
    },

    /** Cancels a registration (idempotent): the row stays, its seat is freed, its check-in undone. */
    async cancelAttendee(actor: Actor, input: z.input<typeof cancelInput>): Promise<Attendee> {
      const data = parseInput(cancelInput, input);
      return writeRow(
        writer,
        actor,
        await repo.locate(db, data.id),
        "Attendee",
        "attendees:write",
        attendeeVisible,
        (trx, projectId) => cancelIn(trx, actor, projectId, data.id),
      );
    },
  };
}
