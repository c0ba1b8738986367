import { z } from "zod";
import { isUniqueViolation } from "../../db/constraint-errors.js";
import type { Db } from "../../db/database.js";
import type { AttendeeStatus } from "../../db/schema.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import {
  email,
  idText,
  notNull,
  optionalText,
  parseInput,
  requiredText,
  searchText,
} from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertPermission, attendeeVisible } from "../access/policy.js";
import { requireRowPermission, resolveRowAccess, writeRow } from "../access/row-access.js";
import { ticketsRepository } from "../tickets/tickets.repository.js";
import { isOnSale } from "../tickets/tickets.service.js";
import { type AttendeeQuery, type AttendeeRow, attendeesRepository as repo } from "./attendees.repository.js";
import { generateTicketCode } from "./ticket-code.js";

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
  };
}

const id = idText;
const registerInput = z.object({
  projectId: idText,
  name: requiredText(200),
  email,
  ticketTypeId: id,
  company: optionalText(200),
});
const updateInput = z.object({
  id,
  name: notNull(requiredText(200)).optional(),
  email: notNull(email).optional(),
  company: optionalText(200).optional(),
  ticketTypeId: notNull(id).optional(),
});
const cancelInput = z.object({ id });
const listFilter = z.object({
  // From GraphQL arguments, where an omitted filter may be null.
  // The search index works on trigrams: a shorter term would need a scan of every attendee.
  search: searchText(200)
    .refine((text) => text.length === 0 || [...text].length >= 3, "must be at least 3 characters")
    .nullish(),
  status: z.enum(["REGISTERED", "CANCELLED"]).nullish(),
  ticketTypeId: idText.nullish(),
});

export type RegisterAttendeeInput = z.input<typeof registerInput>;
export type UpdateAttendeeInput = z.input<typeof updateInput>;
export type AttendeeFilter = z.input<typeof listFilter>;

function attendeeQueryFor(access: ProjectAccess, filter: AttendeeFilter): AttendeeQuery {
  assertPermission(access, "attendees:read");
  const data = parseInput(listFilter, filter);
  return {
    search: data.search ? data.search.toLowerCase() : undefined,
    status: data.status ?? undefined,
    ticketTypeId: data.ticketTypeId ?? undefined,
  };
}

function emailTaken(): AppError {
  return new AppError(ErrorCode.CONFLICT, "This email already has a registration for this event", {
    fieldErrors: [{ field: ["email"], message: "is already registered for this event" }],
  });
}

/**
 * Takes a seat of a ticket type for one registration, inside the caller's transaction: the ticket
 * type is locked first, so concurrent registrations count and insert one after the other.
 */
async function claimSeat(trx: Db, actor: Actor, projectId: string, ticketTypeId: string): Promise<void> {
  const ticketType = await ticketsRepository.lockForSale(trx, projectId, ticketTypeId);
  if (!ticketType) {
    throw badInput([{ field: ["ticketTypeId"], message: "ticket type not found in this project" }]);
  }
  // Apps sell through the sales window like the public page does; organizers in the dashboard may
  // register someone outside it (a speaker's guest, a door sale after online sales closed).
  if (actor.kind !== "user" && !isOnSale(ticketType)) {
    throw new AppError(ErrorCode.CONFLICT, `The ticket type "${ticketType.name}" is not on sale now`, {
      fieldErrors: [{ field: ["ticketTypeId"], message: "is not on sale now (outside its sales window)" }],
    });
  }
  const sold = await ticketsRepository.soldCount(trx, projectId, ticketTypeId);
  if (sold >= Number(ticketType.quantity)) {
    throw new AppError(ErrorCode.CONFLICT, `The ticket type "${ticketType.name}" is sold out`, {
      fieldErrors: [{ field: ["ticketTypeId"], message: "is sold out" }],
    });
  }
}

/**
 * What else happens, in the same transaction, when a registration is cancelled (the check-ins
 * module undoes the active check-in). services.ts passes it in, so this module knows nothing of
 * the modules built on attendees and the dependency runs one way.
 */
export type OnAttendeeCancelled = (
  trx: Db,
  projectId: string,
  attendeeId: string,
  at: string,
) => Promise<unknown>;

/** An attendee by id in whichever project holds it, for the access check before another module's write. */
export function locateAttendee(db: Db, id: string): Promise<AttendeeRow | undefined> {
  return repo.locate(db, id);
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
) {
  const writer = { db, access, changes };
  return {
    /** Attendees by registration time, filtered by name/email text, status and ticket type. */
    async listAttendees(
      projectAccess: ProjectAccess,
      filter: AttendeeFilter,
      window: PageWindow,
    ): Promise<Page<Attendee>> {
      const query = attendeeQueryFor(projectAccess, filter);
      const rows = await repo.list(db, projectAccess.projectId, query, window);
      return toPage(rows.map(presentAttendee), window, (a) => [a.registeredAt, a.id]);
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
      const row = await repo.locate(db, attendeeId);
      const found = await resolveRowAccess(access, actor, row, attendeeVisible);
      return row && found ? { item: presentAttendee(row), access: found } : undefined;
    },

    /** Registers an attendee on a ticket type that is not sold out; one active registration per email. */
    async registerAttendee(actor: Actor, input: RegisterAttendeeInput): Promise<Attendee> {
      await access.requirePermission(actor, input.projectId, "attendees:write");
      const data = parseInput(registerInput, input);
      const now = nowIso();
      const row: AttendeeRow = {
        id: newId(),
        project_id: data.projectId,
        ticket_type_id: data.ticketTypeId,
        name: data.name,
        email: data.email,
        email_normalized: data.email.toLowerCase(),
        company: data.company,
        status: "REGISTERED",
        registered_at: now,
        cancelled_at: null,
        updated_at: now,
        ticket_code: generateTicketCode(),
      };
      await changes.write(db, actor, row.project_id, async (trx) => {
        await claimSeat(trx, actor, row.project_id, row.ticket_type_id);
        if (!(await repo.insertRegistered(trx, row))) throw emailTaken();
      });
      return presentAttendee(row);
    },

    /** Updates name, email, company or ticket type (a new ticket type must have a seat left). */
    async updateAttendee(actor: Actor, input: UpdateAttendeeInput): Promise<Attendee> {
      const data = parseInput(updateInput, input);
      const current = await repo.locate(db, data.id);
      const { projectId } = await requireRowPermission(
        access,
        actor,
        current,
        "Attendee",
        "attendees:write",
        attendeeVisible,
      );
      let attendee: Attendee;
      try {
        attendee = await changes.write(db, actor, projectId, async (trx) => {
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
            if (row.status === "REGISTERED") {
              await claimSeat(trx, actor, projectId, data.ticketTypeId);
            } else if (!(await ticketsRepository.findById(trx, projectId, data.ticketTypeId))) {
              throw badInput([{ field: ["ticketTypeId"], message: "ticket type not found in this project" }]);
            }
            patch.ticket_type_id = data.ticketTypeId;
          }
          await repo.update(trx, projectId, data.id, patch);
          const updated = await repo.findById(trx, projectId, data.id);
          if (!updated) throw notFound("Attendee");
          return presentAttendee(updated);
        });
      } catch (error) {
        // Another transaction took the email between our check and our write.
        if (isUniqueViolation(error)) throw emailTaken();
        throw error;
      }
      return attendee;
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
        async (trx, projectId) => {
          const row = await repo.lock(trx, projectId, data.id);
          if (!row) throw notFound("Attendee");
          if (row.status === "CANCELLED") return presentAttendee(row);
          const now = nowIso();
          await repo.update(trx, projectId, data.id, {
            status: "CANCELLED",
            cancelled_at: now,
            updated_at: now,
          });
          await onCancelled(trx, projectId, data.id, now);
          return presentAttendee({ ...row, status: "CANCELLED", cancelled_at: now, updated_at: now });
        },
      );
    },
  };
}
