import { Worker } from "node:worker_threads";
import type SQLite from "better-sqlite3";

/** A checkpoint round's outcome, as `pragma wal_checkpoint` reports it. @internal (tests) */
export interface CheckpointRound {
  /** 1 when another connection was checkpointing and this round did nothing. */
  busy: number;
  /** Frames in the WAL. */
  log: number;
  /** Frames of the WAL now copied into the database file. */
  checkpointed: number;
}

/** The background checkpointer of one SQLite connection (see checkpointInBackground). */
export interface Checkpointer {
  /** Runs a round now rather than at the next tick; resolves with its outcome. @internal (tests) */
  now(): Promise<CheckpointRound>;
  /** Ends the thread and gives the connection its automatic checkpoints back. */
  stop(): Promise<void>;
}

// SQLite's own threshold (pages in the WAL), restored when the thread is gone.
const sqliteDefaultPages = 1000;
// A safety net while the thread runs: if it stalls (or a long reader keeps it from finishing), the
// connection checkpoints by itself again once the WAL reaches ~40 MB, rather than growing it without
// bound. The thread checkpoints far more often, so in practice this never fires.
const fallbackPages = 10_000;

/**
 * Moves a file database's WAL checkpoints off the event loop: the connection stops checkpointing at
 * commit time (every ~100 check-ins one commit stalled the loop 10–20 ms fsyncing the database
 * file, docs/decisions.md) and a worker thread with its own connection runs a PASSIVE checkpoint
 * every `intervalMs`. PASSIVE never waits for or blocks readers and writers. When a commit is
 * durable does not depend on checkpoints (they only copy committed frames from the WAL into the
 * file) but on the writing connection's `synchronous`: with FULL, the default, the WAL is synced
 * before a commit returns; with NORMAL (SQLITE_SYNCHRONOUS), only at checkpoints. Other processes
 * on the same file (a second server, the CLI) are safe: SQLite lets one checkpointer run at a time
 * and the others skip the round. If the thread fails, automatic checkpoints come back.
 */
export function checkpointInBackground(
  sqlite: SQLite.Database,
  path: string,
  intervalMs = 200,
): Checkpointer {
  sqlite.pragma(`wal_autocheckpoint = ${fallbackPages}`);
  const worker = new Worker(new URL("./checkpoint-worker.js", import.meta.url), {
    workerData: { path, intervalMs },
  });
  // The thread never keeps the process alive by itself (a server exits when its connection closes),
  // only while someone waits for its answer (`now`, `stop`).
  worker.unref();
  let running = true;
  // Callers of `now` waiting for their round, in the order they asked.
  const waiting: ((round: CheckpointRound) => void)[] = [];
  const restore = () => {
    running = false;
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${sqliteDefaultPages}`);
  };
  const checkpointer: Checkpointer = {
    now() {
      // Someone waits for the answer: the thread keeps the process alive until it comes.
      worker.ref();
      worker.postMessage("now");
      return new Promise((resolve) => waiting.push(resolve));
    },
    async stop() {
      if (!running) return;
      worker.ref();
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      worker.postMessage("stop");
      await exited;
      restore();
    },
  };
  worker.on("message", (round: CheckpointRound) => {
    waiting.shift()?.(round);
    if (waiting.length === 0) worker.unref();
  });
  worker.on("error", restore);
  worker.on("exit", restore);
  return checkpointer;
}
