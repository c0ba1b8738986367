import { sql } from "kysely";
import { z } from "zod";
import type { Db } from "../../db/database.js";
import { idText, isIsoDateTime } from "../../shared/validation.js";

const instant = z.string().refine(isIsoDateTime, "must be an ISO date-time with a time zone");

/** Whom a message goes to: every registered attendee, narrowed by each field that is set. */
export const messageFilter = z
  .object({
    ticketTypeIds: z.array(idText).max(100).optional(),
    checkedIn: z.boolean().optional(),
    registeredBefore: instant.optional(),
    registeredAfter: instant.optional(),
  })
  .strict();

export type MessageFilter = z.output<typeof messageFilter>;

/**
 * The attendees of a project a filter picks, oldest registration first. Only REGISTERED ones:
 * a cancelled registration, or a pending order's hold, gets no message. Erased attendees keep
 * their row as REGISTERED with an `.invalid` address, so they are left out by that address.
 */
export function recipientsQuery(db: Db, projectId: string, filter: MessageFilter) {
  let query = db
    .selectFrom("attendees as a")
    .innerJoin("ticket_types as t", "t.id", "a.ticket_type_id")
    .select(["a.id", "a.name", "a.email", "a.ticket_code", "t.name as ticket_name"])
    .where("a.project_id", "=", projectId)
    .where("a.status", "=", "REGISTERED")
    .where("a.held_until", "is", null)
    .where("a.email", "not like", "%@erased.invalid");
  if (filter.ticketTypeIds) query = query.where("a.ticket_type_id", "in", [...filter.ticketTypeIds, ""]);
  if (filter.registeredBefore)
    query = query.where("a.registered_at", "<", new Date(filter.registeredBefore).toISOString());
  if (filter.registeredAfter)
    query = query.where("a.registered_at", ">=", new Date(filter.registeredAfter).toISOString());
  if (filter.checkedIn !== undefined) {
    const active = sql<boolean>`exists (select 1 from check_ins c where c.attendee_id = a.id and c.undone_at is null)`;
    query = query.where(filter.checkedIn ? active : sql<boolean>`not ${active}`);
  }
  return query.orderBy("a.registered_at").orderBy("a.id");
}
