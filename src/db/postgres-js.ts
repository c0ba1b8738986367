import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from "kysely";
import postgres from "postgres";
import {
  DatabaseBusyError,
  type DatabaseHealth,
  DatabaseUnavailableError,
  isConnectionError,
  isStatementTimeout,
  StatementTimeoutError,
} from "./availability.js";

/** What openDatabase hands the postgres.js dialect: the same essentials as its pg pool. */
interface PostgresJsOptions {
  poolSize: number;
  statementTimeoutMs: number | undefined;
  health: DatabaseHealth;
}

/** A postgres.js database: the Kysely dialect, and what openDatabase reports of it. */
interface PostgresJs {
  dialect: Dialect;
  ping(): Promise<void>;
  /** Whether a backend process id is one of this process's connections (the change feed's filter). */
  isOwnBackend(pid: number): boolean;
}

// As pg's connectionTimeoutMillis: how long a transaction waits for a connection of its own.
const reserveTimeoutMs = 5000;

/**
 * Trial (issue 36): PostgreSQL through postgres.js instead of pg, chosen by openDatabase's
 * `postgresDriver`. A statement outside a transaction goes to the pool itself, which pipelines
 * statements sent at the same time onto its connections once every connection is busy; a
 * transaction reserves one connection from BEGIN to COMMIT. Every statement is prepared (once per
 * connection, by its text and parameter types) and its values travel as bind parameters: an
 * unprepared statement with parameters costs postgres.js a second round trip to learn their types.
 */
export function postgresJs(url: string, options: PostgresJsOptions): PostgresJs {
  const { health } = options;
  const pids = new Set<number>();
  const sql = postgres(url, {
    max: options.poolSize,
    prepare: true,
    connect_timeout: 5,
    onnotice: () => {},
    ...(options.statementTimeoutMs === undefined
      ? {}
      : {
          connection: {
            statement_timeout: options.statementTimeoutMs,
            idle_in_transaction_session_timeout: options.statementTimeoutMs,
          },
        }),
  });
  const fail = (error: unknown): never => {
    if (isStatementTimeout(error)) throw new StatementTimeoutError(error);
    if (!isConnectionError(error) && !isDriverConnectionError(error)) throw error;
    health.markDown(error);
    throw new DatabaseUnavailableError(error);
  };
  const run = async (runner: postgres.Sql, query: CompiledQuery): Promise<QueryResult<unknown>> => {
    if (!health.allowAttempt()) throw new DatabaseUnavailableError();
    const result = await runner
      .unsafe(query.sql, query.parameters as postgres.ParameterOrJSON<never>[], { prepare: true })
      .catch(fail);
    health.markUp();
    const pid = (result as { state?: { pid?: number } }).state?.pid;
    if (pid !== undefined) pids.add(pid);
    const { command, count } = result;
    return {
      // A plain array, as pg gives: postgres.js's Result is an Array subclass with its own fields.
      rows: result.slice(),
      ...(command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE"
        ? { numAffectedRows: BigInt(count) }
        : {}),
    };
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => new Connection(sql, run),
    beginTransaction: async (connection) => {
      await (connection as Connection).reserve();
      await connection.executeQuery(CompiledQuery.raw("begin"));
    },
    commitTransaction: async (connection) => {
      await connection.executeQuery(CompiledQuery.raw("commit"));
    },
    rollbackTransaction: async (connection) => {
      await connection.executeQuery(CompiledQuery.raw("rollback"));
    },
    releaseConnection: async (connection) => (connection as Connection).release(),
    destroy: () => sql.end({ timeout: 5 }),
  };
  return {
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    async ping() {
      try {
        await sql`select 1`;
      } catch (error) {
        if (isConnectionError(error) || isDriverConnectionError(error)) health.markDown(error);
        throw error;
      }
      health.markUp();
    },
    isOwnBackend: (pid) => pids.has(pid),
  };
}

/** postgres.js's own connection failures carry codes of their own (errors.js), not SQLSTATEs. */
function isDriverConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^(CONNECTION_|CONNECT_TIMEOUT)/.test(code);
}

/** One Kysely connection: the pool itself, or inside a transaction a reserved connection. */
class Connection implements DatabaseConnection {
  private reserved: postgres.ReservedSql | undefined;

  constructor(
    private readonly sql: postgres.Sql,
    private readonly run: (runner: postgres.Sql, query: CompiledQuery) => Promise<QueryResult<unknown>>,
  ) {}

  async reserve(): Promise<void> {
    const reserving = this.sql.reserve();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DatabaseBusyError()), reserveTimeoutMs);
    });
    try {
      this.reserved = await Promise.race([reserving, timeout]);
    } catch (error) {
      // A connection that comes after the wait ran out goes straight back to the pool.
      reserving.then(
        (late) => late.release(),
        () => {},
      );
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.run(this.reserved ?? this.sql, query) as Promise<QueryResult<R>>;
  }

  // biome-ignore lint/correctness/useYield: the API reads no stream on PostgreSQL.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streamQuery is not supported by the postgres.js trial");
  }

  release(): void {
    this.reserved?.release();
    this.reserved = undefined;
  }
}
