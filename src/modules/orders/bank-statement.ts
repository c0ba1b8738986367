import type { Db } from "../../db/database.js";
import { AppError, badInput, ErrorCode } from "../../errors.js";
import { formatMoney } from "../../shared/money.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { parseAttendeeCsv } from "../attendees/attendees-csv.js";
import { type Order, presentOrder } from "./orders.model.js";
import { ordersRepository } from "./orders.repository.js";
import type { OrdersService } from "./orders.service.js";

/** What became of one row of a bank statement. */
export type StatementOutcome =
  /** A pending bank-transfer order with this reference and amount: marked paid (or would be, on a dry run). */
  | "MATCHED"
  /** Its order is paid already (an earlier import, or marked by hand): nothing changes. */
  | "ALREADY_PAID"
  /** The reference names an order, but the amount is not its total: left for the organizer. */
  | "AMOUNT_MISMATCH"
  /** The order cannot be paid now (cancelled, or its lapsed hold's seats are taken): refund the transfer. */
  | "REFUSED"
  /** No reference of this project's bank-transfer orders, or no amount paid in. */
  | "UNMATCHED";

export interface StatementRow {
  line: number;
  outcome: StatementOutcome;
  orderCode: string | null;
  amountMinor: number | null;
  message: string | null;
}

/**
 * An amount as banks write it ("249.00", "249,00", "1.234,56", "EUR 1,234.56", "+249.00") in minor
 * units of a two-decimal currency; null when it is not one. The last separator followed by one or
 * two digits is the decimal one; any other is a thousands separator.
 */
function parseStatementAmount(text: string): number | null {
  const cleaned = text.replace(/[^\d.,+-]/g, "");
  const match = /^([+-]?)([\d.,]*?)(?:[.,](\d{1,2}))?$/.exec(cleaned);
  if (!match?.[2] && !match?.[3]) return null;
  const whole = (match[2] ?? "").replace(/[.,]/g, "");
  if (!/^\d{0,12}$/.test(whole)) return null;
  const minor = Number(whole || "0") * 100 + Number((match[3] ?? "0").padEnd(2, "0"));
  return match[1] === "-" ? -minor : minor;
}

/** The header of the amount column, in the languages of the statements organizers are likely to have. */
const amountHeader = /^(amount|betrag|montant|importe|bedrag|importo)\b/i;

/**
 * Reads a CSV bank statement (a header row; one column named Amount/Betrag/…, the reference
 * anywhere in the other cells) and matches each credit to a pending bank-transfer order of the
 * project by its code (the payment reference) and total, as pretix does. A dry run only reports;
 * otherwise matched orders are marked paid through `markOrderPaid` (its permission, audit, webhook
 * and late-payment rules). Importing a statement again changes nothing: its orders are paid.
 */
export async function importBankStatement(
  deps: { db: Db; access: AccessService; orders: OrdersService },
  actor: Actor,
  input: { projectId: string; csv: string; dryRun: boolean },
): Promise<StatementRow[]> {
  // Even a dry run tells which orders exist and what they cost: the writers' permission.
  const access = await deps.access.requirePermission(actor, input.projectId, "orders:write");
  // Banks in Europe write ';' (the decimal comma is taken): the header line says which.
  const header = input.csv.slice(0, input.csv.indexOf("\n") >>> 0);
  const semicolons = header.split(";").length > header.split(",").length;
  const { headers, rows } = await parseAttendeeCsv(input.csv, semicolons ? ";" : ",");
  const amountAt = headers.findIndex((h) => amountHeader.test(h.trim()));
  if (amountAt < 0) {
    throw badInput([{ field: ["file"], message: "has no Amount column (Amount, Betrag, Montant, …)" }]);
  }
  const escaped = access.projectId.replace(/[-_]/g, (c) => `\\${c}`);
  const reference = new RegExp(`${escaped}-([0-9A-Za-z]{6})(?![0-9A-Za-z])`, "i");
  const results: StatementRow[] = [];
  for (const { line, cells } of rows) {
    const amountMinor = parseStatementAmount(cells[amountAt] ?? "");
    const suffix = reference.exec(cells.filter((_, i) => i !== amountAt).join(" "))?.[1];
    const orderCode = suffix ? `${access.projectId}-${suffix.toUpperCase()}` : null;
    const row = { line, orderCode, amountMinor };
    const found = orderCode
      ? await ordersRepository.findByCode(deps.db, access.projectId, orderCode)
      : undefined;
    const order = found ? presentOrder(found) : undefined;
    if (order?.provider !== "BANK_TRANSFER" || amountMinor === null || amountMinor <= 0) {
      results.push({ ...row, outcome: "UNMATCHED", message: null });
    } else if (order.paidAt !== null) {
      // Paid once (refunded or cancelled since, too): a second transfer is not this order's payment.
      results.push({ ...row, outcome: "ALREADY_PAID", message: null });
    } else if (amountMinor !== order.totalMinor) {
      const message = `the order's total is ${formatMoney(order.totalMinor, order.currency)}`;
      results.push({ ...row, outcome: "AMOUNT_MISMATCH", message });
    } else {
      results.push(await pay(deps, actor, order, row, input.dryRun));
    }
  }
  return results;
}

async function pay(
  deps: { orders: OrdersService },
  actor: Actor,
  order: Order,
  row: Pick<StatementRow, "line" | "orderCode" | "amountMinor">,
  dryRun: boolean,
): Promise<StatementRow> {
  if (order.state === "CANCELLED") {
    return { ...row, outcome: "REFUSED", message: "the order was cancelled: refund the transfer" };
  }
  if (dryRun) return { ...row, outcome: "MATCHED", message: null };
  try {
    await deps.orders.markOrderPaid(actor, { id: order.id });
    return { ...row, outcome: "MATCHED", message: null };
  } catch (error) {
    // A late payment whose seats are gone: the statement goes on, the row says why.
    if (error instanceof AppError && error.code === ErrorCode.CONFLICT) {
      return { ...row, outcome: "REFUSED", message: error.message };
    }
    throw error;
  }
}
