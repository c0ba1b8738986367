import type { Db } from "../../db/database.js";
import { AppError, badInput, ErrorCode } from "../../errors.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import type { Actor } from "../access/actor.js";
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
 * Why a registration may not take a seat of `ticketType` when `sold` seats are taken, or undefined
 * when it may: the one place of the sales rules, for a single registration and for a CSV import.
 */
export function seatRefusal(
  actor: Actor,
  ticketType: Pick<TicketTypeRow, "name" | "quantity" | "sales_start_at" | "sales_end_at">,
  sold: number,
): AppError | undefined {
  // Apps sell through the sales window like the public page does; organizers in the dashboard and
  // the operator's CLI may register someone outside it (a speaker's guest, a door sale after online
  // sales closed, a list of invited guests imported from a file).
  if (actor.kind === "app" && !isOnSale(ticketType)) {
    return new AppError(ErrorCode.CONFLICT, `The ticket type "${ticketType.name}" is not on sale now`, {
      fieldErrors: [{ field: ["ticketTypeId"], message: "is not on sale now (outside its sales window)" }],
    });
  }
  if (sold >= Number(ticketType.quantity)) {
    return new AppError(ErrorCode.CONFLICT, `The ticket type "${ticketType.name}" is sold out`, {
      fieldErrors: [{ field: ["ticketTypeId"], message: "is sold out" }],
    });
  }
  return undefined;
}

/**
 * Takes a seat of a ticket type for one registration, inside the caller's transaction: the ticket
 * type is locked first, so concurrent registrations count and insert one after the other.
 */
export async function claimSeat(
  trx: Db,
  actor: Actor,
  projectId: string,
  ticketTypeId: string,
): Promise<void> {
  const ticketType = await ticketsRepository.lockForSale(trx, projectId, ticketTypeId);
  if (!ticketType) throw ticketTypeNotFound();
  const refusal = seatRefusal(
    actor,
    ticketType,
    await ticketsRepository.soldCount(trx, projectId, ticketTypeId),
  );
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
 * Each ticket type of a batch of registrations with its seats taken, inside the caller's
 * transaction: locked like `claimSeat` does (in id order, so two batches cannot deadlock), or only
 * read for a dry run. A ticket type deleted meanwhile is missing from the map.
 */
export async function seatCounts(
  trx: Db,
  projectId: string,
  ticketTypeIds: Iterable<string>,
  lock: boolean,
): Promise<Map<string, { ticketType: TicketTypeRow; sold: number }>> {
  const counts = new Map<string, { ticketType: TicketTypeRow; sold: number }>();
  for (const id of [...new Set(ticketTypeIds)].sort()) {
    const ticketType = lock
      ? await ticketsRepository.lockForSale(trx, projectId, id)
      : await ticketsRepository.findById(trx, projectId, id);
    if (ticketType)
      counts.set(id, { ticketType, sold: await ticketsRepository.soldCount(trx, projectId, id) });
  }
  return counts;
}
