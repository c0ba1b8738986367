import type pg from "pg";
import { DatabaseUnavailableError } from "./availability.js";
import { executeText, type NamedStatement } from "./transaction-batching.js";

/** One checked-out connection (postgres-pool.ts), as a batch uses it. */
export interface Session {
  client: pg.PoolClient;
  /** Runs a statement of a transaction (batched: transaction-batching.ts). */
  query(sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult>;
  /** Runs a statement on its own, named when it has a name, which prepares it on this connection. */
  run(sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult>;
  /** Runs simple-protocol text of several statements: one result each. */
  runText(text: string): Promise<pg.QueryResult[]>;
  named: NamedStatement;
  release(): void;
}

/**
 * Whether a statement outside a transaction may wait for the end of the event-loop turn and go with
 * others: a plain read (not a lock), whose failure could not undo anything else of its batch.
 */
export function isBatchableRead(sql: string): boolean {
  return sql.startsWith("select ") && !/ for (update|no key update|share|key share)\b/.test(sql);
}

interface Waiting {
  sql: string;
  parameters: readonly unknown[];
  resolve(result: pg.QueryResult): void;
  reject(error: unknown): void;
}

// A batch's statements each take a little of PostgreSQL's time in turn: past this many, another
// connection takes the rest, in parallel.
const maxBatch = 16;

/**
 * Reads outside a transaction issued in one event-loop turn go to PostgreSQL together: one
 * connection, one simple-protocol text `execute a(…); execute b(…)` of statements prepared there,
 * one round trip. A page's loaders (rooms, tracks and speakers of its sessions) and concurrent
 * requests' reads were a round trip each, on a connection each, and every round trip costs a system
 * call and a wake-up on both sides. Batched, a small query's miss cost 0.60–0.68× the CPU, an agenda
 * page's 0.76–0.79×, an attendee page's 0.85–0.93× (docs/performance.md, round nine). The wait is
 * the rest of the turn, before which no answer could have been read anyway.
 *
 * A statement this connection has not prepared yet, or whose parameters cannot be written as
 * literals, runs on a connection of its own, which prepares it there. A batch runs as one implicit
 * transaction, so when one of its statements fails, each is run again alone and gets its own outcome.
 */
export class ReadBatcher {
  private waiting: Waiting[] = [];

  constructor(private readonly checkout: () => Promise<Session>) {}

  read(sql: string, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ sql, parameters, resolve, reject });
    });
  }

  private flush(): void {
    const all = this.waiting;
    this.waiting = [];
    for (let start = 0; start < all.length; start += maxBatch)
      void this.send(all.slice(start, start + maxBatch));
  }

  private async send(batch: Waiting[]): Promise<void> {
    let session: Session;
    try {
      session = await this.checkout();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    try {
      const together: { item: Waiting; text: string }[] = [];
      const alone: Waiting[] = [];
      for (const item of batch) {
        const named = session.named(item.sql);
        const text = named?.prepared ? executeText(session.client, named.name, item.parameters) : undefined;
        if (text === undefined) alone.push(item);
        else together.push({ item, text });
      }
      // This connection takes the statements that go together, or else the first statement; every
      // other one goes on a connection of its own, as it would have without batching.
      if (together.length < 2) alone.unshift(...together.splice(0).map(({ item }) => item));
      const mine = together.length === 0 ? alone.shift() : undefined;
      for (const item of alone) void this.sendAlone(item);
      if (together.length > 0) await sendTogether(session, together);
      else if (mine) await session.run(mine.sql, mine.parameters).then(mine.resolve, mine.reject);
    } finally {
      session.release();
    }
  }

  private async sendAlone(item: Waiting): Promise<void> {
    try {
      const session = await this.checkout();
      try {
        item.resolve(await session.run(item.sql, item.parameters));
      } finally {
        session.release();
      }
    } catch (error) {
      item.reject(error);
    }
  }
}

async function sendTogether(session: Session, together: { item: Waiting; text: string }[]): Promise<void> {
  let results: pg.QueryResult[];
  try {
    results = await session.runText(together.map(({ text }) => text).join("; "));
  } catch (error) {
    if (error instanceof DatabaseUnavailableError) {
      for (const { item } of together) item.reject(error);
      return;
    }
    // Which statement failed, and why, is each one's own answer.
    for (const { item } of together)
      await session.run(item.sql, item.parameters).then(item.resolve, item.reject);
    return;
  }
  together.forEach(({ item }, i) => {
    const result = results[i];
    if (result) item.resolve(result);
    else item.reject(new Error(`A batch of ${together.length} reads answered ${results.length} results`));
  });
}
