import type { Db } from "../../db/database.js";
import type { DomainEvent } from "../../shared/project-changes.js";
import {
  roomFieldColumns,
  sessionFieldColumns,
  speakerFieldColumns,
  trackFieldColumns,
} from "../agenda/agenda-rows.js";
import { ticketTypeFieldColumns } from "../tickets/tickets.service.js";

/**
 * The fields of each kind of project row whose new values the audit log may show, keyed by the
 * GraphQL field names writes report as changed, each with the column it is stored in. An allowlist:
 * a field not named here (ids, hashes, anything added later) is logged by name only, so a new secret
 * column can never leak into the log by accident.
 */
const auditedColumns = {
  Project: {
    table: "projects",
    fields: {
      name: "name",
      description: "description",
      timezone: "timezone",
      startsAt: "starts_at",
      endsAt: "ends_at",
      website: "website",
      status: "status",
      venue: ["venue_name", "venue_address", "venue_city", "venue_country"],
    },
  },
  Session: { table: "sessions", fields: sessionFieldColumns },
  Speaker: { table: "speakers", fields: { ...speakerFieldColumns, links: "links" } },
  Track: { table: "tracks", fields: trackFieldColumns },
  Room: { table: "rooms", fields: roomFieldColumns },
  TicketType: {
    table: "ticket_types",
    fields: { ...ticketTypeFieldColumns, paymentMode: "payment_mode", hidden: "hidden" },
  },
  Attendee: {
    table: "attendees",
    fields: {
      name: "name",
      email: "email",
      company: "company",
      ticketTypeId: "ticket_type_id",
      status: "status",
    },
  },
  Order: {
    table: "orders",
    fields: {
      code: "code",
      buyerName: "buyer_name",
      buyerEmail: "buyer_email",
      state: "state",
      totalMinor: "total_minor",
      currency: "currency",
      provider: "provider",
      holdExpiresAt: "hold_expires_at",
      discountCode: "discount_code",
      discountMinor: "discount_minor",
    },
  },
  // Shown to owners and admins only (audit.visibility names no permission for it): a code is a secret.
  DiscountCode: {
    table: "discount_codes",
    fields: {
      code: "code",
      kind: "kind",
      percentOff: "percent_off",
      amountOffMinor: "amount_off_minor",
      maxUses: "max_uses",
      maxPerOrder: "max_per_order",
      validFrom: "valid_from",
      validUntil: "valid_until",
      batch: "batch",
    },
  },
} as const satisfies Record<string, { table: string; fields: Record<string, string | readonly string[]> }>;

type Audited = keyof typeof auditedColumns;

/** Amounts in minor units, each with the column naming its currency, so a reader sees 99.00 → 9,900.00. */
const moneyFields: Partial<Record<Audited, Record<string, string>>> = {
  TicketType: { priceMinor: "currency" },
  Order: { totalMinor: "currency", discountMinor: "currency" },
};

/**
 * One field a write changed as the log stores it: the value after, the value before when the write
 * knew it (absent on a creation and in entries older than this format), and for an amount its currency.
 */
export interface FieldChange {
  field: string;
  after: unknown;
  before?: unknown;
  currency?: string;
}

type Row = Readonly<Record<string, unknown>>;

function pick(
  columns: Record<string, string | readonly string[]>,
  row: Row,
  changed: readonly string[] | undefined,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (!changed) {
    for (const [field, column] of Object.entries(columns)) {
      const value = typeof column === "string" ? row[column] : undefined;
      if (value !== null && value !== undefined) values[field] = value;
    }
    return values;
  }
  for (const field of changed) {
    const column = Object.hasOwn(columns, field) ? columns[field] : undefined;
    if (typeof column === "string") values[field] = row[column];
    else if (column) values[field] = Object.fromEntries(column.map((c) => [c, row[c]]));
    else values[field] = null;
  }
  return values;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The changes of one write to record. Values passed with the event stand as given. Otherwise, for an
 * allowlisted kind of row, the new values of the `changed` fields (without `changed`, as after a
 * creation, every allowlisted field that has a value) come from `event.row` (the row as the write
 * left it) or else are read inside the write's transaction; when the write passed the row as it was
 * (`event.before`), each field carries its old value too and a field whose value did not move is
 * left out: a form sends every field, and a reader must see the one that changed. Undefined when
 * the kind of object is not in the allowlist or the row is gone (a delete).
 */
export async function recordedChanges(db: Db, event: DomainEvent): Promise<FieldChange[] | undefined> {
  if (event.values) return Object.entries(event.values).map(([field, after]) => ({ field, after }));
  const { object, changed } = event;
  if (!Object.hasOwn(auditedColumns, object.typename)) return undefined;
  const kind = object.typename as Audited;
  const { table, fields } = auditedColumns[kind];
  const columns = fields as Record<string, string | readonly string[]>;
  const row =
    event.row ??
    ((await db.selectFrom(table).selectAll().where("id", "=", object.id).executeTakeFirst()) as
      | Row
      | undefined);
  if (!row) return undefined;
  const after = pick(columns, row, changed);
  const before = event.before ? pick(columns, event.before, changed) : undefined;
  const money = moneyFields[kind] ?? {};
  const result: FieldChange[] = [];
  for (const [field, value] of Object.entries(after)) {
    // A field outside the allowlist is logged by name only: that it was sent is all the log knows.
    const known = before !== undefined && Object.hasOwn(columns, field);
    if (known && same(before[field], value)) continue;
    const change: FieldChange = known
      ? { field, before: before[field] ?? null, after: value }
      : { field, after: value };
    const currencyColumn = Object.hasOwn(money, field) ? money[field] : undefined;
    if (currencyColumn && typeof row[currencyColumn] === "string") change.currency = row[currencyColumn];
    result.push(change);
  }
  return result;
}
