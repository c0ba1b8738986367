import { sql } from "kysely";
import type { Db } from "../../db/database.js";

/**
 * SQL for the Overview's figures, always scoped by project. They read the counters the database
 * keeps in every writing transaction (migration 2026-11-28T21-00_overview-counts), never the
 * attendees or check-ins themselves: a few rows per project, whatever the attendee count.
 */
export const overviewRepository = {
  /** Each ticket type with its REGISTERED attendees and how many of them are checked in (one statement). */
  ticketTypes(db: Db, projectId: string) {
    return db
      .selectFrom("ticket_types")
      .leftJoin("overview_ticket_counts as counts", "counts.ticket_type_id", "ticket_types.id")
      .select([
        "ticket_types.id",
        "ticket_types.name",
        "ticket_types.quantity",
        "ticket_types.price_minor",
        "ticket_types.currency",
        "ticket_types.sales_start_at",
        "ticket_types.sales_end_at",
        "ticket_types.payment_mode",
        (eb) => eb.fn.coalesce("counts.registered", eb.lit(0)).as("sold"),
        (eb) => eb.fn.coalesce("counts.checked_in", eb.lit(0)).as("checked_in"),
      ])
      .where("ticket_types.project_id", "=", projectId)
      .orderBy("ticket_types.created_at")
      .limit(100)
      .execute();
  },

  /** Orders awaiting payment and paid, counted and summed per currency and provider (one statement). */
  orderTotals(db: Db, projectId: string) {
    return db
      .selectFrom("orders")
      .select(["state", "currency", "provider"])
      .select((eb) => [
        eb.fn.countAll<string | number>().as("n"),
        // Net of refunds (a fully refunded order is REFUNDED and left out): what the organizer keeps.
        eb.fn.sum<string | number>(sql<number>`total_minor - refunded_minor`).as("total"),
      ])
      .where("project_id", "=", projectId)
      .where("state", "in", ["PENDING", "PAID"])
      .groupBy(["state", "currency", "provider"])
      .execute();
  },

  /** REGISTERED attendees of the project with an active check-in. */
  async checkedInCount(db: Db, projectId: string): Promise<number> {
    const row = await db
      .selectFrom("overview_ticket_counts as counts")
      .innerJoin("ticket_types", "ticket_types.id", "counts.ticket_type_id")
      .select((eb) => eb.fn.sum<string | number | null>("counts.checked_in").as("n"))
      .where("ticket_types.project_id", "=", projectId)
      .executeTakeFirstOrThrow();
    return Number(row.n ?? 0);
  },

  /** Registrations (any status) per UTC hour ("2026-05-04T09"): the service folds hours into the project's days. */
  registrationsPerHour(db: Db, projectId: string) {
    return db
      .selectFrom("overview_registrations")
      .select(["hour", "registrations as n"])
      .where("project_id", "=", projectId)
      .where("registrations", ">", 0)
      .orderBy("hour")
      .limit(20_000)
      .execute();
  },

  /** Active check-ins per UTC quarter hour ("2026-05-04T09" and 0..3), of the hours `fromHour` to `toHour`. */
  checkInsPerQuarter(db: Db, projectId: string, fromHour: string, toHour: string) {
    return db
      .selectFrom("overview_check_ins")
      .select(["hour", "quarter", "check_ins as n"])
      .where("project_id", "=", projectId)
      .where("check_ins", ">", 0)
      .where("hour", ">=", fromHour)
      .where("hour", "<=", toHour)
      .orderBy("hour")
      .orderBy("quarter")
      .limit(5_000)
      .execute();
  },
};
