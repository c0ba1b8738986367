import type { z } from "zod";
import type { Config } from "../../config.js";
import type { Db } from "../../db/database.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { latestVersion } from "../../graphql/versions/api-versions.js";
import type { Logger } from "../../logger.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import type { DomainEvent, ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { type Permission, parsePermissions, serializePermissions } from "../access/permissions.js";
import { can } from "../access/policy.js";
import { type Project, presentProject } from "../projects/projects.service.js";
import { appRef, createInput, updateInput } from "./apps.inputs.js";
import { type AppRow, appsRepository } from "./apps.repository.js";
import { consentQueries } from "./consent.js";
import { linkEvent, linkOperations, userIdOf } from "./links.service.js";
import { generateToken, hashToken, isWellFormedToken, tokenLast4 } from "./tokens.js";
import type { UpdateRequestNotifier } from "./update-requests.js";
import { firstDayOfLast30Days, UsageRecorder } from "./usage.js";

/** An app as its developers see it (the token itself is never part of it). */
export interface App {
  id: string;
  /** The home project the app was created in. */
  projectId: string;
  name: string;
  description: string | null;
  permissions: Permission[];
  tokenLast4: string;
  tokenCreatedAt: string;
  lastUsedAt: string | null;
  requestsLast30Days: number;
  createdAt: string;
  updatedAt: string;
  /**
   * Who created the app (null when created by the operator or the account is gone). The app belongs
   * to its project, not to this person: it keeps working after they leave, so the page suggests
   * regenerating the token they may still hold.
   */
  createdBy: { name: string; stillMember: boolean } | null;
  /** The link organizers open to connect a project (served by the dashboard). */
  connectUrl: string;
  /** Where the organizer's browser goes after Authorize or Cancel (with project_id or error, and state). */
  redirectUrl: string | null;
  /** The app's website, linked on the consent page. */
  websiteUrl: string | null;
  /** The app's privacy policy, linked on the consent page. */
  privacyPolicyUrl: string | null;
  /** The API version its requests are answered in when they name none (Eventgraph-Version). */
  apiVersion: string;
}

function creatorOf(
  creators: Map<string, { name: string; projectIds: Set<string> }>,
  row: Pick<AppRow, "created_by" | "project_id">,
): App["createdBy"] {
  const creator = row.created_by ? creators.get(row.created_by) : undefined;
  return creator ? { name: creator.name, stillMember: creator.projectIds.has(row.project_id) } : null;
}

/** An app with its token: returned only by createApp and rotateToken, the token's one showing. */
export interface AppWithToken {
  app: App;
  token: string;
}

/** The actor of an authenticated API request, with the app's name for `viewer`. */
export type AuthenticatedApp = Extract<Actor, { kind: "app" }> & { appName: string };

export type CreateAppInput = z.input<typeof createInput>;
export type UpdateAppInput = z.input<typeof updateInput>;

function unauthenticated(): AppError {
  // One message for malformed, unknown, rotated and deleted tokens: the answer reveals nothing.
  return new AppError(ErrorCode.UNAUTHENTICATED, "The access token is invalid or has been revoked");
}

/**
 * Apps, their tokens, connect links and linked projects: the developer side (create, edit, rotate,
 * delete), the organizer side (connect, revoke, integrations: links.service.ts) and the API's
 * authentication.
 */
export function createAppsService(
  db: Db,
  access: AccessService,
  changes: ProjectChanges,
  config: Config,
  logger: Logger,
  updateRequests?: UpdateRequestNotifier,
) {
  const usage = new UsageRecorder(db, logger);

  // Adds this process's unwritten counts to the stored ones, for many apps in one query.
  async function usageOf(
    rows: readonly { id: string; last_used_at: string | null }[],
  ): Promise<Map<string, { lastUsedAt: string | null; requestsLast30Days: number }>> {
    const fromDay = firstDayOfLast30Days();
    const stored = await appsRepository.requestsSince(
      db,
      rows.map((r) => r.id),
      fromDay,
    );
    return new Map(
      rows.map((row) => {
        const pendingAt = usage.pendingLastUsedAt(row.id);
        const lastUsedAt =
          pendingAt && (!row.last_used_at || pendingAt > row.last_used_at) ? pendingAt : row.last_used_at;
        const requestsLast30Days = (stored.get(row.id) ?? 0) + usage.pendingRequests(row.id, fromDay);
        return [row.id, { lastUsedAt, requestsLast30Days }];
      }),
    );
  }

  async function presentApps(rows: readonly AppRow[]): Promise<App[]> {
    const usageById = await usageOf(rows);
    const creators = await appsRepository.creators(db, rows);
    return rows.map((row) => ({
      id: row.id,
      projectId: row.project_id,
      name: row.name,
      description: row.description,
      permissions: parsePermissions(row.permissions),
      tokenLast4: row.token_last4,
      tokenCreatedAt: row.token_created_at,
      lastUsedAt: usageById.get(row.id)?.lastUsedAt ?? null,
      requestsLast30Days: usageById.get(row.id)?.requestsLast30Days ?? 0,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      createdBy: creatorOf(creators, row),
      // Read on every call: the base URL is configuration, not part of the stored app.
      connectUrl: `${config.baseUrl}/connect/${encodeURIComponent(row.id)}`,
      redirectUrl: row.redirect_url,
      websiteUrl: row.website_url,
      privacyPolicyUrl: row.privacy_url,
      apiVersion: row.api_version,
    }));
  }

  async function presentApp(row: AppRow): Promise<App> {
    const [app] = await presentApps([row]);
    if (!app) throw notFound("App");
    return app;
  }

  // Apps are managed by the OWNERs/ADMINs of their home project; to anyone else an app does not
  // exist, so its id reveals nothing.
  async function loadManagedApp(actor: Actor, appId: string): Promise<AppRow> {
    const row = await appsRepository.findById(db, appId);
    if (!row) throw notFound("App");
    const projectAccess = await access.resolve(actor, row.project_id);
    if (!projectAccess || !can(projectAccess, "apps.manage")) throw notFound("App");
    return row;
  }

  return {
    ...consentQueries(db),
    ...linkOperations({ db, access, changes, loadManagedApp, usageOf }),

    /** Creates an app in a project (OWNER/ADMIN or the operator) and returns its token, shown once. */
    async createApp(actor: Actor, input: CreateAppInput): Promise<AppWithToken> {
      const data = parseInput(createInput, input);
      await access.requireAction(actor, data.projectId, "apps.manage");
      const token = generateToken();
      const now = nowIso();
      const row: AppRow = {
        id: newId(),
        project_id: data.projectId,
        name: data.name,
        description: data.description,
        permissions: serializePermissions(data.permissions),
        token_hash: hashToken(token),
        token_last4: tokenLast4(token),
        token_created_at: now,
        last_used_at: null,
        created_by: userIdOf(actor),
        created_at: now,
        updated_at: now,
        redirect_url: data.redirectUrl ?? null,
        website_url: data.websiteUrl ?? null,
        privacy_url: data.privacyPolicyUrl ?? null,
        // A new app is built against the newest version; it moves to a later one when it chooses.
        api_version: data.apiVersion ?? latestVersion.name,
      };
      await inTransaction(db, actor, async (trx) => {
        await appsRepository.insert(trx, row);
        await changes.event(
          trx,
          actor,
          appEvent(row, "app.created", {
            name: row.name,
            description: row.description,
            permissions: row.permissions,
          }),
        );
      });
      return { app: await presentApp(row), token };
    },

    /**
     * Changes name, description, permissions or URLs; narrowing applies to every link at once, and a
     * widening asks the managers of each linked project to approve (by email and on Integrations).
     */
    async updateApp(actor: Actor, input: UpdateAppInput): Promise<App> {
      const data = parseInput(updateInput, input);
      const before = await loadManagedApp(actor, data.id);
      const { row, linked } = await inTransaction(db, actor, async (trx) => {
        const patch: Partial<AppRow> = { updated_at: nowIso() };
        if (data.name !== undefined) patch.name = data.name;
        if (data.description !== undefined) patch.description = data.description;
        if (data.permissions !== undefined) patch.permissions = serializePermissions(data.permissions);
        if (data.redirectUrl !== undefined) patch.redirect_url = data.redirectUrl;
        if (data.websiteUrl !== undefined) patch.website_url = data.websiteUrl;
        if (data.privacyPolicyUrl !== undefined) patch.privacy_url = data.privacyPolicyUrl;
        if (data.apiVersion !== undefined) patch.api_version = data.apiVersion;
        await appsRepository.update(trx, data.id, patch);
        const updated = await appsRepository.findById(trx, data.id);
        if (!updated) throw notFound("App");
        const links = await appsRepository.activeLinks(trx, data.id);
        const linked = links.map((link) => link.project_id);
        await changes.record(trx, updated.project_id, ...linked);
        const { updated_at: _, ...values } = patch;
        await changes.event(trx, actor, appEvent(updated, "app.updated", values));
        // A permission change narrows every link at once (a widening waits for consent, but the
        // link's effective set is still worth re-reading), so each link reports an update.
        if (data.permissions !== undefined) {
          for (const link of links)
            await changes.event(trx, actor, linkEvent(link.project_id, link.id, "updated"));
        }
        return { row: updated, linked };
      });
      await changes.announceRecorded(row.project_id, ...linked);
      const previous = new Set(parsePermissions(before.permissions));
      const added = parsePermissions(row.permissions).filter((p) => !previous.has(p));
      // After the commit and in the background: mailing many organizers must not hold up the save.
      if (added.length > 0 && linked.length > 0) updateRequests?.notify(row, added);
      return presentApp(row);
    },

    /** Deletes the app: its token fails on the next request and its links are gone. */
    async deleteApp(actor: Actor, input: { id: string }): Promise<void> {
      const { id: appId } = parseInput(appRef, input);
      const app = await loadManagedApp(actor, appId);
      const linked = await inTransaction(db, actor, async (trx) => {
        const projectIds = await appsRepository.activeLinkedProjectIds(trx, appId);
        await appsRepository.delete(trx, appId);
        await changes.record(trx, app.project_id, ...projectIds);
        await changes.event(trx, actor, appEvent(app, "app.deleted", { name: app.name }));
        return projectIds;
      });
      usage.forget(appId);
      await changes.announceRecorded(app.project_id, ...linked);
    },

    /** Issues a new token (returned once); the old one fails on the next request. */
    async rotateToken(actor: Actor, input: { id: string }): Promise<AppWithToken> {
      const { id: appId } = parseInput(appRef, input);
      await loadManagedApp(actor, appId);
      const token = generateToken();
      const now = nowIso();
      const { row, linked } = await inTransaction(db, actor, async (trx) => {
        await appsRepository.update(trx, appId, {
          token_hash: hashToken(token),
          token_last4: tokenLast4(token),
          token_created_at: now,
          updated_at: now,
        });
        const updated = await appsRepository.findById(trx, appId);
        if (!updated) throw notFound("App");
        const linked = await appsRepository.activeLinkedProjectIds(trx, appId);
        await changes.record(trx, updated.project_id, ...linked);
        // The token itself never enters the log: only that it was replaced, by whom and when.
        await changes.event(trx, actor, appEvent(updated, "app.token_rotated", {}));
        return { row: updated, linked };
      });
      await changes.announceRecorded(row.project_id, ...linked);
      return { app: await presentApp(row), token };
    },

    /** One app, for the managers of its home project; NOT_FOUND for everyone else. */
    async getApp(actor: Actor, appId: string): Promise<App> {
      return presentApp(await loadManagedApp(actor, appId));
    },

    /**
     * The apps created in a project (its API tab), oldest first. Any member may look (to see what
     * touches the event's data); only OWNER/ADMIN may change an app.
     */
    async listForProject(actor: Actor, projectId: string): Promise<App[]> {
      await access.requireAction(actor, projectId, "apps.view");
      return presentApps(await appsRepository.listForProject(db, projectId));
    },

    /**
     * The app behind an API token, or UNAUTHENTICATED. A malformed token is refused without a
     * database hit; any other costs one indexed lookup. The API remembers the answer only under the
     * credentials epoch (graphql/authentication.ts), which a rotation or deletion moves on every
     * process before it returns (ProjectChanges), so the old token fails on the very next request.
     */
    async authenticate(token: string): Promise<AuthenticatedApp> {
      if (typeof token !== "string" || !isWellFormedToken(token)) throw unauthenticated();
      const row = await appsRepository.findTokenOwner(db, hashToken(token));
      if (!row) throw unauthenticated();
      return {
        kind: "app",
        appId: row.id,
        homeProjectId: row.project_id,
        permissions: parsePermissions(row.permissions),
        appName: row.name,
        apiVersion: row.api_version,
      };
    },

    /** What the OAuth token endpoint needs of the app behind a client id: its home and permissions. */
    async clientApp(
      appId: string,
    ): Promise<
      { appId: string; homeProjectId: string; name: string; permissions: Permission[] } | undefined
    > {
      const row = await appsRepository.findById(db, appId);
      return (
        row && {
          appId: row.id,
          homeProjectId: row.project_id,
          name: row.name,
          permissions: parsePermissions(row.permissions),
        }
      );
    },

    /** The projects an app reaches (home, then active links by authorization time), keyset-paged. */
    async reachableProjects(
      actor: Extract<Actor, { kind: "app" }>,
      window: PageWindow,
    ): Promise<Page<Project>> {
      // An OAuth access token reaches its grant's project only (the link it rode on is live: authenticated).
      const rows = await appsRepository.reachableProjects(
        db,
        actor.appId,
        actor.homeProjectId,
        window,
        actor.grant?.projectId,
      );
      const page = toPage(rows, window, (row) => [row.sort_key, row.id]);
      return { ...page, items: page.items.map(presentProject) };
    },

    /** How many projects the app reaches (home plus active links). */
    async countReachableProjects(actor: Extract<Actor, { kind: "app" }>): Promise<number> {
      if (actor.grant) return 1;
      return appsRepository.countReachableProjects(db, actor.appId, actor.homeProjectId);
    },

    /** Counts one API request of the app; written in the background (see UsageRecorder). */
    recordRequest(appId: string): void {
      usage.record(appId);
    },

    /** Writes the counted requests now; called at shutdown, before the database closes. */
    flushUsage(): Promise<void> {
      return usage.flush();
    },
  };
}

export type AppsService = ReturnType<typeof createAppsService>;

/**
 * An app's own event, in its home project's log, with the fields the write set; `values` never holds
 * the token or its hash (a token rotation records no value at all).
 */
function appEvent(row: AppRow, type: string, values: Record<string, unknown>): DomainEvent {
  return {
    projectId: row.project_id,
    type,
    object: { typename: "App", id: row.id },
    changed: Object.keys(values),
    values,
  };
}
