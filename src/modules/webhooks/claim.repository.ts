import { sql } from "kysely";
import type { Db, Engine, Tx } from "../../db/database.js";
import type { DeliveryRow } from "./webhooks.repository.js";

/** What one claim may take, and the lease it puts on what it takes. */
export interface ClaimRequest {
  now: string;
  leaseUntil: string;
  token: string;
  /** How many units (runs or retries) the process may start now. */
  limit: number;
  /** How many units each app may start now (its endpoint's free slots); absent: `perEndpoint`. */
  room: ReadonlyMap<string, number>;
  perEndpoint: number;
  /** The longest run of first attempts of one queue. */
  runLength: number;
}

/**
 * One claimed unit of work: a run of first attempts of one app and project, in commit order, to
 * send one after another; or a single retry (retries do not wait for each other).
 */
export type ClaimedUnit = DeliveryRow[];

interface HeadRow {
  seq: number | string;
  attempts: number;
  locked_until: string | null;
  next_attempt_at: string;
}

/** How many queues (app + project) one claim looks at; the rest wait for the next round. */
const maxQueues = 256;

/**
 * Claims due deliveries for one attempt each: they get `token` as their lease until `leaseUntil`
 * and their attempt number. Only the head of each app + project queue is read (index
 * webhook_deliveries_queue), never every pending row: in `seq` order, due retries are claimable
 * until the first delivery that was never tried or is being tried; a never-tried one starts a run
 * with the never-tried ones right after it. So first attempts go out in commit order, and a retry
 * never holds later events. The plan is read first outside a transaction, so a claim that finds
 * nothing takes no write lock (on SQLite, the one writer lock the API's writes need too).
 */
export async function claimDeliveries(db: Db, engine: Engine, claim: ClaimRequest): Promise<ClaimedUnit[]> {
  if ((await plan(db, claim)).length === 0) return [];
  // Bare: leases and attempt numbers are the dispatcher's own state; no cached answer or access reads them.
  return db.transaction().execute(async (trx) => {
    let units = await plan(trx, claim);
    if (engine === "postgres") units = await lockPrefixes(trx, units, claim.now);
    const seqs = units.flat();
    if (seqs.length === 0) return [];
    const rows = await trx
      .updateTable("webhook_deliveries")
      .set((eb) => ({
        lease_token: claim.token,
        locked_until: claim.leaseUntil,
        attempts: eb("attempts", "+", 1),
      }))
      .where("seq", "in", seqs)
      .returningAll()
      .execute();
    const bySeq = new Map(rows.map((row) => [String(row.seq), row]));
    return units.map((unit) => unit.map((seq) => bySeq.get(String(seq))).filter((r) => r !== undefined));
  });
}

/** The seqs of each claimable unit, queue by queue, within the process's and each app's room. */
async function plan(db: Db | Tx, claim: ClaimRequest): Promise<(number | string)[][]> {
  const units: (number | string)[][] = [];
  const taken = new Map<string, number>();
  for (const queue of await pendingQueues(db)) {
    if (units.length >= claim.limit) break;
    const room = (claim.room.get(queue.app_id) ?? claim.perEndpoint) - (taken.get(queue.app_id) ?? 0);
    if (room <= 0) continue;
    const heads = await db
      .selectFrom("webhook_deliveries")
      .select(["seq", "attempts", "locked_until", "next_attempt_at"])
      .where("status", "=", "PENDING")
      .where("app_id", "=", queue.app_id)
      .where("project_id", "=", queue.project_id)
      // Retries not yet due are skipped in the index range; everything else decides the head.
      .where((eb) =>
        eb.or([
          eb("attempts", "=", 0),
          eb("locked_until", ">=", claim.now),
          eb("next_attempt_at", "<=", claim.now),
        ]),
      )
      .orderBy("seq")
      .limit(room + claim.runLength)
      .execute();
    const found = unitsOf(heads, claim.now, Math.min(room, claim.limit - units.length), claim.runLength);
    taken.set(queue.app_id, (taken.get(queue.app_id) ?? 0) + found.length);
    units.push(...found);
  }
  return units;
}

/**
 * Splits the head of one queue (pending rows in `seq` order) into units: due retries until the
 * first delivery being sent (it holds everything after it) or never tried (a run starts there).
 */
function unitsOf(
  heads: readonly HeadRow[],
  now: string,
  room: number,
  runLength: number,
): (number | string)[][] {
  const units: (number | string)[][] = [];
  for (let i = 0; i < heads.length && units.length < room; i++) {
    const row = heads[i] as HeadRow;
    if (row.locked_until !== null && row.locked_until >= now) break;
    if (row.attempts > 0) {
      if (row.next_attempt_at <= now) units.push([row.seq]);
      continue;
    }
    const run: (number | string)[] = [];
    for (let j = i; j < heads.length && run.length < runLength; j++) {
      const next = heads[j] as HeadRow;
      if (next.attempts > 0 || next.next_attempt_at > now) break;
      run.push(next.seq);
    }
    if (run.length > 0) units.push(run);
    break;
  }
  return units;
}

/**
 * The distinct app + project pairs with pending deliveries, by a loose index scan: each step seeks
 * the next pair after the previous one, so the cost is the number of queues, not of pending rows.
 */
async function pendingQueues(db: Db | Tx): Promise<{ app_id: string; project_id: string }[]> {
  const next = (column: "app_id" | "project_id") => sql`(
    select n.${sql.ref(column)} from webhook_deliveries n
    where n.status = 'PENDING' and (n.app_id, n.project_id) > (q.app_id, q.project_id)
    order by n.status, n.app_id, n.project_id limit 1)`;
  const { rows } = await sql<{ app_id: string; project_id: string }>`
    with recursive queues(app_id, project_id) as (
      select * from (
        select app_id, project_id from webhook_deliveries
        where status = 'PENDING' order by status, app_id, project_id limit 1) first_queue
      union all
      select ${next("app_id")}, ${next("project_id")} from queues q where q.app_id is not null
    )
    select app_id, project_id from queues where app_id is not null limit ${maxQueues}`.execute(db);
  return rows;
}

/**
 * PostgreSQL: locks the planned rows (`FOR UPDATE SKIP LOCKED`) and keeps of each unit only the
 * prefix that is still what the plan read. Another process claiming the same queue at the same
 * moment holds its head, so this one takes nothing there rather than starting after it: a run must
 * begin at the queue's head, or a later event could overtake an earlier one being sent elsewhere.
 */
async function lockPrefixes(
  trx: Tx,
  units: (number | string)[][],
  now: string,
): Promise<(number | string)[][]> {
  const seqs = units.flat();
  if (seqs.length === 0) return [];
  const locked = await trx
    .selectFrom("webhook_deliveries")
    .select(["seq", "attempts"])
    .where("seq", "in", seqs)
    .where("status", "=", "PENDING")
    .where("next_attempt_at", "<=", now)
    .where((eb) => eb.or([eb("locked_until", "is", null), eb("locked_until", "<", now)]))
    .forUpdate()
    .skipLocked()
    .execute();
  const held = new Set(locked.map((row) => String(row.seq)));
  return units
    .map((unit) => {
      const prefix = unit.findIndex((seq) => !held.has(String(seq)));
      return prefix === -1 ? unit : unit.slice(0, prefix);
    })
    .filter((unit) => unit.length > 0);
}
