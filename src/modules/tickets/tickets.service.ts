import type { z } from "zod";
import { isUniqueViolation } from "../../db/constraint-errors.js";
import type { Db, Tx } from "../../db/database.js";
import type { TicketPaymentMode } from "../../db/schema.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { objectEvent, type ProjectChanges, updateEvent } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { parseInput } from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertPermission, ticketTypeVisible as canSeeTicketType } from "../access/policy.js";
import { createRow, patchFrom, resolveRowAccess, writeRow } from "../access/row-access.js";
import type { SeatFigures } from "./seats-left.js";
import {
  type CreateTicketTypeInput,
  checkSalesWindow,
  createInput,
  deleteInput,
  listFilter,
  type TicketTypeFilter,
  type UpdateTicketTypeInput,
  updateInput,
} from "./ticket-type-input.js";
import { ticketsRepository as repo, type TicketTypeRow } from "./tickets.repository.js";

/** A kind of ticket with its price and capacity; seat figures are loaded separately (`seatFigures`). */
export interface TicketType {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  /** Price in minor units of `currency` (cents). */
  priceMinor: number;
  /** ISO 4217 code, upper case. */
  currency: string;
  quantity: number;
  salesStartAt: string | null;
  salesEndAt: string | null;
  /** How a paid ticket is paid when registered for on the event page (NONE: not offered there). */
  paymentMode: TicketPaymentMode;
  /** The tax included in the price, in basis points (1900: 19 %); null: the project's default rate. */
  taxRateBasisPoints: number | null;
  /** Offered only to a buyer holding a code that covers it (an access code). */
  hidden: boolean;
  createdAt: string;
  updatedAt: string;
}

/**
 * A ticket type's fields that an update copies to a column as given, with the column: the one map
 * both `updateTicketType` and the audit log's snapshots read (the payment mode, whose null means
 * NONE, is written apart).
 */
export const ticketTypeFieldColumns = {
  name: "name",
  description: "description",
  priceMinor: "price_minor",
  currency: "currency",
  quantity: "quantity",
  salesStartAt: "sales_start_at",
  salesEndAt: "sales_end_at",
  taxRateBasisPoints: "tax_rate_bp",
} as const;

/** A ticket type as it leaves the service. */
function presentTicketType(row: TicketTypeRow): TicketType {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    priceMinor: Number(row.price_minor),
    currency: row.currency,
    quantity: Number(row.quantity),
    salesStartAt: row.sales_start_at,
    salesEndAt: row.sales_end_at,
    paymentMode: row.payment_mode,
    taxRateBasisPoints: row.tax_rate_bp === null ? null : Number(row.tax_rate_bp),
    hidden: Boolean(row.hidden),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Whether the sales window is open at `at` (an open end on either side counts as open). */
export function isOnSale(
  ticketType: Pick<TicketTypeRow, "sales_start_at" | "sales_end_at">,
  at = nowIso(),
): boolean {
  return (
    (ticketType.sales_start_at === null || ticketType.sales_start_at <= at) &&
    (ticketType.sales_end_at === null || ticketType.sales_end_at > at)
  );
}

/**
 * Whether visitors may register for this ticket type with the event page's one-ticket form: free
 * tickets always, paid ones when they are paid later (at the door, by invoice). A ticket paid by
 * bank transfer is bought only through an order (`orderableOnPage`), which holds its seat until paid.
 */
export function registrableOnPage(ticketType: Pick<TicketType, "priceMinor" | "paymentMode">): boolean {
  return (
    ticketType.priceMinor === 0 ||
    ticketType.paymentMode === "AT_DOOR" ||
    ticketType.paymentMode === "INVOICE"
  );
}

/** Whether visitors may buy this ticket type in an order on the event page: free or paid some way it offers. */
export function orderableOnPage(ticketType: Pick<TicketType, "priceMinor" | "paymentMode">): boolean {
  return ticketType.priceMinor === 0 || ticketType.paymentMode !== "NONE";
}

const ticketTypeVisible = (access: ProjectAccess, row: TicketTypeRow) =>
  canSeeTicketType(access, isOnSale(row) && !row.hidden);

/** The moment to compare sales windows with, or undefined when every ticket type is asked for. */
function onSaleAtFor(access: ProjectAccess, filter: TicketTypeFilter): string | undefined {
  const data = parseInput(listFilter, filter);
  if (data.onSaleOnly === false) {
    // Ticket types not on sale (past, future, drafts of prices) are organizer data.
    assertPermission(access, "tickets:read");
    return undefined;
  }
  return nowIso();
}

/** CONFLICT on the name: a project's ticket types must be told apart (a CSV import names them). */
function nameTaken(name: string): AppError {
  const message = `Another ticket type of this project is already named “${name}”`;
  return new AppError(ErrorCode.CONFLICT, message, { fieldErrors: [{ field: ["name"], message }] });
}

/** Runs a write; the unique index's refusal (a concurrent write took the name) becomes `nameTaken`. */
async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken(name);
    throw error;
  }
}

/** Ticket types: prices, capacity and sales windows; sold counts come from the attendees table. */
export function createTicketsService(db: Db, access: AccessService, changes: ProjectChanges) {
  const writer = { db, access, changes };
  /** A write to a ticket type under tickets:write, on its row locked against concurrent sales. */
  async function writeLocked<T>(
    actor: Actor,
    id: string,
    body: (trx: Tx, projectId: string, granted: ProjectAccess, row: TicketTypeRow) => Promise<T>,
  ): Promise<T> {
    const located = await repo.locate(db, id);
    return writeRow(
      writer,
      actor,
      located,
      "Ticket type",
      "tickets:write",
      ticketTypeVisible,
      async (trx, projectId, granted) => {
        // Seat locks in one order (docs/runtime.md "Seat locks"): the project's version row, then the ticket type.
        await changes.recordAreas(trx, projectId, areasWrittenUnder("tickets:write"));
        const row = await repo.lockForSale(trx, projectId, id);
        if (!row) throw notFound("Ticket type");
        return body(trx, projectId, granted, row);
      },
    );
  }
  return {
    /** Ticket types by creation; on sale now only, unless onSaleOnly is false (needs tickets:read). */
    async listTicketTypes(
      projectAccess: ProjectAccess,
      filter: TicketTypeFilter,
      window: PageWindow,
    ): Promise<Page<TicketType>> {
      const rows = await repo.list(db, projectAccess.projectId, onSaleAtFor(projectAccess, filter), window);
      return toPage(rows.map(presentTicketType), window, (t) => [t.createdAt, t.id]);
    },

    /** Total of `listTicketTypes` for the same filter. */
    async countTicketTypes(projectAccess: ProjectAccess, filter: TicketTypeFilter): Promise<number> {
      return repo.count(db, projectAccess.projectId, onSaleAtFor(projectAccess, filter));
    },

    /** Ticket types by id, one statement for any number of ids. */
    async ticketTypesByIds(ids: readonly string[]): Promise<Map<string, TicketType>> {
      if (ids.length === 0) return new Map();
      const rows = await repo.findByIds(db, ids);
      return new Map(rows.map((r) => [r.id, presentTicketType(r)]));
    },

    /**
     * The hidden ticket types on sale among `ids` (those a code names), for the event page of a
     * project it opened; the caller checked the code.
     */
    async unlockedBy(projectId: string, ids: readonly string[]): Promise<TicketType[]> {
      return (await repo.hiddenOnSale(db, projectId, ids, nowIso())).map(presentTicketType);
    },

    /** Seats taken per ticket type (see tickets.repository `soldCounts`); every asked id is a key (0 when none). */
    async soldCounts(ticketTypeIds: readonly string[]): Promise<Map<string, number>> {
      if (ticketTypeIds.length === 0) return new Map();
      const rows = await repo.soldCounts(db, ticketTypeIds);
      const counts = new Map<string, number>(ticketTypeIds.map((tid) => [tid, 0]));
      for (const row of rows) counts.set(row.ticket_type_id, Number(row.n));
      return counts;
    },

    /**
     * Seats taken and people waiting per ticket type (two statements for any number of ids), what
     * `seatsLeft` computes what is left from; every asked id is a key.
     */
    async seatFigures(ticketTypeIds: readonly string[]): Promise<Map<string, SeatFigures>> {
      if (ticketTypeIds.length === 0) return new Map();
      const [sold, waiting] = await Promise.all([
        repo.soldCounts(db, ticketTypeIds),
        repo.waitingCounts(db, ticketTypeIds),
      ]);
      const taken = new Map(sold.map((row) => [row.ticket_type_id, Number(row.n)]));
      return new Map(
        ticketTypeIds.map((id) => [id, { sold: taken.get(id) ?? 0, waiting: waiting.get(id) ?? 0 }]),
      );
    },

    /** A ticket type the actor may see (on sale now, or any with tickets:read). */
    async findTicketType(
      actor: Actor,
      ticketTypeId: string,
    ): Promise<{ item: TicketType; access: ProjectAccess } | undefined> {
      const row = await repo.locate(db, ticketTypeId);
      const found = await resolveRowAccess(access, actor, row, ticketTypeVisible);
      return row && found ? { item: presentTicketType(row), access: found } : undefined;
    },

    /** Creates a ticket type (its name not used by another of the project); needs tickets:write. */
    async createTicketType(actor: Actor, input: CreateTicketTypeInput): Promise<TicketType> {
      const row = await createRow(
        writer,
        actor,
        input.projectId,
        "tickets:write",
        (): TicketTypeRow => {
          const data = parseInput(createInput, input);
          checkSalesWindow(data.salesStartAt, data.salesEndAt);
          const now = nowIso();
          return {
            id: newId(),
            project_id: data.projectId,
            name: data.name,
            description: data.description,
            price_minor: data.priceMinor,
            currency: data.currency,
            quantity: data.quantity,
            sales_start_at: data.salesStartAt ?? null,
            sales_end_at: data.salesEndAt ?? null,
            payment_mode: data.paymentMode ?? "NONE",
            tax_rate_bp: data.taxRateBasisPoints ?? null,
            hidden: data.hidden ? 1 : 0,
            created_at: now,
            updated_at: now,
          };
        },
        async (trx, prepared) => {
          if (await repo.nameTaken(trx, prepared.project_id, prepared.name)) throw nameTaken(prepared.name);
          await uniqueName(prepared.name, () => repo.insert(trx, prepared));
          await changes.event(
            trx,
            actor,
            objectEvent(prepared.project_id, "TicketType", prepared.id, "created"),
          );
        },
      );
      return presentTicketType(row);
    },

    /** Updates a ticket type; the quantity cannot drop below the tickets sold. Needs tickets:write. */
    async updateTicketType(actor: Actor, input: UpdateTicketTypeInput): Promise<TicketType> {
      const data = parseInput(updateInput, input);
      // Locked so a registration cannot slip in between counting the sold tickets and lowering the quantity.
      return writeLocked(actor, data.id, async (trx, projectId, granted, row) => {
        checkSalesWindow(
          data.salesStartAt === undefined ? row.sales_start_at : data.salesStartAt,
          data.salesEndAt === undefined ? row.sales_end_at : data.salesEndAt,
        );
        if (data.quantity !== undefined) {
          const sold = await repo.soldCount(trx, projectId, data.id);
          if (data.quantity < sold) {
            // The exact count is a sales figure (tickets:read); a write-only caller learns only the rule.
            const message = granted.permissions.has("tickets:read")
              ? `must be at least ${sold}, the number of tickets already sold`
              : "must not be below the number of tickets already sold";
            throw badInput([{ field: ["quantity"], message }]);
          }
        }
        const patch: Partial<TicketTypeRow> = {
          ...patchFrom<typeof data, TicketTypeRow>(data, ticketTypeFieldColumns),
          updated_at: nowIso(),
        };
        // null means "as by default" like the create input, not a value of its own.
        if (data.paymentMode !== undefined) patch.payment_mode = data.paymentMode ?? "NONE";
        if (data.hidden !== undefined) patch.hidden = data.hidden ? 1 : 0;
        if (data.name !== undefined && (await repo.nameTaken(trx, projectId, data.name, data.id))) {
          throw nameTaken(data.name);
        }
        await uniqueName(data.name ?? row.name, () => repo.update(trx, projectId, data.id, patch));
        const updated = await repo.findById(trx, projectId, data.id);
        if (!updated) throw notFound("Ticket type");
        await changes.event(
          trx,
          actor,
          updateEvent(projectId, "TicketType", data.id, data, { before: row, after: updated }),
        );
        return presentTicketType(updated);
      });
    },

    /** Deletes a ticket type nobody registered with (cancelled registrations count too). Needs tickets:write. */
    async deleteTicketType(actor: Actor, input: z.input<typeof deleteInput>): Promise<TicketType> {
      const data = parseInput(deleteInput, input);
      return writeLocked(actor, data.id, async (trx, projectId, granted, row) => {
        const registrations = await repo.registrationCount(trx, projectId, data.id);
        if (registrations > 0) {
          // How many registered is attendee data (attendees:read); without it only the rule is said.
          if (!granted.permissions.has("attendees:read")) {
            throw new AppError(
              ErrorCode.CONFLICT,
              "This ticket type has registrations and cannot be deleted",
            );
          }
          throw new AppError(
            ErrorCode.CONFLICT,
            `This ticket type has ${registrations} registration${registrations === 1 ? "" : "s"} and cannot be deleted`,
            { registrations },
          );
        }
        await repo.delete(trx, projectId, data.id);
        await changes.event(trx, actor, objectEvent(projectId, "TicketType", data.id, "deleted"));
        return presentTicketType(row);
      });
    },
  };
}

/** Refuses ticket type ids that are not all the project's (what a code or a question applies to). */
export async function requireTicketTypesOf(
  trx: Tx,
  projectId: string,
  ids: readonly string[] | null | undefined,
): Promise<void> {
  if (!ids?.length) return;
  const found = await repo.idsIn(trx, projectId, ids);
  if (found.size !== new Set(ids).size)
    throw badInput([{ field: ["ticketTypeIds"], message: "names a ticket type not found in this event" }]);
}
