import { type RawBuilder, SqliteAdapter, sql } from "kysely";
import type { Db, Tx } from "../../db/database.js";
import type { AttemptRow, DeliveryRow } from "./webhooks.repository.js";

/** The columns an attempt's result may set on its delivery, with their PostgreSQL types. */
const resultColumns = {
  status: "text",
  payload: "text",
  response_status: "integer",
  last_error: "text",
  delivered_at: "text",
  next_attempt_at: "text",
} as const;

type ResultColumn = keyof typeof resultColumns;

/** What one attempt came to: the delivery's new state, and the request's log row if one was sent. */
export interface AttemptResult {
  deliveryId: string;
  /** The lease the attempt was sent under: a result whose lease was taken over is not recorded. */
  token: string;
  patch: Partial<Pick<DeliveryRow, ResultColumn>>;
  attempt?: AttemptRow;
}

/**
 * Records the results of attempts answered together in one transaction (one commit, one WAL
 * flush), each only if its lease is still its own (no other process took the delivery over),
 * with its attempt row when a request was sent; answers the ids recorded. The lease is cleared
 * with the result. `health` is each endpoint's latest answer: a success clears `failing_since`,
 * a failure sets it unless it is set (so it keeps when the failures began), both decided on the
 * stored value. Results that set the same columns are written by one statement, and the attempt
 * rows by one more: a batch costs a few statements, not two per result (on PostgreSQL each
 * statement is a round trip and a system call or two, which was most of a delivery's CPU).
 */
export async function finishAttempts(
  db: Db,
  results: readonly AttemptResult[],
  health: readonly { appId: string; ok: boolean; at: string }[],
): Promise<Set<string>> {
  // Bare: attempt results and endpoint health are the dispatcher's own state, read by no access decision.
  return db.transaction().execute(async (trx) => {
    for (const endpoint of health)
      await trx
        .updateTable("webhook_endpoints")
        .set({ failing_since: endpoint.ok ? null : endpoint.at })
        .where("app_id", "=", endpoint.appId)
        .where("failing_since", endpoint.ok ? "is not" : "is", null)
        .execute();
    const bySetColumns = new Map<string, AttemptResult[]>();
    for (const result of results) {
      const key = columnsOf(result).join(" ");
      bySetColumns.set(key, [...(bySetColumns.get(key) ?? []), result]);
    }
    const recorded = new Set<string>();
    for (const group of bySetColumns.values())
      for (const id of await recordGroup(trx, group)) recorded.add(id);
    const attempts = results.flatMap((r) => (r.attempt && recorded.has(r.deliveryId) ? [r.attempt] : []));
    if (attempts.length > 0) await trx.insertInto("webhook_attempts").values(attempts).execute();
    return recorded;
  });
}

function columnsOf(result: AttemptResult): ResultColumn[] {
  return (Object.keys(resultColumns) as ResultColumn[]).filter((c) => result.patch[c] !== undefined);
}

/**
 * One statement for results that set the same columns: the results travel as one JSON parameter,
 * joined to their deliveries by id and lease; answers the ids whose lease was still their own.
 */
async function recordGroup(trx: Tx, group: AttemptResult[]): Promise<string[]> {
  const first = group[0];
  if (!first) return [];
  const columns = columnsOf(first);
  const json = JSON.stringify(
    group.map((r) => ({
      id: r.deliveryId,
      token: r.token,
      ...Object.fromEntries(columns.map((c) => [c, r.patch[c]])),
    })),
  );
  const sqlite = trx.getExecutor().adapter instanceof SqliteAdapter;
  const set = sql.join([
    ...columns.map((c) => sql`${sql.id(c)} = v.${sql.id(c)}`),
    sql`lease_token = null`,
    sql`locked_until = null`,
  ]);
  let rows: RawBuilder<{ id: string }>;
  if (sqlite) {
    const fields = sql.join(
      ["id", "token", ...columns].map((c) => sql`json_extract(value, ${`$.${c}`}) as ${sql.id(c)}`),
    );
    rows = sql<{ id: string }>`
      update webhook_deliveries set ${set}
      from (select ${fields} from json_each(${json})) as v
      where webhook_deliveries.id = v.id and webhook_deliveries.lease_token = v.token
      returning webhook_deliveries.id`;
  } else {
    const types = sql.join(
      ["id", "token", ...columns].map(
        (c) =>
          sql`${sql.id(c)} ${sql.raw(c === "id" || c === "token" ? "text" : resultColumns[c as ResultColumn])}`,
      ),
    );
    rows = sql<{ id: string }>`
      update webhook_deliveries d set ${set}
      from jsonb_to_recordset(${json}::jsonb) as v(${types})
      where d.id = v.id and d.lease_token = v.token
      returning d.id`;
  }
  return (await rows.execute(trx)).rows.map((row) => row.id);
}
