import type { Db } from "../../db/database.js";

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
  Session: {
    table: "sessions",
    fields: {
      title: "title",
      description: "description",
      startsAt: "starts_at",
      endsAt: "ends_at",
      roomId: "room_id",
      trackId: "track_id",
      capacity: "capacity",
      status: "status",
    },
  },
  Speaker: {
    table: "speakers",
    fields: {
      name: "name",
      bio: "bio",
      company: "company",
      jobTitle: "job_title",
      photoUrl: "photo_url",
      links: "links",
    },
  },
  Track: { table: "tracks", fields: { name: "name", color: "color" } },
  Room: { table: "rooms", fields: { name: "name", capacity: "capacity" } },
  TicketType: {
    table: "ticket_types",
    fields: {
      name: "name",
      description: "description",
      priceMinor: "price_minor",
      currency: "currency",
      quantity: "quantity",
      salesStartAt: "sales_start_at",
      salesEndAt: "sales_end_at",
    },
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
} as const satisfies Record<string, { table: string; fields: Record<string, string | readonly string[]> }>;

type Audited = keyof typeof auditedColumns;

/**
 * The new values of the `changed` fields of one row (without `changed`, as after a creation, every
 * allowlisted field that has a value), from `current` (the row as the write left it) or else read
 * inside the write's transaction after the change; undefined when the kind of object is not in the
 * allowlist or the row is gone (a delete).
 */
export async function valuesAfter(
  db: Db,
  object: { typename: string; id: string },
  changed: readonly string[] | undefined,
  current?: Readonly<Record<string, unknown>>,
): Promise<Record<string, unknown> | undefined> {
  if (!Object.hasOwn(auditedColumns, object.typename)) return undefined;
  const { table, fields } = auditedColumns[object.typename as Audited];
  const columns = fields as Record<string, string | readonly string[]>;
  const row =
    current ??
    ((await db.selectFrom(table).selectAll().where("id", "=", object.id).executeTakeFirst()) as
      | Record<string, unknown>
      | undefined);
  if (!row) return undefined;
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
