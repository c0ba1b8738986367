// The thread that checkpoints a SQLite database's WAL (started by checkpoints.ts). It has its own
// connection: a checkpoint copies pages into the database file and fsyncs it, 10–20 ms that would
// otherwise stall the event loop of whichever commit crossed the autocheckpoint threshold.
import { parentPort, workerData } from "node:worker_threads";
import SQLite from "better-sqlite3";

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const sqlite = new SQLite(path);
// Another checkpointer (a second server process, the CLI's automatic one) may hold the lock; PASSIVE
// then skips this round instead of waiting, and the next round catches up.
sqlite.pragma("busy_timeout = 0");
const checkpoint = sqlite.prepare("pragma wal_checkpoint(PASSIVE)");

function round(): { busy: number; log: number; checkpointed: number } {
  // busy: 1 when another checkpointer held the lock; log: frames in the WAL; checkpointed: copied.
  try {
    return checkpoint.get() as { busy: number; log: number; checkpointed: number };
  } catch {
    // SQLITE_BUSY or a passing I/O error: this round did nothing, the next one tries again (a
    // thrown error would end the thread and hand checkpoints back to the event loop for good).
    return { busy: 1, log: -1, checkpointed: -1 };
  }
}

const timer = setInterval(round, intervalMs);
parentPort?.on("message", (message: unknown) => {
  // Asked for by `Checkpointer.now`, which waits for the outcome.
  if (message === "now") parentPort?.postMessage(round());
  if (message === "stop") {
    clearInterval(timer);
    sqlite.close();
    parentPort?.close();
  }
});
