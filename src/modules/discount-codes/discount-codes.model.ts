import type { Selectable } from "kysely";
import type { DiscountCodesTable, DiscountKind } from "../../db/schema.js";

export type DiscountCodeRow = Selectable<DiscountCodesTable>;

/** A discount or access code as it leaves the service (the code itself is a secret of the organizers). */
export interface DiscountCode {
  id: string;
  projectId: string;
  code: string;
  kind: DiscountKind;
  percentOff: number | null;
  amountOffMinor: number | null;
  maxUses: number | null;
  maxPerOrder: number | null;
  validFrom: string | null;
  validUntil: string | null;
  /** The ticket types it covers; null: every one. */
  ticketTypeIds: string[] | null;
  batch: string | null;
  /** Tickets it was applied to, in orders not cancelled or expired. */
  uses: number;
  createdAt: string;
  updatedAt: string;
}

/** The comparison key of a code: what a buyer types, in any case, with its edges trimmed. */
export const codeKey = (text: string): string => text.trim().toUpperCase();

function ticketTypeIdsOf(row: Pick<DiscountCodeRow, "ticket_type_ids">): string[] | null {
  if (row.ticket_type_ids === null) return null;
  const parsed: unknown = JSON.parse(row.ticket_type_ids);
  return Array.isArray(parsed) ? parsed.filter((id): id is string => typeof id === "string") : [];
}

export function presentDiscountCode(row: DiscountCodeRow): DiscountCode {
  return {
    id: row.id,
    projectId: row.project_id,
    code: row.code,
    kind: row.kind,
    percentOff: row.percent_off === null ? null : Number(row.percent_off),
    amountOffMinor: row.amount_off_minor === null ? null : Number(row.amount_off_minor),
    maxUses: row.max_uses === null ? null : Number(row.max_uses),
    maxPerOrder: row.max_per_order === null ? null : Number(row.max_per_order),
    validFrom: row.valid_from,
    validUntil: row.valid_until,
    ticketTypeIds: ticketTypeIdsOf(row),
    batch: row.batch,
    uses: Number(row.uses),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Whether a code covers a ticket type (null: every type). */
export function covers(code: Pick<DiscountCode, "ticketTypeIds">, ticketTypeId: string): boolean {
  return code.ticketTypeIds === null || code.ticketTypeIds.includes(ticketTypeId);
}

/**
 * Whether a code unlocks a hidden ticket type: only by naming it. A code for "every type" (a
 * general 10% off) must not reveal the free speaker ticket to everyone who holds it.
 */
export function unlocks(
  code: Pick<DiscountCode, "ticketTypeIds"> | undefined,
  ticketTypeId: string,
): boolean {
  return code?.ticketTypeIds?.includes(ticketTypeId) ?? false;
}

/** Whether a code may be used at `at` (its validity window; the use limit is checked when claiming). */
export function isValidAt(code: Pick<DiscountCode, "validFrom" | "validUntil">, at: string): boolean {
  return (
    (code.validFrom === null || code.validFrom <= at) && (code.validUntil === null || code.validUntil > at)
  );
}

/**
 * What a code takes off one ticket of `unitPriceMinor`: the one price rule every order line,
 * the event page's preview and the invoices read. A percentage is rounded down (never more off
 * than the organizer said); a fixed amount never takes a ticket below zero; an access code only
 * unlocks, so it takes nothing off. A ticket type the code does not cover keeps its price.
 */
export function unitDiscount(
  code: Pick<DiscountCode, "kind" | "percentOff" | "amountOffMinor" | "ticketTypeIds"> | undefined,
  ticketTypeId: string,
  unitPriceMinor: number,
): number {
  if (!code || !covers(code, ticketTypeId)) return 0;
  switch (code.kind) {
    case "PERCENTAGE":
      return Math.floor((unitPriceMinor * (code.percentOff ?? 0)) / 100);
    case "FIXED_AMOUNT":
      return Math.min(unitPriceMinor, code.amountOffMinor ?? 0);
    case "ACCESS":
      return 0;
  }
}
