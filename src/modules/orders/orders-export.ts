import type { Readable } from "node:stream";
import type { Db } from "../../db/database.js";
import type { CursorKey } from "../../shared/pagination.js";
import type { ProjectAccess } from "../access/access.service.js";
import { assertPermission } from "../access/policy.js";
import { type CsvColumn, csvOf } from "../attendees/attendees-csv.js";
import type { Invoicing } from "../invoices/invoices.service.js";
import { presentLine, presentOrder } from "./orders.model.js";
import { type OrderListFilter, ordersRepository as repo } from "./orders.repository.js";

/** Orders read per statement: memory stays at one page whatever the export's size. */
const exportPageSize = 500;

/** One exported order: what an accountant reconciles (amounts in minor units, as the API gives them). */
export interface ExportedOrder {
  code: string;
  state: string;
  buyerName: string;
  buyerEmail: string;
  buyerCompany: string | null;
  buyerVatId: string | null;
  provider: string;
  paymentReference: string | null;
  tickets: number;
  totalMinor: number;
  taxMinor: number;
  currency: string;
  createdAt: string;
  paidAt: string | null;
  closedAt: string | null;
  invoices: string;
}

/**
 * A filter's orders, oldest first, read page by page as they are consumed, each with its ticket
 * count, tax and invoice numbers (two more statements a page, never one per order). Needs orders:read.
 */
export async function* exportOrders(
  db: Db,
  invoicing: Invoicing,
  access: ProjectAccess,
  filter: OrderListFilter,
): AsyncGenerator<ExportedOrder> {
  assertPermission(access, "orders:read");
  let after: CursorKey | undefined;
  for (;;) {
    // Larger pages than a list's 100 through the same keyset; the repository reads one row more.
    const window = { limit: exportPageSize, after, before: undefined, backward: false };
    const rows = await repo.list(db, access.projectId, filter, window);
    const page = rows.slice(0, exportPageSize).map(presentOrder);
    const ids = page.map((o) => o.id);
    const lines = await repo.linesOf(db, ids);
    const invoices = await invoicing.ofOrders(ids);
    for (const order of page) {
      const own = lines.filter((l) => l.order_id === order.id).map(presentLine);
      yield {
        code: order.code,
        state: order.state,
        buyerName: order.buyerName,
        buyerEmail: order.buyerEmail,
        buyerCompany: order.buyerCompany,
        buyerVatId: order.buyerVatId,
        provider: order.provider,
        paymentReference: order.paymentReference,
        tickets: own.reduce((sum, l) => sum + l.quantity, 0),
        totalMinor: order.totalMinor,
        taxMinor: own.reduce((sum, l) => sum + l.taxMinor, 0),
        currency: order.currency,
        createdAt: order.createdAt,
        paidAt: order.paidAt,
        closedAt: order.closedAt,
        invoices: (invoices.get(order.id) ?? []).map((i) => i.number).join(" "),
      };
    }
    const last = page.at(-1);
    if (!last || rows.length <= exportPageSize) return;
    after = [last.createdAt, last.id];
  }
}

const csvColumns: CsvColumn<ExportedOrder>[] = [
  ["code", (o) => o.code],
  ["state", (o) => o.state],
  ["buyer_name", (o) => o.buyerName],
  ["buyer_email", (o) => o.buyerEmail],
  ["buyer_company", (o) => o.buyerCompany],
  ["buyer_vat_id", (o) => o.buyerVatId],
  ["provider", (o) => o.provider],
  ["payment_reference", (o) => o.paymentReference],
  ["tickets", (o) => o.tickets],
  ["total_minor", (o) => o.totalMinor],
  ["tax_minor", (o) => o.taxMinor],
  ["currency", (o) => o.currency],
  ["created_at", (o) => o.createdAt],
  ["paid_at", (o) => o.paidAt],
  ["closed_at", (o) => o.closedAt],
  ["invoices", (o) => o.invoices],
];

/**
 * The CSV of a filter's orders as a stream read as fast as the consumer takes it (`csvOf`).
 * orders:read is checked before the first byte.
 */
export function exportOrdersCsv(
  db: Db,
  invoicing: Invoicing,
  access: ProjectAccess,
  filter: OrderListFilter,
): Readable {
  assertPermission(access, "orders:read");
  return csvOf(csvColumns, exportOrders(db, invoicing, access, filter));
}
