import type { Readable } from "node:stream";
import { z } from "zod";
import type { Tx } from "../../db/database.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { addressKey } from "../../shared/client-address.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { type ErasedPerson, erasedEmail, erasedName } from "../../shared/erasure.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { nowIso } from "../../shared/time.js";
import { email, idText, parseInput, requiredText } from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import { type Actor, publicActor } from "../access/actor.js";
import { assertPermission } from "../access/policy.js";
import type { Throttle, ThrottleRule } from "../accounts/throttle.js";
import { seatsLeft } from "../tickets/seats-left.js";
import type { createTicketsService } from "../tickets/tickets.service.js";
import { defaultOfferHours, lockLine, type OfferDeps, waitingListOffers } from "./offers.js";
import { type ExportedEntry, presentEntry, type WaitingListEntry } from "./waiting-list.model.js";
import { waitingListRepository as repo, type WaitingListEntryRow } from "./waiting-list.repository.js";
import { exportEntries, waitingListCsv } from "./waiting-list-export.js";

/** Joins per client address per hour: generous for a shared network, a wall for a script. */
const joinIpRule: ThrottleRule = { name: "waiting-list-join-ip", limit: 30, windowMs: 3_600_000 };

const joinInput = z.object({
  projectId: idText,
  ticketTypeId: idText,
  name: requiredText(200),
  email,
});

export type JoinInput = z.input<typeof joinInput>;

const settingsInput = z.object({ offerHours: z.number().int().min(1).max(720) });

/** True for the unique-index violation of a second active entry of one address (a racing join). */
function isDuplicate(error: unknown): boolean {
  const text =
    String((error as { message?: unknown }).message ?? "") + String((error as { code?: unknown }).code);
  return /unique|23505|SQLITE_CONSTRAINT/i.test(text);
}

function soldOutOnly(): AppError {
  const message = "Tickets of this type are still available: register instead";
  return new AppError(ErrorCode.CONFLICT, message, { fieldErrors: [{ field: ["ticketTypeId"], message }] });
}

export interface WaitingListDeps extends OfferDeps {
  access: AccessService;
  throttle: Throttle;
  tickets: Pick<ReturnType<typeof createTicketsService>, "findTicketType" | "ticketTypesByIds">;
}

/**
 * The waiting list of sold-out ticket types (docs/guides/19-waiting-list.md): the public joins on
 * the event page; offers of freed seats (offers.ts) hold a seat for a set time; the organizer reads
 * the list, offers by hand and removes people. Every write goes through ProjectChanges, under the
 * ticket type's lock where seats are concerned.
 */
export function createWaitingListService(deps: WaitingListDeps) {
  const { db, access, changes } = deps;
  const areas = areasWrittenUnder("attendees:write");
  const offers = waitingListOffers(deps);

  /** An entry of the project the actor may change (attendees:write); another project's is "not found". */
  async function writable(actor: Actor, projectId: string, entryId: string) {
    const found = await access.requirePermission(actor, projectId, "attendees:write");
    const row = await repo.findById(db, found.projectId, entryId);
    if (!row) throw notFound("Waiting list entry");
    return row;
  }

  return {
    ...offers,

    /**
     * Puts a visitor in line for a sold-out ticket type on sale to the public (the page checked
     * that it is open). Joining again with the same address finds the first entry: idempotent, and
     * the answer never tells whether someone else's address was already in line.
     */
    async join(input: JoinInput, clientIp: string): Promise<WaitingListEntry> {
      if (!(await deps.throttle.take([{ rule: joinIpRule, key: addressKey(clientIp) }]))) {
        throw new AppError(
          ErrorCode.RATE_LIMITED,
          "Too many requests from your network. Try again in an hour.",
          {
            retryAfterSeconds: joinIpRule.windowMs / 1000,
          },
        );
      }
      const data = parseInput(joinInput, input);
      const ticket = await deps.tickets.findTicketType(publicActor, data.ticketTypeId);
      if (!ticket || ticket.access.projectId !== data.projectId) {
        const message = "This ticket is not on sale";
        throw new AppError(ErrorCode.CONFLICT, message, {
          fieldErrors: [{ field: ["ticketTypeId"], message }],
        });
      }
      const projectId = ticket.access.projectId;
      const normalized = data.email.trim().toLowerCase();
      const joinOnce = () =>
        changes.write(
          db,
          publicActor,
          projectId,
          async (trx) => {
            const existing = await repo.findActive(trx, projectId, data.ticketTypeId, normalized);
            if (existing) {
              changes.unchanged(trx);
              return existing;
            }
            // Under the ticket type's lock, so "sold out" cannot change while it is decided.
            const seats = await lockLine(changes, trx, projectId, data.ticketTypeId);
            if (!seats) throw notFound("Ticket type");
            // Only a ticket type nobody outside the line can buy: sold out, or its free seats owed to people waiting.
            if (seatsLeft(Number(seats.ticketType.quantity), seats) > 0) throw soldOutOnly();
            const now = nowIso();
            const row: WaitingListEntryRow = {
              id: newId(),
              project_id: projectId,
              ticket_type_id: data.ticketTypeId,
              name: data.name,
              email: data.email.trim(),
              email_normalized: normalized,
              state: "WAITING",
              offer_token_hash: null,
              offered_at: null,
              offer_expires_at: null,
              attendee_id: null,
              created_at: now,
              updated_at: now,
            };
            await repo.insert(trx, row);
            await changes.event(trx, publicActor, {
              projectId,
              type: "waiting_list.joined",
              object: { typename: "WaitingListEntry", id: row.id },
              row,
            });
            return row;
          },
          areas,
        );
      let row: WaitingListEntryRow;
      try {
        row = await joinOnce();
      } catch (error) {
        // Two joins of one address raced: the loser hit the unique index; its retry finds the winner's.
        if (!isDuplicate(error)) throw error;
        row = await joinOnce();
      }
      return presentEntry(row);
    },

    /** A project's waiting list (or one ticket type's), in line order (needs attendees:read). */
    async list(
      projectAccess: ProjectAccess,
      ticketTypeId: string | undefined,
      window: PageWindow,
    ): Promise<Page<WaitingListEntry>> {
      // Names and addresses: checked here too, whatever surface asks (the API declares it on the field).
      assertPermission(projectAccess, "attendees:read");
      const rows = await repo.list(db, projectAccess.projectId, ticketTypeId, window);
      const now = nowIso();
      return toPage(
        rows.map((row) => presentEntry(row, now)),
        window,
        (e) => [e.createdAt, e.id],
      );
    },

    /** Total of `list` for the same ticket type. */
    async count(projectAccess: ProjectAccess, ticketTypeId: string | undefined): Promise<number> {
      assertPermission(projectAccess, "attendees:read");
      return repo.count(db, projectAccess.projectId, ticketTypeId);
    },

    /**
     * Every entry of the project (or one ticket type) in line order, with its ticket type's name
     * and place in line, read page by page as consumed (the CLI's list). Needs attendees:read,
     * checked before the first entry.
     */
    exportRows(projectAccess: ProjectAccess, ticketTypeId: string | undefined): AsyncIterable<ExportedEntry> {
      assertPermission(projectAccess, "attendees:read");
      return exportEntries(db, deps.tickets, projectAccess.projectId, ticketTypeId);
    },

    /** `exportRows` as a CSV stream (the CLI's export); attendees:read is checked before the first byte. */
    exportCsv(projectAccess: ProjectAccess, ticketTypeId: string | undefined): Readable {
      assertPermission(projectAccess, "attendees:read");
      return waitingListCsv(exportEntries(db, deps.tickets, projectAccess.projectId, ticketTypeId));
    },

    /** An entry for `node(id)`: only with attendees:read on its project (else undefined, like a missing one). */
    async findEntry(
      actor: Actor,
      id: string,
    ): Promise<{ item: WaitingListEntry; access: ProjectAccess } | undefined> {
      const row = await repo.locate(db, id);
      if (!row) return undefined;
      const found = await access.resolve(actor, row.project_id);
      return found?.permissions.has("attendees:read")
        ? { item: presentEntry(row), access: found }
        : undefined;
    },

    /** Takes someone out of line (needs attendees:write); an open offer ends and its seat goes to the next. Audited. */
    async remove(actor: Actor, projectId: string, entryId: string): Promise<WaitingListEntry> {
      const row = await writable(actor, projectId, entryId);
      return changes.write(
        db,
        actor,
        row.project_id,
        async (trx) => {
          const moved = await repo.transition(trx, row.project_id, row.id, ["WAITING", "OFFERED"], {
            state: "REMOVED",
            offer_expires_at: null,
            updated_at: nowIso(),
          });
          if (!moved) throw new AppError(ErrorCode.CONFLICT, "This person is no longer in line");
          const after = (await repo.findById(trx, row.project_id, row.id)) as WaitingListEntryRow;
          await changes.event(trx, actor, {
            projectId: row.project_id,
            type: "waiting_list_entry.removed",
            object: { typename: "WaitingListEntry", id: row.id },
            values: { name: row.name, email: row.email },
            row: after,
          });
          return presentEntry(after);
        },
        areas,
      );
    },

    /** Offers a seat to this person now, out of turn (needs attendees:write); only while a seat is free. Audited. */
    async offerByHand(actor: Actor, projectId: string, entryId: string): Promise<WaitingListEntry> {
      const row = await writable(actor, projectId, entryId);
      const offered = await offers.offerOne(actor, row);
      return presentEntry(offered);
    },

    /** How many hours an offer holds its seat in the project (any member reads it). */
    async offerHours(actor: Actor, projectId: string): Promise<number> {
      const found = await access.require(actor, projectId);
      return (await repo.offerHours(db, found.projectId)) ?? defaultOfferHours;
    },

    /** Sets how long offers hold their seat (needs project:write, like the page's settings). */
    async setOfferHours(actor: Actor, projectId: string, input: { offerHours: number }): Promise<number> {
      const found = await access.requirePermission(actor, projectId, "project:write");
      const data = parseInput(settingsInput, input);
      await changes.write(db, actor, found.projectId, (trx) =>
        repo.setOfferHours(trx, found.projectId, data.offerHours),
      );
      return data.offerHours;
    },
  };
}

export type WaitingListService = ReturnType<typeof createWaitingListService>;

/** An erased attendee's waiting-list entries (by their address) keep no name or address (wired by services.ts). */
export function eraseWaitingListEntries(trx: Tx, person: ErasedPerson): Promise<void> {
  return repo.erase(trx, person.projectId, person.email.trim().toLowerCase(), {
    name: erasedName,
    email: erasedEmail(person.attendeeId),
  });
}
