import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import {
  DatabaseBusyError,
  type DatabaseHealth,
  DatabaseUnavailableError,
  isConnectionError,
  isPoolBusyError,
} from "./availability.js";
import { isBatchableRead, ReadBatcher, type Session } from "./read-batching.js";
import { batchingTransactions } from "./transaction-batching.js";

// SQL text → name of the PostgreSQL prepared statement, for the statements of `reusableQuery` that
// list their columns. A `select *` is left unnamed: once a migration changes the table, a statement
// prepared before it fails ("cached plan must not change result type") until the process restarts.
const statementNames = new Map<string, string>();

// The named statements each pooled connection has prepared (pg prepares one on its first use there),
// which a batch may then run with `execute` (transaction-batching.ts, read-batching.ts).
const preparedOn = new WeakMap<pg.PoolClient, Set<string>>();

/** Gives `sql` a prepared statement's name, unless it reads `*` (see above). */
export function nameStatement(sql: string): void {
  if (!sql.includes("*") && !statementNames.has(sql)) {
    statementNames.set(sql, `eventgraph_${statementNames.size + 1}`);
  }
}

/**
 * PostgreSQL parses and plans every unnamed statement anew; the hot statements of `reusableQuery`
 * are sent as named prepared statements instead (pg prepares each once per connection), which took
 * a third off the round trip of the data-version check that every cache hit makes. Transactions
 * take fewer round trips (batchingTransactions), and so do reads outside them (ReadBatcher): a
 * connection is checked out at a statement's first use, not when Kysely asks for one.
 *
 * It is also where a lost database stops being fatal. A checked-out client has no `error` listener
 * of the pool's, so a server shutdown arriving between two statements of a transaction was an
 * unhandled `error` event that killed the process: each checkout listens, and a client that failed
 * is released as broken so the pool discards it. Connection failures become
 * DatabaseUnavailableError (503) and open the circuit of `health`; a full pool's wait running out
 * is DatabaseBusyError (503, circuit left closed).
 */
export function withNamedStatements(pool: pg.Pool, health: DatabaseHealth): PostgresPool {
  const checkout = () => checkOut(pool, health);
  const reads = new ReadBatcher(checkout);
  return {
    async connect(): Promise<PostgresPoolClient> {
      let session: Promise<Session> | undefined;
      return {
        query: ((sql: string, parameters: readonly unknown[] = []) => {
          if (!session && statementNames.has(sql) && isBatchableRead(sql)) return reads.read(sql, parameters);
          session ??= checkout();
          return session.then((checkedOut) => checkedOut.query(sql, parameters));
        }) as unknown as PostgresPoolClient["query"],
        release: () => {
          session?.then(
            (checkedOut) => checkedOut.release(),
            () => {},
          );
        },
      };
    },
    end: () => pool.end(),
  };
}

async function checkOut(pool: pg.Pool, health: DatabaseHealth): Promise<Session> {
  if (!health.allowAttempt()) throw new DatabaseUnavailableError();
  const client = await pool.connect().catch((error: unknown) => {
    if (isPoolBusyError(error)) throw new DatabaseBusyError(error);
    if (!isConnectionError(error)) throw error;
    health.markDown(error);
    throw new DatabaseUnavailableError(error);
  });
  health.markUp();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken = error;
  };
  client.on("error", onError);
  // A connection lost mid-use fails its request with 503; the next request's new connection
  // tells whether the database itself is down.
  const fail = (error: unknown): never => {
    if (!isConnectionError(error)) throw error;
    broken ??= error as Error;
    throw new DatabaseUnavailableError(error);
  };
  const preparedHere = preparedOn.get(client) ?? new Set<string>();
  preparedOn.set(client, preparedHere);
  const run = (sql: string, parameters: readonly unknown[]) => {
    if (broken) return Promise.reject(new DatabaseUnavailableError(broken));
    const name = statementNames.get(sql);
    const values = [...parameters];
    if (!name) return client.query(sql, values).catch(fail);
    return client.query({ name, text: sql, values }).then((result) => {
      preparedHere.add(name);
      return result;
    }, fail);
  };
  const named = (sql: string) => {
    const name = statementNames.get(sql);
    return name === undefined ? undefined : { name, prepared: preparedHere.has(name) };
  };
  const send = batchingTransactions(client, run, named);
  return {
    client,
    query: (sql, parameters) =>
      broken ? Promise.reject(new DatabaseUnavailableError(broken)) : send(sql, parameters),
    run,
    runText: (text) =>
      run(text, []).then((result) => (Array.isArray(result) ? result : [result]) as pg.QueryResult[]),
    named,
    release: () => {
      client.removeListener("error", onError);
      client.release(broken);
    },
  };
}

/**
 * Tells whether a PostgreSQL backend process id belongs to one of `pool`'s open connections: the
 * change feed leaves out the notifications of this process's own commits (change-feed.ts). A
 * connection's id is forgotten as it ends, so an id another process's backend gets later is not
 * mistaken for ours.
 */
export function ownBackends(pool: pg.Pool): (pid: number) => boolean {
  const pids = new Set<number>();
  pool.on("connect", (client) => {
    const pid = (client as pg.PoolClient & { processID?: number }).processID;
    if (pid === undefined) return;
    pids.add(pid);
    client.once("end", () => pids.delete(pid));
  });
  pool.on("remove", (client) => {
    const pid = (client as pg.PoolClient & { processID?: number }).processID;
    if (pid !== undefined) pids.delete(pid);
  });
  return (pid) => pids.has(pid);
}
