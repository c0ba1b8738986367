import type { Db, Tx } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { idempotencyRepository as repo } from "./idempotency.repository.js";

/** How long a key's answer is replayed: the 24 hours Stripe and pretix keep theirs. */
const keyLifetimeMs = 24 * 60 * 60 * 1000;

/** An answer kept for replay: its status, media type and exact bytes. */
export interface StoredAnswer {
  status: number;
  media: string;
  body: string;
}

/** The run that holds a key's lock; `finish` ends it. */
export interface KeyRun {
  scope: string;
  key: string;
  /** The lock this run took, which `finish` names so a run that lost its lock changes nothing. */
  lockedUntil: string;
}

/** What a request carrying a key does: run (it holds the lock), replay, or be refused. */
export type KeyClaim =
  | { outcome: "run"; run: KeyRun }
  | { outcome: "replay"; answer: StoredAnswer }
  /** The first request with this key is still running (409). */
  | { outcome: "in-progress" }
  /** The key was used with another request body (422). */
  | { outcome: "mismatch" }
  /** A new key past the caller's allowance of new keys (429): nothing stored. */
  | { outcome: "over-allowance" }
  /** The first request committed its change, and its process stopped before storing the answer (409). */
  | { outcome: "answer-lost" };

/**
 * Idempotency keys of API mutations, kept in the database so that every process shares one lock
 * per key. A key is claimed by inserting its row (one statement: of any number of concurrent
 * requests, in any processes, one inserts it); the run then stores its answer, or deletes the row
 * when it leaves nothing to replay. A process that dies mid-run leaves a lock that ends after
 * `lockMs`; the next request with the key then runs it, unless the dead run had committed a change
 * (`markCommitted`, inside that change's transaction): running it again would do it twice.
 */
export function createIdempotencyService(
  db: Db,
  {
    lockMs,
    logger,
    now = Date.now,
  }: {
    /** How long a run's lock holds: longer than any request may run (its deadline and COMMIT). */
    lockMs: number;
    logger: Logger;
    now?: () => number;
  },
) {
  const iso = (ms: number) => new Date(ms).toISOString();

  return {
    /**
     * Claims `key` of `scope` for a request whose body hashes to `fingerprint`. A key not seen
     * before is first admitted by `admitNew` (the caller's allowance of new keys): refused there,
     * nothing is written.
     */
    async claim(
      scope: string,
      key: string,
      fingerprint: string,
      admitNew: () => Promise<boolean>,
    ): Promise<KeyClaim> {
      // Three tries: a row can appear or vanish between the read and the insert (another request
      // with the key, the pruning job), and an expired one is deleted before it is claimed anew.
      for (let attempt = 0; attempt < 3; attempt++) {
        const at = now();
        const lockedUntil = iso(at + lockMs);
        const row = await repo.find(db, scope, key);
        if (!row) {
          if (attempt === 0 && !(await admitNew())) return { outcome: "over-allowance" };
          const claimed = await repo.claim(db, {
            scope,
            key,
            fingerprint,
            lockedUntil,
            now: iso(at),
            expiresAt: iso(at + keyLifetimeMs),
          });
          if (claimed) return { outcome: "run", run: { scope, key, lockedUntil } };
          continue;
        }
        if (row.expires_at <= iso(at)) {
          await repo.deleteExpired(db, scope, key, iso(at));
          continue;
        }
        if (row.fingerprint !== fingerprint) return { outcome: "mismatch" };
        if (row.status !== null && row.media !== null && row.body !== null) {
          return { outcome: "replay", answer: { status: row.status, media: row.media, body: row.body } };
        }
        if (row.locked_until !== null && row.locked_until > iso(at)) return { outcome: "in-progress" };
        if (row.committed_at !== null) return { outcome: "answer-lost" };
        // The run that held it ended without an answer or a release: its process died.
        if (await repo.takeOver(db, scope, key, iso(at), lockedUntil)) {
          logger.warn({ scope }, "idempotency key taken over after its lock ended");
          return { outcome: "run", run: { scope, key, lockedUntil } };
        }
        return { outcome: "in-progress" };
      }
      return { outcome: "in-progress" };
    },

    /** Records inside a write's transaction that `run` changed something (db/transaction.ts, bindCommitMark). */
    async markCommitted(trx: Tx, run: KeyRun): Promise<void> {
      await repo.markCommitted(trx, run.scope, run.key, run.lockedUntil, iso(now()));
    },

    /**
     * Ends a run: its answer is stored for replay, or with none (a timeout rolled back, the database
     * went away) the key is released for the client's retry, unless the run had committed a change.
     */
    async finish(run: KeyRun, answer: StoredAnswer | undefined): Promise<void> {
      if (!answer) {
        await repo.release(db, run.scope, run.key, run.lockedUntil);
        return;
      }
      const stored = await repo.complete(db, run.scope, run.key, run.lockedUntil, answer);
      // Only a run that outlived its lock by far can lose it; its answer went to the client anyway.
      if (!stored) logger.warn({ scope: run.scope }, "idempotency key lost its lock before its answer");
    },

    /** Deletes the expired keys in batches; returns how many. */
    async prune(): Promise<number> {
      const before = iso(now());
      let total = 0;
      for (;;) {
        const deleted = await repo.pruneBatch(db, before, pruneBatch);
        total += deleted;
        if (deleted < pruneBatch) break;
      }
      if (total > 0) logger.info({ deleted: total }, "expired idempotency keys pruned");
      return total;
    },
  };
}

const pruneBatch = 1_000;
/** How often every server process prunes expired keys (app.ts). */
export const keyPruneEveryMs = 10 * 60 * 1000;
