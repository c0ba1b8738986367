import type SQLite from "better-sqlite3";
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
  type Transaction,
} from "kysely";
import { endedTransaction, type QueryLogEvent, TransactionEndedError } from "./sqlite-direct.js";
import { WaitingForLockDialect } from "./sqlite-lock-wait.js";

/** The savepoint each transaction after the first of a group runs in. */
const memberSavepoint = "eventgraph_group_member";

// Most transactions one commit may carry: a bound on how long the first of them waits.
const maxMembers = 64;

/**
 * The connection as one caller got it: a statement it sends after its transaction ended, or after
 * its work failed, is refused rather than run in whatever transaction holds the connection then.
 */
interface Lent extends DatabaseConnection {
  raw: DatabaseConnection;
  ended: boolean;
}

/** One SQLite transaction carrying the work of several of ours; committed once, for all of them. */
class Group {
  members = 0;
  readonly committed: Promise<void>;
  settle!: (error?: unknown) => void;
  constructor() {
    this.committed = new Promise<void>((resolve, reject) => {
      this.settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    // Only callers that asked (`commitOf`) wait for it; a failed group must not be an unhandled rejection.
    this.committed.catch(() => {});
  }
}

/**
 * Group commit for the one SQLite connection that writes. Kysely runs one transaction at a time on
 * it, and a COMMIT writes every page the transaction changed to the WAL: a check-in's row, the
 * pages of its five indexes, the audit entry's and the project's version counters. Transactions that
 * queue for the connection share most of those pages, so when one ends while others wait, its
 * COMMIT is put off and the next one runs inside the same SQLite transaction, in a savepoint of its
 * own: rolled back alone if it fails, kept otherwise. The last of the group (nobody waiting, or
 * `maxMembers` reached) commits for all of them, or a flush queued behind the transactions that were
 * waiting when the first COMMIT was put off does. So a transaction's answer waits for those
 * transactions, each as long as it runs: well under a millisecond for a check-in, tens of ms for a batch of
 * an attendee import, which before would have made only the transactions after it wait.
 *
 * Nothing is answered before it is committed: a transaction of `inTransaction` takes its group's
 * promise (`commitOf`) and waits for it before it returns, and any other transaction (one that did
 * not ask) commits the group at once when it ends. Nobody else sees a group's writes before its
 * COMMIT either: reads from outside a transaction run on another connection (sqlite-direct.ts), and a
 * statement that runs on this connection outside a transaction commits the open group first. If the
 * COMMIT fails (a full disk), every transaction of the group fails with its error. So no constraint
 * of the schema may be deferred: checked at the COMMIT, its violation by one transaction would be
 * every member's error (sqlite-group-commit.test.ts checks the schema).
 *
 * A transaction's statements run inside it and nowhere else. Each caller gets the connection through
 * a handle of its own (`Lent`), closed as its transaction ends or its work fails: a statement still
 * queued then (one of several sent at once, one of which failed) or sent later is refused instead of
 * running outside its savepoint, where it would have been committed with the others' writes.
 */
export class GroupCommit {
  // Callers waiting for the connection, transactions or not.
  private waiting = 0;
  // The SQLite transaction open on the connection, between BEGIN and COMMIT.
  private group: Group | undefined;
  // Whether a transaction of ours is running on the connection (between its begin and its end), and
  // whether it asked to wait for its group's commit.
  private running = false;
  private asked = false;
  // A flush queued for the connection, behind the transactions waiting when a commit was put off.
  private flushQueued = false;
  // Why the running transaction's work failed, as its caller will hear (see `failed`).
  private failure: unknown;
  // The handle the running transaction got the connection through.
  private lent: Lent | undefined;

  // The driver's own methods, before the constructor replaced them.
  private readonly acquire: Driver["acquireConnection"];
  private readonly release: Driver["releaseConnection"];
  private readonly begin: Driver["beginTransaction"];
  private readonly commitNow: Driver["commitTransaction"];
  private readonly rollback: Driver["rollbackTransaction"];

  /** Groups the transactions of `driver` (whose one connection is `sqlite`) from now on. */
  constructor(
    driver: Driver,
    private readonly sqlite: SQLite.Database,
    log: ((event: QueryLogEvent) => void) | undefined,
  ) {
    this.acquire = driver.acquireConnection.bind(driver);
    this.release = driver.releaseConnection.bind(driver);
    this.begin = driver.beginTransaction.bind(driver);
    this.commitNow = driver.commitTransaction.bind(driver);
    this.rollback = driver.rollbackTransaction.bind(driver);
    const logged = new WeakSet<DatabaseConnection>();
    driver.acquireConnection = async () => {
      this.waiting++;
      let raw: DatabaseConnection;
      try {
        raw = await this.acquire();
      } finally {
        this.waiting--;
      }
      // Logged here rather than by Kysely, which sees only the handles: so are BEGIN, SAVEPOINT and
      // the COMMIT of a flush, which run on the connection itself.
      if (log && !logged.has(raw)) {
        withLogging(raw, log);
        logged.add(raw);
      }
      const lent: Lent = {
        raw,
        ended: false,
        executeQuery: async (query) => {
          if (lent.ended) throw new TransactionEndedError();
          // Outside a transaction of ours, a statement first commits the group it would otherwise join.
          // A failed COMMIT is its group's callers' error, not this statement's.
          if (this.group && !this.running) await this.commit(raw).catch(() => {});
          return raw.executeQuery(query);
        },
        streamQuery: (query, chunkSize) => {
          if (lent.ended) throw new TransactionEndedError();
          return raw.streamQuery(query, chunkSize);
        },
      };
      return lent;
    };
    driver.releaseConnection = async (connection) => {
      (connection as Lent).ended = true;
      await this.release((connection as Lent).raw);
    };
    driver.beginTransaction = (connection, settings) => this.beginOn(connection, settings);
    driver.commitTransaction = (connection) => this.commitOn(connection);
    driver.rollbackTransaction = (connection) => this.rollbackOn(connection);
  }

  /** The promise of the commit that will carry the running transaction's writes; it then waits for it. */
  ticket(): Promise<void> | undefined {
    if (!this.running || !this.group) return undefined;
    this.asked = true;
    return this.group.committed;
  }

  /** The running transaction's work failed with `error`; Kysely rolls it back next. */
  failed(error: unknown): void {
    if (!this.running) return;
    this.failure = error;
    // Nothing more of its work runs: what it still sends would land outside its savepoint.
    if (this.lent) this.lent.ended = true;
  }

  // The transaction of `lent` ends: later statements of it are refused. The raw connection.
  private end(lent: DatabaseConnection): DatabaseConnection {
    (lent as Lent).ended = true;
    return (lent as Lent).raw;
  }

  private async beginOn(lent: DatabaseConnection, settings: Parameters<Driver["beginTransaction"]>[1]) {
    const connection = (lent as Lent).raw;
    this.lent = lent as Lent;
    this.running = true;
    this.asked = false;
    this.failure = undefined;
    try {
      if (this.group) await this.run(connection, `savepoint ${memberSavepoint}`);
      else {
        await this.begin(connection, settings);
        this.group = new Group();
      }
    } catch (error) {
      this.running = false;
      throw error;
    }
  }

  private async commitOn(lent: DatabaseConnection) {
    const connection = this.end(lent);
    const group = this.group as Group;
    try {
      if (group.members > 0) await this.run(connection, `release ${memberSavepoint}`);
    } finally {
      this.running = false;
    }
    group.members++;
    if (this.asked && this.waiting > 0 && group.members < maxMembers) this.flushLater();
    else await this.commit(connection);
  }

  private async rollbackOn(lent: DatabaseConnection) {
    const connection = this.end(lent);
    const group = this.group;
    try {
      if (!group || group.members === 0) {
        // The first of a group (or a group whose COMMIT failed and was rolled back already).
        this.group = undefined;
        await this.rollback(connection);
        return;
      }
      if (!this.sqlite.inTransaction) {
        // SQLite rolled the whole transaction back by itself (a full disk): the group is lost, and
        // its other members fail with the same error, which says what happened (DISK_FULL).
        this.group = undefined;
        group.settle(this.failure ?? new Error("SQLite rolled the transaction back"));
        return;
      }
      try {
        await this.run(connection, `rollback to ${memberSavepoint}`);
        await this.run(connection, `release ${memberSavepoint}`);
      } catch (error) {
        // The savepoint could not be undone alone: nothing of the group is kept.
        this.group = undefined;
        group.settle(error);
        await this.rollback(connection).catch(() => {});
        throw error;
      }
    } finally {
      this.running = false;
    }
    // The members before this one are still to be committed; their callers wait for that.
    if (this.waiting > 0) this.flushLater();
    else await this.commit(connection).catch(() => {});
  }

  // COMMITs the open group and settles its promise; a failed COMMIT rolls it back and is thrown.
  private async commit(connection: DatabaseConnection): Promise<void> {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    try {
      await this.commitNow(connection);
      group.settle();
    } catch (error) {
      group.settle(error);
      if (this.sqlite.inTransaction) await this.rollback(connection).catch(() => {});
      throw error;
    }
  }

  // Queues for the connection behind everyone waiting now, and commits the group if it is still open.
  private flushLater(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    void (async () => {
      const connection = await this.acquire();
      try {
        if (this.group && !this.running) await this.commit(connection);
      } catch {
        // The group's callers have its error.
      } finally {
        this.flushQueued = false;
        await this.release(connection);
      }
    })();
  }

  private async run(connection: DatabaseConnection, sql: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(sql));
  }
}

/**
 * The SQLite dialect of a server: statements wait for locks on the event loop, transactions commit
 * in groups unless `grouped` is false (fast path `group-commit`, config.ts, read in openDatabase).
 * The invariant of the fast path: a transaction is answered only once its group is committed, a
 * failed member is rolled back alone, and nobody sees a group's writes before its COMMIT; guarded
 * by sqlite-group-commit.test.ts. Off, every transaction commits on its own.
 */
export class GroupCommitDialect extends WaitingForLockDialect {
  groupCommit: GroupCommit | undefined;

  /** `log` hears of every statement run on the connection (Kysely's own `log` must then be unset). */
  constructor(
    config: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
    private readonly log?: (event: QueryLogEvent) => void,
    private readonly grouped = true,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    if (this.grouped) this.groupCommit = new GroupCommit(driver, this.sqlite, this.log);
    return driver;
  }
}

// Reports each statement of `connection` to `log`, as Kysely's `log` option would.
function withLogging(connection: DatabaseConnection, log: (event: QueryLogEvent) => void): void {
  const execute = connection.executeQuery.bind(connection);
  connection.executeQuery = async <R>(query: CompiledQuery) => {
    const start = performance.now();
    try {
      const result = await execute<R>(query);
      log({ level: "query", query, queryDurationMillis: performance.now() - start });
      return result;
    } catch (error) {
      log({ level: "error", query, queryDurationMillis: performance.now() - start });
      throw error;
    }
  };
}

// The group commit of each SQLite database, by its adapter (shared by the database and its transactions).
const groupCommits = new WeakMap<object, GroupCommit>();

/** Registers the group commit of a database whose adapter is `adapter`. */
export function registerGroupCommit(adapter: object, groupCommit: GroupCommit): void {
  groupCommits.set(adapter, groupCommit);
}

/** Called by a transaction whose work failed, before it is rolled back (see GroupCommit.failed). */
export function failedIn(trx: Pick<Transaction<unknown>, "getExecutor">, error: unknown): void {
  const groupCommit = groupCommits.get(trx.getExecutor().adapter);
  if (!groupCommit) return;
  endedTransaction(trx);
  groupCommit.failed(error);
}

/**
 * Called by a transaction at the end of its work: the promise of the COMMIT that will carry it
 * (the transaction then waits for it, see GroupCommit), or undefined on PostgreSQL.
 */
export function commitOf(trx: Pick<Transaction<unknown>, "getExecutor">): Promise<void> | undefined {
  const groupCommit = groupCommits.get(trx.getExecutor().adapter);
  if (!groupCommit) return undefined;
  endedTransaction(trx);
  return groupCommit.ticket();
}
