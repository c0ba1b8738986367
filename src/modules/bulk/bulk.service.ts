import { createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/database.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import { nowIso } from "../../shared/time.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { loadServerSecret } from "../accounts/server-secrets.js";
import { type BulkRow, bulkRepository } from "./bulk.repository.js";
import { planBulkQuery } from "./bulk-query.js";

/** How long a download link works: long enough to start a download, short enough not to be shared. */
const linkMs = 60 * 60_000;

/** A bulk operation as the API presents it. */
export interface BulkOperation {
  id: string;
  status: BulkRow["status"];
  objectCount: number;
  errorMessage: string | null;
  createdAt: string;
  finishedAt: string | null;
  /** A signed download link for a COMPLETED operation, made when presented. */
  url: string | null;
}

type AppActor = Extract<Actor, { kind: "app" }>;

/** Bulk operations for apps: start, read, cancel, and the signed links to their files. */
export function createBulkService(deps: {
  db: Db;
  access: AccessService;
  /** Read when a link is made: tests learn the server's address once it listens. */
  baseUrl: () => string;
}) {
  const { db, access } = deps;
  // Told when an operation was started here, so this process's runner looks for work at once.
  const started = new Set<() => void>();
  let secret: Promise<string> | undefined;
  const key = () => {
    secret ??= loadServerSecret(db, "bulk-download-links");
    return secret;
  };

  /** The app's own token, reaching the project; an unreachable project reads as missing. */
  async function appIn(actor: Actor, projectId: string): Promise<AppActor> {
    if (actor.kind !== "app" || actor.grant) {
      throw new AppError(ErrorCode.FORBIDDEN, "Bulk operations are run with an app's own token");
    }
    if (!(await access.resolve(actor, projectId))) throw notFound("Project");
    return actor;
  }

  async function sign(id: string, expires: number): Promise<string> {
    return createHmac("sha256", await key())
      .update(`${id}.${expires}`)
      .digest("base64url");
  }

  async function present(row: BulkRow): Promise<BulkOperation> {
    let url: string | null = null;
    if (row.status === "COMPLETED" && row.expires_at) {
      const expires = Math.min(Date.now() + linkMs, Date.parse(row.expires_at));
      url = `${deps.baseUrl()}/api/bulk/${row.id}.jsonl?expires=${expires}&token=${await sign(row.id, expires)}`;
    }
    return {
      id: row.id,
      status: row.status,
      objectCount: row.object_count,
      errorMessage: row.error,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
      url,
    };
  }

  return {
    /** Calls `listener` after each start on this process; returns the unsubscribe. */
    onStarted(listener: () => void): () => void {
      started.add(listener);
      return () => started.delete(listener);
    },
    /**
     * Starts a bulk query in a project; refused (CONFLICT) while the app has one open there. The
     * query's shape is checked now; its fields' permissions on each page as it runs.
     */
    async start(actor: Actor, projectId: string, query: string): Promise<BulkOperation> {
      const app = await appIn(actor, projectId);
      planBulkQuery(query, projectId);
      const row: BulkRow = {
        id: newId(),
        app_id: app.appId,
        project_id: projectId,
        query,
        status: "CREATED",
        object_count: 0,
        error: null,
        lease_owner: null,
        lease_until: null,
        created_at: nowIso(),
        finished_at: null,
        expires_at: null,
      };
      try {
        await bulkRepository.insert(db, row);
      } catch (error) {
        // The partial unique index refused it when another operation of the app is open there.
        const open = await bulkRepository.latest(db, app.appId, projectId);
        if (open?.status === "CREATED" || open?.status === "RUNNING") {
          throw new AppError(ErrorCode.CONFLICT, "A bulk operation is already running in this project", {
            fieldErrors: [{ field: ["query"], message: "Cancel it or wait for it to finish" }],
          });
        }
        throw error;
      }
      for (const listener of started) listener();
      return present(row);
    },
    /** The app's newest operation in the project, or null. */
    async current(actor: Actor, projectId: string): Promise<BulkOperation | null> {
      const app = await appIn(actor, projectId);
      const row = await bulkRepository.latest(db, app.appId, projectId);
      return row ? present(row) : null;
    },
    /** Cancels the app's open operation in the project and deletes what it wrote. */
    async cancel(actor: Actor, projectId: string): Promise<BulkOperation> {
      const app = await appIn(actor, projectId);
      if (!(await bulkRepository.cancelOpen(db, app.appId, projectId, nowIso()))) {
        throw notFound("Running bulk operation");
      }
      const row = await bulkRepository.latest(db, app.appId, projectId);
      if (!row) throw notFound("Running bulk operation");
      // Ended first, so a chunk its runner writes meanwhile is refused or deleted here.
      await bulkRepository.deleteChunks(db, [row.id]);
      return present(row);
    },
    /** The row a download link names, when its signature holds and neither it nor the result expired. */
    async download(id: string, expires: string, token: string): Promise<BulkRow | undefined> {
      const at = Number(expires);
      if (!Number.isSafeInteger(at) || at < Date.now() || token.length > 100) return undefined;
      const expected = Buffer.from(await sign(id, at));
      const given = Buffer.from(token);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      const row = await bulkRepository.byId(db, id);
      return row?.status === "COMPLETED" ? row : undefined;
    },
    /**
     * A finished result's JSON Lines, read a few chunks (about a megabyte) at a time, so a download
     * of 200,000 rows holds little memory and no long statement, through whichever process serves it.
     */
    async *result(id: string): AsyncGenerator<string> {
      for (let after = 0; ; ) {
        const chunks = await bulkRepository.chunks(db, id, after, 4);
        for (const chunk of chunks) yield chunk.lines;
        const last = chunks.at(-1);
        if (!last) return;
        after = last.seq;
      }
    },
  };
}

export type BulkService = ReturnType<typeof createBulkService>;
