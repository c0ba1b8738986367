import type { Db, Tx } from "../../db/database.js";
import { AppError, ErrorCode } from "../../errors.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { answerRegistration } from "../questions/registration-answers.js";
import { type RegisterAttendeeInput, registrationRow } from "./attendee-input.js";
import { attendeesRepository as repo } from "./attendees.repository.js";
import { type Attendee, presentAttendee } from "./attendees.service.js";
import { cancelActiveRegistration, type OnAttendeeCancelled } from "./cancellation.js";

// The tickets of an order are attendees carrying its id (modules/orders). The orders module reaches
// them only through these functions, each inside the order's transaction; it claims the seats itself
// (attendees-seats.ts `seatCounts`, with the ticket types locked) before it adds or reinstates any.

function ticketEmailTaken(index: number, address: string): AppError {
  const message = `${address} already has a ticket for this event`;
  return new AppError(ErrorCode.CONFLICT, message, {
    fieldErrors: [
      { field: ["tickets", String(index), "email"], message: "already has a ticket for this event" },
    ],
  });
}

/** What the order's tickets need from services.ts: where events go and what a cancellation also does. */
export interface OrderTicketDeps {
  changes: ProjectChanges;
  onCancelled: OnAttendeeCancelled;
}

/** The tickets of an order in the orders module's transactions. */
export function createOrderTickets(deps: OrderTicketDeps) {
  return {
    /** The tickets of an order, active or not, in the order they were bought. */
    async list(db: Db, projectId: string, orderId: string): Promise<Attendee[]> {
      return (await repo.ofOrder(db, projectId, orderId)).map(presentAttendee);
    },

    /**
     * Registers an order's tickets, held until `heldUntil` (null: kept). One active registration per
     * email holds for them too: a taken address fails the whole order, naming its ticket.
     */
    async add(
      trx: Tx,
      actor: object | undefined,
      order: { id: string; heldUntil: string | null },
      inputs: readonly RegisterAttendeeInput[],
    ): Promise<Attendee[]> {
      const added: Attendee[] = [];
      for (const [index, input] of inputs.entries()) {
        const row = { ...registrationRow(input), order_id: order.id, held_until: order.heldUntil };
        if (!(await repo.insertRegistered(trx, row))) throw ticketEmailTaken(index, row.email);
        await answerRegistration(trx, presentAttendee(row), input.answers, ["tickets", String(index)]);
        await deps.changes.event(trx, actor, objectEvent(row.project_id, "Attendee", row.id, "registered"));
        added.push(presentAttendee(row));
      }
      return added;
    },

    /** Ends the hold of the order's active tickets: their seats are taken for good (the order is paid). */
    async keep(trx: Tx, projectId: string, orderId: string, at: string): Promise<void> {
      await repo.keepOrderTickets(trx, projectId, orderId, at);
    },

    /** Cancels the order's active tickets, with every effect of a cancellation; returns how many. */
    async cancel(trx: Tx, actor: object | undefined, projectId: string, orderId: string, at: string) {
      const active = (await repo.ofOrder(trx, projectId, orderId)).filter(
        (row) => row.status === "REGISTERED",
      );
      for (const row of active) await cancelActiveRegistration(trx, deps, actor, row, at);
      return active.length;
    },

    /** Cancels one active ticket of the order, with every effect of a cancellation; false when it is none. */
    async cancelOne(
      trx: Tx,
      actor: object | undefined,
      ticket: { projectId: string; orderId: string; id: string },
      at: string,
    ): Promise<boolean> {
      const row = (await repo.ofOrder(trx, ticket.projectId, ticket.orderId)).find((r) => r.id === ticket.id);
      if (row?.status !== "REGISTERED") return false;
      await cancelActiveRegistration(trx, deps, actor, row, at);
      return true;
    },

    /**
     * Registers again the tickets its expiry cancelled (`cancelledAt`), for a late payment the
     * organizer accepts; the caller checked the seats. An address registered again meanwhile fails it.
     */
    async reinstate(
      trx: Tx,
      actor: object | undefined,
      projectId: string,
      orderId: string,
      cancelledAt: string,
      at: string,
    ): Promise<void> {
      const rows = await repo.ofOrder(trx, projectId, orderId);
      for (const [index, row] of rows.entries()) {
        if (row.status !== "CANCELLED" || row.cancelled_at !== cancelledAt) continue;
        if (await repo.findRegisteredByEmail(trx, projectId, row.email_normalized)) {
          throw ticketEmailTaken(index, row.email);
        }
        const patch = { status: "REGISTERED" as const, cancelled_at: null, held_until: null, updated_at: at };
        await repo.update(trx, projectId, row.id, patch);
        await deps.changes.event(trx, actor, objectEvent(projectId, "Attendee", row.id, "registered"));
      }
    },

    /** Ticket types and how many tickets of each the order holds: active ones, or those its expiry cancelled. */
    async seatsOf(
      db: Db,
      projectId: string,
      orderId: string,
      cancelledAt?: string,
    ): Promise<Map<string, number>> {
      const seats = new Map<string, number>();
      for (const row of await repo.ofOrder(db, projectId, orderId)) {
        const counts =
          cancelledAt === undefined ? row.status === "REGISTERED" : row.cancelled_at === cancelledAt;
        if (counts) seats.set(row.ticket_type_id, (seats.get(row.ticket_type_id) ?? 0) + 1);
      }
      return seats;
    },
  };
}

export type OrderTickets = ReturnType<typeof createOrderTickets>;
