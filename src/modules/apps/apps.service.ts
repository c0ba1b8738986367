import type { z } from "zod";
import type { Config } from "../../config.js";
import type { Db } from "../../db/database.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { newId } from "../../shared/ids.js";
import { type Page, type PageWindow, toPage } from "../../shared/pagination.js";
import type { DomainEvent, ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { parseInput } from "../../shared/validation.js";
import { type AccessService, effectiveLinkPermissions } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { type Permission, parsePermissions, serializePermissions } from "../access/permissions.js";
import { can, canConnectApp } from "../access/policy.js";
import { type Project, presentProject } from "../projects/projects.service.js";
import { appRef, authorizeInput, createInput, linkRef, updateInput } from "./apps.inputs.js";
import { type AppRow, appsRepository, type LinkDetailsRow } from "./apps.repository.js";
import { consentQueries, missingFromGrant } from "./consent.js";
import { generateToken, hashToken, isWellFormedToken, tokenLast4 } from "./tokens.js";
import type { UpdateRequestNotifier } from "./update-requests.js";
import { firstDayOfLast30Days, UsageRecorder } from "./usage.js";

/** Why an Authorize was refused when the app's permissions changed after the page was shown. */
const permissionsChangedMessage =
  "This app's requested permissions changed after the page was loaded. Review them again, then authorize.";

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

/** A link between an app and a project (active or revoked). */
export interface Link {
  id: string;
  appId: string;
  projectId: string;
  projectName: string;
  authorizedAt: string;
  /** Who approved the current grant; null when done by the operator or the user was deleted. */
  authorizedBy: { id: string; name: string; email: string } | null;
  /** What the link lets the app do now: the consented permissions the app still asks for. */
  grantedPermissions: Permission[];
  /** What the app asks for that this link has not approved yet (waiting for an organizer). */
  pendingPermissions: Permission[];
  revokedAt: string | null;
}

/** An app connected to a project, as the project's Integrations tab lists it. */
export interface Integration {
  app: { id: string; name: string; description: string | null };
  grantedPermissions: Permission[];
  requestedPermissions: Permission[];
  /** The app asks for a permission this project has not granted: an organizer may re-approve. */
  updateRequested: boolean;
  authorizedAt: string;
  lastUsedAt: string | null;
  requestsLast30Days: number;
}

/** The actor of an authenticated API request, with the app's name for `viewer`. */
export type AuthenticatedApp = Extract<Actor, { kind: "app" }> & { appName: string };

export type CreateAppInput = z.input<typeof createInput>;
export type UpdateAppInput = z.input<typeof updateInput>;

function unauthenticated(): AppError {
  // One message for malformed, unknown, rotated and deleted tokens: the answer reveals nothing.
  return new AppError(ErrorCode.UNAUTHENTICATED, "The access token is invalid or has been revoked");
}

function userIdOf(actor: Actor): string | null {
  return actor.kind === "user" ? actor.userId : null;
}

function presentLink(row: LinkDetailsRow, appPermissions: readonly Permission[]): Link {
  return {
    id: row.id,
    appId: row.app_id,
    projectId: row.project_id,
    projectName: row.project_name,
    authorizedAt: row.authorized_at,
    authorizedBy:
      row.authorized_by && row.authorizer_name !== null && row.authorizer_email !== null
        ? { id: row.authorized_by, name: row.authorizer_name, email: row.authorizer_email }
        : null,
    grantedPermissions: effectiveLinkPermissions(row.permissions, appPermissions),
    pendingPermissions: row.revoked_at ? [] : missingFromGrant(row.permissions, appPermissions),
    revokedAt: row.revoked_at,
  };
}

/** `app.link.created|updated|revoked`, about the link (the project it reaches is the event's project). */
function linkEvent(projectId: string, linkId: string, verb: "created" | "updated" | "revoked"): DomainEvent {
  return { projectId, type: `app.link.${verb}`, object: { typename: "AppLink", id: linkId } };
}

/**
 * Apps, their tokens, connect links and linked projects: the developer side (create, edit, rotate,
 * delete), the organizer side (connect, revoke, integrations) and the API's authentication.
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
      changes.announce(row.project_id, ...linked);
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
      changes.announce(app.project_id, ...linked);
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
      changes.announce(row.project_id, ...linked);
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
     * Links a project to an app (consent), granting exactly the permissions the organizer was shown
     * (`shownPermissions`): when the app asks for anything else now, nothing is granted and CONFLICT
     * asks to review the page again. Authorizing an active link again re-approves it. Without
     * `shownPermissions` (the operator's CLI) the app's current permissions are granted.
     */
    async authorize(
      actor: Actor,
      input: { appId: string; projectId: string; shownPermissions?: string | undefined },
    ): Promise<Link> {
      const data = parseInput(authorizeInput, input);
      const app = await appsRepository.findById(db, data.appId);
      if (!app) throw notFound("App");
      await access.requireAction(actor, data.projectId, "integrations.manage");
      if (app.project_id === data.projectId) {
        throw badInput([
          { field: ["projectId"], message: "is the app's home project, which the app can always reach" },
        ]);
      }
      // An unverified developer could impersonate a well-known app by name; until an owner of the
      // home project verifies their email, only that project's own team may connect the app.
      const developerVerified = await appsRepository.hasVerifiedOwner(db, app.project_id);
      const actorInHomeTeam =
        actor.kind === "user" && (await appsRepository.isMember(db, app.project_id, actor.userId));
      if (!canConnectApp(actor, { developerVerified, actorInHomeTeam })) {
        throw new AppError(
          ErrorCode.FORBIDDEN,
          "This app's developer has not verified their email address yet, so the app can only be connected by members of its own project",
        );
      }
      // Stored as shown, not re-read from the app: a change landing after this check only narrows
      // (effectiveLinkPermissions); a widening still waits for a new consent.
      const granted = serializePermissions(
        data.shownPermissions === undefined
          ? parsePermissions(app.permissions)
          : parsePermissions(data.shownPermissions),
      );
      if (
        data.shownPermissions !== undefined &&
        granted !== serializePermissions(parsePermissions(app.permissions))
      ) {
        throw new AppError(ErrorCode.CONFLICT, permissionsChangedMessage);
      }
      const linkId = newId();
      const link = await changes.write(db, actor, data.projectId, async (trx) => {
        await appsRepository.upsertActiveLink(trx, {
          id: linkId,
          app_id: app.id,
          project_id: data.projectId,
          authorized_by: userIdOf(actor),
          authorized_at: nowIso(),
          permissions: granted,
          revoked_at: null,
          revoked_by: null,
        });
        const active = await appsRepository.findActiveLink(trx, app.id, data.projectId);
        const details = active && (await appsRepository.findLinkDetails(trx, active.id));
        if (!details) throw notFound("Link");
        // Our id survived the upsert only when no active link existed: otherwise this re-approved it.
        const verb = active.id === linkId ? "created" : "updated";
        await changes.event(trx, actor, {
          ...linkEvent(data.projectId, active.id, verb),
          changed: ["permissions"],
          values: { app: app.name, appId: app.id, permissions: granted },
        });
        return details;
      });
      return presentLink(link, parsePermissions(app.permissions));
    },

    /**
     * Ends a link (OWNER/ADMIN of the linked project, or the operator); revoking twice is fine.
     * Resolves to true when an active link was ended, false when there was none.
     */
    async revokeLink(actor: Actor, input: { appId: string; projectId: string }): Promise<boolean> {
      const data = parseInput(linkRef, input);
      await access.requireAction(actor, data.projectId, "integrations.manage");
      const app = await appsRepository.findById(db, data.appId);
      if (!app) throw notFound("App");
      // Saying "revoked" here would be a lie: an app always reaches its home project.
      if (app.project_id === data.projectId) {
        throw badInput([
          { field: ["projectId"], message: "is the app's home project, which only deleting the app ends" },
        ]);
      }
      return changes.write(db, actor, data.projectId, async (trx) => {
        const active = await appsRepository.findActiveLink(trx, data.appId, data.projectId);
        if (!active) return false;
        await appsRepository.revokeActiveLink(trx, data.appId, data.projectId, nowIso(), userIdOf(actor));
        await changes.event(trx, actor, {
          ...linkEvent(data.projectId, active.id, "revoked"),
          values: { app: app.name, appId: app.id },
        });
        return true;
      });
    },

    /** Projects linked to an app (its Linked projects tab), active first; home-project managers only. */
    async listLinksForApp(actor: Actor, appId: string): Promise<Link[]> {
      const app = await loadManagedApp(actor, appId);
      const permissions = parsePermissions(app.permissions);
      const rows = await appsRepository.listLinksForApp(db, appId);
      return rows.map((row) => presentLink(row, permissions));
    },

    /** Apps connected to a project (its Integrations tab); any member may look. */
    async listIntegrations(actor: Actor, projectId: string): Promise<Integration[]> {
      await access.requireAction(actor, projectId, "integrations.view");
      const rows = await appsRepository.listIntegrations(db, projectId);
      const usageById = await usageOf(rows.map((r) => ({ id: r.app_id, last_used_at: r.app_last_used_at })));
      return rows.map((row) => {
        const requested = parsePermissions(row.app_permissions);
        const consented = new Set(parsePermissions(row.permissions));
        return {
          app: { id: row.app_id, name: row.app_name, description: row.app_description },
          grantedPermissions: effectiveLinkPermissions(row.permissions, requested),
          requestedPermissions: requested,
          updateRequested: requested.some((p) => !consented.has(p)),
          authorizedAt: row.authorized_at,
          lastUsedAt: usageById.get(row.app_id)?.lastUsedAt ?? null,
          requestsLast30Days: usageById.get(row.app_id)?.requestsLast30Days ?? 0,
        };
      });
    },

    /**
     * The app behind an API token, or UNAUTHENTICATED. A malformed token is refused without a
     * database hit; any other costs one indexed lookup. Nothing is cached, so a rotated or deleted
     * token fails on the very next request on every process.
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
      };
    },

    /** The projects an app reaches (home, then active links by authorization time), keyset-paged. */
    async reachableProjects(
      actor: Extract<Actor, { kind: "app" }>,
      window: PageWindow,
    ): Promise<Page<Project>> {
      const rows = await appsRepository.reachableProjects(db, actor.appId, actor.homeProjectId, window);
      const page = toPage(rows, window, (row) => [row.sort_key, row.id]);
      return { ...page, items: page.items.map(presentProject) };
    },

    /** How many projects the app reaches (home plus active links). */
    countReachableProjects(actor: Extract<Actor, { kind: "app" }>): Promise<number> {
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
