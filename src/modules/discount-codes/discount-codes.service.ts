import { randomInt } from "node:crypto";
import { z } from "zod";
import { isUniqueViolation } from "../../db/constraint-errors.js";
import type { Db } from "../../db/database.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import { objectEvent, type ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { dateTime, idText, optionalText, parseInput } from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertPermission } from "../access/policy.js";
import { createRow, resolveRowAccess, writeRow } from "../access/row-access.js";
import { requireTicketTypesOf } from "../tickets/tickets.service.js";
import {
  codeKey,
  type DiscountCode,
  type DiscountCodeRow,
  isValidAt,
  presentDiscountCode,
} from "./discount-codes.model.js";
import { discountCodesRepository as repo } from "./discount-codes.repository.js";

/**
 * Who manages codes: whoever may set ticket prices (tickets:write). A code lowers a price or opens
 * a hidden ticket type, so it is a price lever like the price itself; and a code is a secret that
 * a tickets:read app (a public ticket widget) must not learn. Reading them needs the same.
 */
const permission = "tickets:write" as const;
const codesVisible = (access: ProjectAccess) => access.permissions.has(permission);

/** The most codes one bulk generation makes, and the most the CSV export holds. */
export const maxGenerated = 1_000;
const maxExported = 10_000;

const codeText = z
  .string()
  .trim()
  // Starting with a letter or digit: a code never reads as a formula in the CSV export.
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_-]{2,39}$/,
    "must be 3 to 40 letters, digits, - or _, from a letter or digit",
  );
const count = (max: number) => z.number().int("must be a whole number").min(1, "must be at least 1").max(max);
const terms = z.object({
  kind: z.enum(["PERCENTAGE", "FIXED_AMOUNT", "ACCESS"]),
  percentOff: z.number().int().min(1, "must be 1 to 100").max(100, "must be 1 to 100").nullish(),
  amountOffMinor: count(2_147_483_647).nullish(),
  maxUses: count(1_000_000).nullish(),
  maxPerOrder: count(20).nullish(),
  validFrom: dateTime.nullish(),
  validUntil: dateTime.nullish(),
  ticketTypeIds: z.array(idText).max(100).nullish(),
});
const createInput = terms.extend({ projectId: idText, code: codeText });
const generateInput = terms.extend({
  projectId: idText,
  count: count(maxGenerated),
  prefix: z
    .string()
    .trim()
    .regex(/^([A-Za-z0-9][A-Za-z0-9_-]{0,19})?$/, "must be at most 20 letters, digits, - or _")
    .nullish(),
  batch: optionalText(100),
});
const listFilter = z.object({ batch: optionalText(100) });

export type CreateDiscountCodeInput = z.input<typeof createInput>;
export type GenerateDiscountCodesInput = z.input<typeof generateInput>;
export type DiscountCodeFilter = z.input<typeof listFilter>;

/** The terms' own rules: what each kind needs, and a window that ends after it starts. */
function checkTerms(data: z.output<typeof terms>): void {
  if (data.kind === "PERCENTAGE" && !data.percentOff)
    throw badInput([{ field: ["percentOff"], message: "is needed for a percentage code" }]);
  if (data.kind === "FIXED_AMOUNT" && !data.amountOffMinor)
    throw badInput([{ field: ["amountOffMinor"], message: "is needed for a fixed-amount code" }]);
  if (data.kind === "ACCESS" && !data.ticketTypeIds?.length)
    throw badInput([
      { field: ["ticketTypeIds"], message: "must name the hidden ticket types an access code unlocks" },
    ]);
  if (data.validFrom && data.validUntil && data.validUntil <= data.validFrom)
    throw badInput([{ field: ["validUntil"], message: "must be after validFrom" }]);
}

function rowOf(projectId: string, code: string, data: z.output<typeof terms>, batch: string | null) {
  const now = nowIso();
  const row: DiscountCodeRow = {
    id: newId(),
    project_id: projectId,
    code,
    code_key: codeKey(code),
    kind: data.kind,
    percent_off: data.kind === "PERCENTAGE" ? (data.percentOff ?? null) : null,
    amount_off_minor: data.kind === "FIXED_AMOUNT" ? (data.amountOffMinor ?? null) : null,
    max_uses: data.maxUses ?? null,
    max_per_order: data.maxPerOrder ?? null,
    valid_from: data.validFrom ?? null,
    valid_until: data.validUntil ?? null,
    ticket_type_ids: data.ticketTypeIds ? JSON.stringify([...new Set(data.ticketTypeIds)]) : null,
    batch,
    uses: 0,
    created_at: now,
    updated_at: now,
  };
  return row;
}

// Crockford's base32 without look-alikes (as ticket and order codes): 10 characters are 50 bits,
// so guessing one of 1,000 single-use codes takes ~10^12 tries against the event page's throttle.
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const randomCode = (prefix: string) =>
  prefix + Array.from({ length: 10 }, () => alphabet[randomInt(alphabet.length)]).join("");

const codeTaken = (code: string) =>
  new AppError(ErrorCode.CONFLICT, `The code "${code}" exists in this event already`, {
    fieldErrors: [{ field: ["code"], message: "exists in this event already (codes ignore case)" }],
  });

/** Discount and access codes: managing them (tickets:write) and the CSV of a batch. */
export function createDiscountCodesService(db: Db, access: AccessService, changes: ProjectChanges) {
  const writer = { db, access, changes };

  return {
    /** Creates one code (tickets:write); codes are unique per project whatever their case. */
    async createDiscountCode(actor: Actor, input: CreateDiscountCodeInput): Promise<DiscountCode> {
      const row = await createRow(
        writer,
        actor,
        input.projectId,
        permission,
        () => {
          const data = parseInput(createInput, input);
          checkTerms(data);
          return rowOf(data.projectId, data.code, data, null);
        },
        async (trx, prepared) => {
          await requireTicketTypesOf(trx, prepared.project_id, createInput.parse(input).ticketTypeIds);
          if (await repo.findByKey(trx, prepared.project_id, prepared.code_key))
            throw codeTaken(prepared.code);
          try {
            await repo.insert(trx, [prepared]);
          } catch (error) {
            if (isUniqueViolation(error)) throw codeTaken(prepared.code);
            throw error;
          }
          await changes.event(trx, actor, {
            ...objectEvent(prepared.project_id, "DiscountCode", prepared.id, "created"),
            row: prepared,
          });
        },
      );
      return presentDiscountCode(row);
    },

    /**
     * Generates `count` random codes with the same terms (single-use vouchers for a sponsor, say),
     * labelled with `batch` for the CSV export; one audit entry for the whole batch.
     */
    async generateDiscountCodes(actor: Actor, input: GenerateDiscountCodesInput): Promise<DiscountCode[]> {
      const rows = await createRow(
        writer,
        actor,
        input.projectId,
        permission,
        () => {
          const data = parseInput(generateInput, input);
          checkTerms(data);
          const batch = data.batch ?? `Generated ${nowIso().slice(0, 16).replace("T", " ")}`;
          return { data, batch, rows: [] as DiscountCodeRow[] };
        },
        async (trx, prepared) => {
          const { data, batch } = prepared;
          await requireTicketTypesOf(trx, data.projectId, data.ticketTypeIds);
          const keys = new Set<string>();
          // A clash with an existing code (one in 2^50 per pair) is drawn again, never stored.
          while (keys.size < data.count) {
            // Upper-cased before the check: a lower-case prefix must match the stored keys.
            const wanted = Array.from({ length: data.count - keys.size }, () =>
              codeKey(randomCode(data.prefix ?? "")),
            );
            const taken = await repo.takenKeys(trx, data.projectId, wanted);
            for (const key of wanted) if (!taken.has(key)) keys.add(key);
          }
          prepared.rows = [...keys]
            .slice(0, data.count)
            .map((code) => rowOf(data.projectId, code, data, batch));
          await repo.insert(trx, prepared.rows);
          await changes.event(trx, actor, {
            ...objectEvent(data.projectId, "DiscountCode", prepared.rows[0]?.id ?? "", "generated"),
            values: { batch, count: prepared.rows.length, kind: data.kind },
          });
        },
      );
      return rows.rows.map(presentDiscountCode);
    },

    /** Deletes a code; orders placed with it keep the code's text and their discount. */
    async deleteDiscountCode(actor: Actor, input: { id: string }): Promise<DiscountCode> {
      const { id } = parseInput(z.object({ id: idText }), input);
      const located = await repo.locate(db, id);
      return writeRow(
        writer,
        actor,
        located,
        "DiscountCode",
        permission,
        codesVisible,
        async (trx, projectId) => {
          const row = await repo.find(trx, projectId, id);
          if (!row) throw notFound("DiscountCode");
          await repo.delete(trx, projectId, id);
          await changes.event(trx, actor, objectEvent(projectId, "DiscountCode", id, "deleted"));
          return presentDiscountCode(row);
        },
      );
    },

    /** Codes by creation, of one batch or all, with their uses (tickets:write). */
    async listDiscountCodes(
      projectAccess: ProjectAccess,
      filter: DiscountCodeFilter,
      window: PageWindow,
    ): Promise<Page<DiscountCode>> {
      assertPermission(projectAccess, permission);
      const { batch } = parseInput(listFilter, filter);
      const rows = await repo.list(db, projectAccess.projectId, batch ?? undefined, window);
      return toPage(rows.map(presentDiscountCode), window, (c) => [c.createdAt, c.id]);
    },

    /** Total of `listDiscountCodes` for the same filter. */
    async countDiscountCodes(projectAccess: ProjectAccess, filter: DiscountCodeFilter): Promise<number> {
      assertPermission(projectAccess, permission);
      const { batch } = parseInput(listFilter, filter);
      return repo.count(db, projectAccess.projectId, batch ?? undefined);
    },

    /** A code, when the actor holds tickets:write in its project. */
    async findDiscountCode(
      actor: Actor,
      id: string,
    ): Promise<{ item: DiscountCode; access: ProjectAccess } | undefined> {
      const row = await repo.locate(db, id);
      const found = await resolveRowAccess(access, actor, row, codesVisible);
      return row && found ? { item: presentDiscountCode(row), access: found } : undefined;
    },

    /**
     * The code a visitor typed on a project's event page, when it works now (the page opened the
     * project and throttles the lookups); undefined for any other.
     */
    async pageCode(projectId: string, text: string): Promise<DiscountCode | undefined> {
      if (text.trim().length > 60) return undefined;
      const row = await repo.findByKey(db, projectId, codeKey(text));
      const code = row ? presentDiscountCode(row) : undefined;
      return code && isValidAt(code, nowIso()) ? code : undefined;
    },

    /** Every code of a project (or batch) as CSV, oldest first, at most `maxExported` (tickets:write). */
    async exportCsv(actor: Actor, projectId: string, batch?: string): Promise<string> {
      const found = await access.requirePermission(actor, projectId, permission);
      const rows = await repo.all(db, found.projectId, batch, maxExported);
      const header =
        "code,kind,percent_off,amount_off_minor,max_uses,uses,max_per_order,valid_from,valid_until,batch";
      const lines = rows.map((r) =>
        [
          r.code,
          r.kind,
          r.percent_off,
          r.amount_off_minor,
          r.max_uses,
          r.uses,
          r.max_per_order,
          r.valid_from,
          r.valid_until,
          r.batch,
        ]
          .map(csvCell)
          .join(","),
      );
      return `${[header, ...lines].join("\r\n")}\r\n`;
    },
  };
}

/**
 * One CSV cell: quoted when it holds a separator, and a leading = + - @ defused with an apostrophe
 * so a spreadsheet never runs a batch label as a formula.
 */
function csvCell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export type DiscountCodesService = ReturnType<typeof createDiscountCodesService>;
