import type { Db } from "../../db/database.js";
import { AppError, badInput, ErrorCode } from "../../errors.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import type { Actor } from "../access/actor.js";
import { type SeatClaim, type SeatFigures, seatsLeft } from "../tickets/seats-left.js";
import { type TicketTypeRow, ticketsRepository } from "../tickets/tickets.repository.js";
import { isOnSale } from "../tickets/tickets.service.js";

// The sales rules of registrations (capacity, sales window) and the ticket type reads they need,
// kept apart from the registration service so a single registration, an update and a CSV import
// all take seats through the same code, and the attendees module reads the tickets repository
// from this one file only.

function ticketTypeNotFound(): AppError {
  return badInput([{ field: ["ticketTypeId"], message: "ticket type not found in this project" }]);
}

/**
 * Why `wanted` seats of `ticketType` may not be taken with `seats` as they stand, or undefined
 * when they may: the one place of the sales rules, for a registration, an order and a CSV import.
 * How many are left is `seatsLeft`'s to say.
 */
export function seatRefusal(
  actor: Actor,
  ticketType: Pick<TicketTypeRow, "name" | "quantity" | "sales_start_at" | "sales_end_at">,
  seats: SeatFigures,
  wanted = 1,
  claim: SeatClaim = "open",
): AppError | undefined {
  // Apps sell through the sales window like the public page does; organizers in the dashboard and
  // the operator's CLI may register someone outside it (a speaker's guest, a door sale after online
  // sales closed, a list of invited guests imported from a file).
  if (actor.kind === "app" && !isOnSale(ticketType)) {
    return new AppError(ErrorCode.CONFLICT, `The ticket type "${ticketType.name}" is not on sale now`, {
      fieldErrors: [{ field: ["ticketTypeId"], message: "is not on sale now (outside its sales window)" }],
    });
  }
  const quantity = Number(ticketType.quantity);
  if (seatsLeft(quantity, seats, claim) < wanted) {
    // Free seats owed to the waiting list are named, so an organizer knows why "sold out" (raising
    // the quantity is what lets them register someone beside the line).
    const owed = seatsLeft(quantity, seats, "offered") >= wanted;
    const message = owed ? "is sold out: its free seats are held for the waiting list" : "is sold out";
    return new AppError(ErrorCode.CONFLICT, `The ticket type "${ticketType.name}" ${message}`, {
      fieldErrors: [{ field: ["ticketTypeId"], message }],
    });
  }
  return undefined;
}

/** A ticket type's seat figures as they stand inside the caller's transaction (after its lock). */
async function figuresOf(trx: Db, projectId: string, ticketTypeId: string): Promise<SeatFigures> {
  return {
    sold: await ticketsRepository.soldCount(trx, projectId, ticketTypeId),
    waiting: await ticketsRepository.waitingCount(trx, projectId, ticketTypeId),
  };
}

/**
 * Takes a seat of a ticket type for one registration, inside the caller's transaction: the ticket
 * type is locked first, so concurrent registrations (and joins to its waiting list, and offers)
 * count and insert one after the other.
 */
export async function claimSeat(
  trx: Db,
  actor: Actor,
  projectId: string,
  ticketTypeId: string,
  claim: SeatClaim = "open",
): Promise<void> {
  const ticketType = await ticketsRepository.lockForSale(trx, projectId, ticketTypeId);
  if (!ticketType) throw ticketTypeNotFound();
  const refusal = seatRefusal(actor, ticketType, await figuresOf(trx, projectId, ticketTypeId), 1, claim);
  if (refusal) throw refusal;
}

/**
 * Moves a registration to another ticket type, inside the caller's transaction: an active one
 * takes a seat there (`claimSeat`); a cancelled one holds no seat, so the type need only exist.
 */
export async function claimSeatOnMove(
  trx: Db,
  actor: Actor,
  projectId: string,
  ticketTypeId: string,
  holdsSeat: boolean,
): Promise<void> {
  if (holdsSeat) await claimSeat(trx, actor, projectId, ticketTypeId);
  else if (!(await ticketsRepository.findById(trx, projectId, ticketTypeId))) throw ticketTypeNotFound();
}

/** The project's ticket types (at most 100), for matching a CSV's ticket type column by name or id. */
export function ticketTypesOf(db: Db, projectId: string): Promise<TicketTypeRow[]> {
  return ticketsRepository.list(db, projectId, undefined, resolvePageArgs({ first: 100 }));
}

/**
 * Each ticket type of a batch of registrations with its seat figures, inside the caller's
 * transaction: locked like `claimSeat` does (in id order, so two batches cannot deadlock), or only
 * read for a dry run. A ticket type deleted meanwhile is missing from the map.
 */
export async function seatCounts(
  trx: Db,
  projectId: string,
  ticketTypeIds: Iterable<string>,
  lock: boolean,
): Promise<Map<string, { ticketType: TicketTypeRow } & SeatFigures>> {
  const counts = new Map<string, { ticketType: TicketTypeRow } & SeatFigures>();
  for (const id of [...new Set(ticketTypeIds)].sort()) {
    const ticketType = lock
      ? await ticketsRepository.lockForSale(trx, projectId, id)
      : await ticketsRepository.findById(trx, projectId, id);
    if (ticketType) counts.set(id, { ticketType, ...(await figuresOf(trx, projectId, id)) });
  }
  return counts;
}
