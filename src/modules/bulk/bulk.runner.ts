import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { DocumentNode, ExecutionResult } from "graphql";
import type { Db } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { newId } from "../../shared/ids.js";
import type { Actor } from "../access/actor.js";
import { parsePermissions } from "../access/permissions.js";
import { appLookup } from "../apps/app-lookup.js";
import { type BulkRow, bulkRepository } from "./bulk.repository.js";
import { type BulkPlan, planBulkQuery } from "./bulk-query.js";

/** Runs a bulk query's page as any API request runs (the composition root supplies the schema). */
export type BulkPageExecutor = (
  actor: Actor,
  document: DocumentNode,
  variables: { bulkAfter: string | null },
) => Promise<ExecutionResult>;

/** How long a claim holds without renewal: a running job renews it, so only a dead process lets it lapse. */
const leaseMs = 30_000;
/**
 * How often a running job renews its lease, which is also how soon it sees a cancel: a write per
 * page cost a third of a page's time on SQLite.
 */
const renewEveryMs = 500;
/** How long finished results are kept. */
const resultDays = 7;
/** How much of a result one chunk row holds, at most about (a page may overshoot it). */
const chunkChars = 256 * 1024;
/**
 * What a job left RUNNING by a process that died says: it is failed rather than resumed, since the
 * rows read before the restart may have changed, and a result made of two moments would look like one.
 * @internal Exported for its tests.
 */
export const abandonedReason =
  "The server process running this operation stopped before it finished; start it again";

const later = (ms: number) => new Date(Date.now() + ms).toISOString();

/**
 * The background side of bulk operations: claims waiting jobs (any process may; the claim is a
 * conditional update with a lease), runs one at a time per process, page by page, yielding to the
 * event loop between pages, and each page as the app at that moment (its link, its permissions).
 */
export class BulkRunner {
  private readonly owner = newId();
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** A wake came while a round was under way: run another one after it. */
  private again = false;

  constructor(
    private readonly deps: {
      db: Db;
      execute: BulkPageExecutor;
      logger: Logger;
      /** Told when a job ends by itself or is cancelled (the webhook), with its final row. */
      onFinished?: (row: BulkRow) => Promise<void>;
      pollMs?: number;
    },
  ) {}

  /** Starts polling (jobs started on another process, leases that lapsed, results that expired). */
  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.deps.pollMs ?? 5_000);
    this.timer.unref();
    this.wake();
  }

  /** Stops claiming and waits for the page under way; the job's lease then lapses and it fails. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Looks for work now (a job was just started here). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, "bulk operations: a round failed"))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async drain(): Promise<void> {
    const { db } = this.deps;
    const now = new Date().toISOString();
    const abandoned = await bulkRepository.failAbandoned(db, now, abandonedReason);
    await bulkRepository.deleteChunks(db, abandoned);
    for (const id of abandoned) await this.announce(id);
    await bulkRepository.deleteChunks(db, await bulkRepository.expire(db, now));
    while (!this.stopped) {
      const next = await bulkRepository.nextCreated(db);
      if (!next) return;
      if (!(await bulkRepository.claim(db, next.id, this.owner, later(leaseMs)))) continue;
      await this.run(next.id);
    }
  }

  /** Tells of a job's end as its row now reads (a cancel, a failure or the file). */
  private async announce(id: string): Promise<void> {
    const row = await bulkRepository.byId(this.deps.db, id);
    if (row && row.status !== "RUNNING") {
      await this.deps
        .onFinished?.(row)
        .catch((error: unknown) =>
          this.deps.logger.error({ err: error, bulkOperationId: id }, "bulk operation: its webhook failed"),
        );
    }
  }

  /** Runs a claimed job to its end: COMPLETED, FAILED with a reason, or stopped by a cancel. */
  private async run(id: string): Promise<void> {
    const { db } = this.deps;
    const row = await bulkRepository.byId(db, id);
    if (!row) return;
    let count = 0;
    let seq = 0;
    let pending: string[] = [];
    let pendingChars = 0;
    /** Writes what is pending as the next chunk; false once the job is no longer this runner's. */
    const flush = async (): Promise<boolean> => {
      if (pending.length === 0) return true;
      const lines = `${pending.join("\n")}\n`;
      pending = [];
      pendingChars = 0;
      seq += 1;
      return bulkRepository.addChunk(db, this.owner, {
        operation_id: id,
        project_id: row.project_id,
        seq,
        lines,
      });
    };
    const end = async (status: "COMPLETED" | "FAILED", error: string | null) => {
      if (status === "COMPLETED" && !(await flush())) return await this.announce(id);
      const ended = await bulkRepository.finish(db, id, this.owner, {
        status,
        error,
        object_count: count,
        finished_at: new Date().toISOString(),
        expires_at: status === "COMPLETED" ? later(resultDays * 86_400_000) : null,
      });
      if (ended && status === "FAILED") await bulkRepository.deleteChunks(db, [id]);
      await this.announce(id);
    };
    try {
      const plan = planBulkQuery(row.query, row.project_id);
      let after: string | null = null;
      let renewed = Date.now();
      for (;;) {
        if (this.stopped) return;
        const actor = await appActor(db, row.app_id);
        if (!actor) return await end("FAILED", "The app was deleted");
        const page = await readPage(this.deps.execute, actor, plan, after);
        if ("failure" in page) return await end("FAILED", page.failure);
        count += page.lines.length;
        pending.push(...page.lines);
        pendingChars += page.lines.reduce((sum, line) => sum + line.length + 1, 0);
        if (!page.next) return await end("COMPLETED", null);
        after = page.next;
        // Cancelled, ended by an erasure, or the lease taken over after a stall: stop at once (whoever
        // ended it deletes what it wrote).
        if (pendingChars >= chunkChars && !(await flush())) return await this.announce(id);
        if (Date.now() - renewed >= renewEveryMs) {
          renewed = Date.now();
          if (!(await bulkRepository.renew(db, id, this.owner, later(leaseMs), count))) {
            return await this.announce(id);
          }
        }
        await yieldToLoop();
      }
    } catch (error) {
      this.deps.logger.error({ err: error, bulkOperationId: id }, "bulk operation failed");
      await end("FAILED", "The operation failed on the server").catch(() => undefined);
    }
  }
}

/** The app as its token would present it now; undefined once it is deleted. */
async function appActor(db: Db, appId: string): Promise<Actor | undefined> {
  const app = await appLookup.standing(db, appId);
  if (!app) return undefined;
  return {
    kind: "app",
    appId,
    homeProjectId: app.projectId,
    permissions: parsePermissions(app.permissions),
    appName: app.name,
    // Pages run in the version the app is pinned to (app.ts, startBulkOperations).
    apiVersion: app.apiVersion,
  };
}

type PageOutcome = { lines: string[]; next: string | null } | { failure: string };

/** One page of the query: its nodes as JSON lines and the cursor after them, or why it failed. */
async function readPage(
  execute: BulkPageExecutor,
  actor: Actor,
  plan: BulkPlan,
  after: string | null,
): Promise<PageOutcome> {
  const result = await execute(actor, plan.document, { bulkAfter: after });
  const first = result.errors?.[0];
  if (first) return { failure: first.message };
  const project = (result.data as Record<string, Record<string, unknown> | null> | undefined)?.[
    plan.projectKey
  ];
  // A project the app no longer reaches reads as null, exactly as a missing one.
  if (!project) return { failure: "Project not found" };
  const connection = project[plan.connectionKey] as {
    edges?: { node: unknown }[];
    bulkPageInfo: { hasNextPage: boolean; endCursor: string | null };
  } | null;
  if (!connection) return { failure: "The connection is not readable" };
  const { bulkPageInfo, ...rest } = connection;
  const lines = (rest.edges ?? []).map((edge) => JSON.stringify(edge.node));
  return { lines, next: bulkPageInfo.hasNextPage ? bulkPageInfo.endCursor : null };
}
