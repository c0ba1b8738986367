import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import {
  DatabaseBusyError,
  type DatabaseHealth,
  DatabaseUnavailableError,
  isConnectionError,
  isPoolBusyError,
  isStatementTimeout,
  StatementTimeoutError,
} from "./availability.js";

// SQL text → name of the PostgreSQL prepared statement, for the statements of `reusableQuery` that
// list their columns. A `select *` is left unnamed: once a migration changes the table, a statement
// prepared before it fails ("cached plan must not change result type") until the process restarts.
const statementNames = new Map<string, string>();

/** Gives `sql` a prepared statement's name, unless it reads `*` (see above). */
export function nameStatement(sql: string): void {
  if (!sql.includes("*") && !statementNames.has(sql)) {
    statementNames.set(sql, `eventgraph_${statementNames.size + 1}`);
  }
}

/** One checked-out connection: runs statements, each with its values as bind parameters. */
interface Session {
  run(sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult>;
  release(): void;
}

/**
 * PostgreSQL parses and plans every unnamed statement anew; the hot statements of `reusableQuery`
 * are sent as named prepared statements instead (pg prepares each once per connection), which took
 * a third off the round trip of the data-version check that every cache hit makes. Every value
 * travels as a bind parameter, never written into the SQL text. A connection is checked out at a
 * statement's first use, not when Kysely asks for one.
 *
 * It is also where a lost database stops being fatal. A checked-out client has no `error` listener
 * of the pool's, so a server shutdown arriving between two statements of a transaction was an
 * unhandled `error` event that killed the process: each checkout listens, and a client that failed
 * is released as broken so the pool discards it. Connection failures become
 * DatabaseUnavailableError (503) and open the circuit of `health`; a full pool's wait running out
 * is DatabaseBusyError (503, circuit left closed); a statement the server cancelled for running
 * past `statement_timeout` is StatementTimeoutError (503 TIMEOUT).
 */
export function withNamedStatements(pool: pg.Pool, health: DatabaseHealth): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      let session: Promise<Session> | undefined;
      return {
        query: ((sql: string, parameters: readonly unknown[] = []) => {
          session ??= checkOut(pool, health);
          return session.then((checkedOut) => checkedOut.run(sql, parameters));
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
  const guard = guardCheckedOut(client);
  // A connection lost mid-use fails its request with 503; the next request's new connection
  // tells whether the database itself is down.
  const fail = (error: unknown): never => {
    if (isStatementTimeout(error)) throw new StatementTimeoutError(error);
    if (!isConnectionError(error)) throw error;
    guard.fail(error as Error);
    throw new DatabaseUnavailableError(error);
  };
  return {
    run: (sql, parameters) => {
      const broken = guard.broken();
      if (broken) return Promise.reject(new DatabaseUnavailableError(broken));
      const name = statementNames.get(sql);
      const values = [...parameters];
      return (name ? client.query({ name, text: sql, values }) : client.query(sql, values)).catch(fail);
    },
    release: guard.release,
  };
}

/**
 * What every holder of a checked-out client must do, in one place. pg emits `error` on a client
 * whose connection ends unexpectedly, a query in flight or not, and the pool takes its own listener
 * off a client while it is checked out: unheard, that event kills the process (a server cut off
 * from PostgreSQL while /readyz's probe held a connection died this way). So the client is listened
 * to until it is released, and a client that failed is released as broken, for the pool to discard.
 */
export function guardCheckedOut(client: pg.PoolClient): {
  broken(): Error | undefined;
  fail(error: Error): void;
  release(): void;
} {
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  return {
    broken: () => broken,
    fail: onError,
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
