import { sql } from "kysely";
import type { Db } from "../../db/database.js";

/** SQL for the Overview's figures: aggregates only, always scoped by project. */
export const overviewRepository = {
  /** Each ticket type with its REGISTERED attendees and how many of them are checked in (one statement). */
  ticketTypes(db: Db, projectId: string) {
    return (
      db
        .selectFrom("ticket_types")
        .leftJoin("attendees", (join) =>
          join
            .onRef("attendees.ticket_type_id", "=", "ticket_types.id")
            .on("attendees.status", "=", "REGISTERED"),
        )
        // At most one active check-in per attendee, so counting them counts checked-in attendees.
        .leftJoin("check_ins", (join) =>
          join.onRef("check_ins.attendee_id", "=", "attendees.id").on("check_ins.undone_at", "is", null),
        )
        .select([
          "ticket_types.id",
          "ticket_types.name",
          "ticket_types.quantity",
          "ticket_types.price_minor",
          "ticket_types.currency",
          "ticket_types.sales_start_at",
          "ticket_types.sales_end_at",
          "ticket_types.payment_mode",
          (eb) => eb.fn.count<string>("attendees.id").as("sold"),
          (eb) => eb.fn.count<string>("check_ins.id").as("checked_in"),
        ])
        .where("ticket_types.project_id", "=", projectId)
        .groupBy([
          "ticket_types.id",
          "ticket_types.name",
          "ticket_types.quantity",
          "ticket_types.price_minor",
          "ticket_types.currency",
          "ticket_types.sales_start_at",
          "ticket_types.sales_end_at",
          "ticket_types.payment_mode",
          "ticket_types.created_at",
        ])
        .orderBy("ticket_types.created_at")
        .limit(100)
        .execute()
    );
  },

  /** Active check-ins of the project's REGISTERED attendees. */
  async checkedInCount(db: Db, projectId: string): Promise<number> {
    const row = await db
      .selectFrom("check_ins")
      .innerJoin("attendees", "attendees.id", "check_ins.attendee_id")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("check_ins.project_id", "=", projectId)
      .where("check_ins.undone_at", "is", null)
      .where("attendees.status", "=", "REGISTERED")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /**
   * Registrations per UTC hour ("2026-05-04T09"): the service folds hours into the project's days.
   * Timestamps are ISO text on both engines, so the hour is a prefix.
   */
  registrationsPerHour(db: Db, projectId: string) {
    const hour = sql<string>`substr(registered_at, 1, 13)`;
    return db
      .selectFrom("attendees")
      .select([hour.as("hour"), (eb) => eb.fn.countAll<string>().as("n")])
      .where("project_id", "=", projectId)
      .groupBy(hour)
      .orderBy(hour)
      .limit(20_000)
      .execute();
  },

  /** Active check-ins per UTC quarter hour between `from` and `to` ("2026-05-04T09" and 0..3). */
  checkInsPerQuarter(db: Db, projectId: string, from: string, to: string) {
    const hour = sql<string>`substr(checked_in_at, 1, 13)`;
    const quarter = sql<number>`cast(substr(checked_in_at, 15, 2) as integer) / 15`;
    return db
      .selectFrom("check_ins")
      .select([hour.as("hour"), quarter.as("quarter"), (eb) => eb.fn.countAll<string>().as("n")])
      .where("project_id", "=", projectId)
      .where("undone_at", "is", null)
      .where("checked_in_at", ">=", from)
      .where("checked_in_at", "<", to)
      .groupBy([hour, quarter])
      .orderBy(hour)
      .orderBy(quarter)
      .limit(5_000)
      .execute();
  },
};
