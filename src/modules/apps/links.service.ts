import type { Db } from "../../db/database.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { newId } from "../../shared/ids.js";
import type { DomainEvent, ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { parseInput } from "../../shared/validation.js";
import { type AccessService, effectiveLinkPermissions } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { type Permission, parsePermissions, serializePermissions } from "../access/permissions.js";
import { canConnectApp } from "../access/policy.js";
import { authorizeInput, linkRef } from "./apps.inputs.js";
import { type AppRow, appsRepository, type LinkDetailsRow } from "./apps.repository.js";
import { missingFromGrant } from "./consent.js";

// The organizer's side of apps: linking a project to an app (consent), revoking it, and the lists
// of links and integrations. Part of the apps service (createAppsService spreads it in), kept apart
// so each file reads as one side of the platform.

/** Why an Authorize was refused when the app's permissions changed after the page was shown. */
const permissionsChangedMessage =
  "This app's requested permissions changed after the page was loaded. Review them again, then authorize.";

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

/** The user behind an action, for "authorized by" and "created by" columns (null for the operator). */
export function userIdOf(actor: Actor): string | null {
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
export function linkEvent(
  projectId: string,
  linkId: string,
  verb: "created" | "updated" | "revoked",
): DomainEvent {
  return { projectId, type: `app.link.${verb}`, object: { typename: "AppLink", id: linkId } };
}

/** What the link operations borrow from the apps service. */
export interface LinkDependencies {
  db: Db;
  access: AccessService;
  changes: ProjectChanges;
  /** The app for the managers of its home project, NOT_FOUND for anyone else. */
  loadManagedApp(actor: Actor, appId: string): Promise<AppRow>;
  /** Last use and 30-day request counts of apps, this process's unwritten counts included. */
  usageOf(
    rows: readonly { id: string; last_used_at: string | null }[],
  ): Promise<Map<string, { lastUsedAt: string | null; requestsLast30Days: number }>>;
}

/** Connect, revoke, and the links and integrations lists. */
export function linkOperations({ db, access, changes, loadManagedApp, usageOf }: LinkDependencies) {
  return {
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
      // A test project's app stays in its sandbox: its token must never reach another project.
      if (await appsRepository.isTestProject(db, app.project_id)) {
        throw badInput([
          {
            field: ["appId"],
            message: "belongs to a test project and cannot be connected to other projects",
          },
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
  };
}
