import { sql } from "kysely";
import type { Db, Engine } from "../../db/database.js";
import type { DeliveryRow } from "./webhooks.repository.js";

/** What one claim of one app's deliveries may take, and the lease it puts on what it takes. */
export interface ClaimRequest {
  appId: string;
  now: string;
  leaseUntil: string;
  token: string;
  /** How many deliveries the app's endpoint may start now (its free slots). */
  room: number;
}

/**
 * How many of an app's pending deliveries one claim looks at, in `seq` order. Whatever could hold
 * a delivery back (an earlier one of its object never tried or being sent) comes before it in
 * `seq`, so it is inside the window whenever the delivery is: the window bounds the cost, never
 * the order. Only an app with more than this many events of a few objects waiting waits for them.
 */
const window = 500;
/** How many apps one round looks at; the rest wait for the next round. */
const maxApps = 256;

/**
 * Claims up to `room` of one app's due deliveries for one attempt each, in one statement: they get
 * `token` as their lease until `leaseUntil` and their attempt number. A delivery is claimable when
 * no earlier pending delivery of the same object (project, typename, id) was never tried or is
 * being sent: so one object's first attempts go out in commit order, one at a time, while
 * different objects go in parallel, and a retry waiting for its time never holds later events.
 * The plan is read first without a write, so a claim that finds nothing takes no write lock (on
 * SQLite, the one writer lock the API's writes need too); the update then takes only planned rows
 * still unleased and due, skipping rows another process is claiming (`FOR UPDATE SKIP LOCKED` on
 * PostgreSQL). A plan read before another process's claim committed sees that claim's rows as
 * never tried, so it holds their objects' later events too: no process starts an object's next
 * event while its previous one is in flight.
 */
export async function claimDeliveries(db: Db, engine: Engine, claim: ClaimRequest): Promise<DeliveryRow[]> {
  if (claim.room <= 0) return [];
  const planned = await plan(db, claim);
  if (planned.length === 0) return [];
  // Bare: leases and attempt numbers are the dispatcher's own state; no cached answer or access reads them.
  const rows = await db
    .updateTable("webhook_deliveries")
    .set((eb) => ({
      lease_token: claim.token,
      locked_until: claim.leaseUntil,
      attempts: eb("attempts", "+", 1),
    }))
    .where("seq", "in", (eb) =>
      eb
        .selectFrom("webhook_deliveries")
        .select("seq")
        .where("seq", "in", planned)
        .where("status", "=", "PENDING")
        .where("next_attempt_at", "<=", claim.now)
        .where((w) => w.or([w("locked_until", "is", null), w("locked_until", "<", claim.now)]))
        .$if(engine === "postgres", (q) => q.forUpdate().skipLocked()),
    )
    .returningAll()
    .execute();
  return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
}

/**
 * The seqs of the app's claimable deliveries: in its window, unleased and due, with no earlier
 * never-tried or leased delivery of the same object (a count over the object's earlier rows).
 * Retries not yet due are left out of the window: they hold nothing and are not claimable.
 */
async function plan(db: Db, claim: ClaimRequest): Promise<(number | string)[]> {
  const { now } = claim;
  const { rows } = await sql<{ seq: number | string }>`
    select seq from (
      select seq, locked_until, next_attempt_at,
        count(case when attempts = 0 or locked_until >= ${now} then 1 end) over (
          partition by project_id, object_typename, object_id order by seq
          rows between unbounded preceding and 1 preceding) as holding
      from (
        select seq, project_id, object_typename, object_id, attempts, locked_until, next_attempt_at
        from webhook_deliveries
        where status = 'PENDING' and app_id = ${claim.appId}
          and (attempts = 0 or locked_until >= ${now} or next_attempt_at <= ${now})
        order by seq limit ${window}) head
    ) ranked
    where holding = 0 and (locked_until is null or locked_until < ${now}) and next_attempt_at <= ${now}
    order by seq limit ${claim.room}`.execute(db);
  return rows.map((row) => row.seq);
}

/**
 * The apps with pending deliveries, by a loose index scan over webhook_deliveries_pending: each
 * step seeks the next app after the previous one, so the cost is the number of apps, not of rows.
 */
export async function pendingApps(db: Db): Promise<string[]> {
  const { rows } = await sql<{ app_id: string }>`
    with recursive apps(app_id) as (
      select * from (
        select app_id from webhook_deliveries
        where status = 'PENDING' order by app_id limit 1) first_app
      union all
      select (
        select n.app_id from webhook_deliveries n
        where n.status = 'PENDING' and n.app_id > a.app_id order by n.app_id limit 1)
      from apps a where a.app_id is not null
    )
    select app_id from apps where app_id is not null limit ${maxApps}`.execute(db);
  return rows.map((row) => row.app_id);
}
