import type { Db } from "../../db/database.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { type Permission, parsePermissions } from "../access/permissions.js";
import type { AppsService } from "../apps/apps.service.js";
import type { GrantUsage } from "./grant-usage.js";
import { type GrantListRow, oauthRepository } from "./oauth.repository.js";

/** The most grants a list shows: the newest ones; older ended grants stay in the audit log. */
const listedGrants = 50;

/** An OAuth grant as the Integrations and Linked projects tabs show it. */
export interface Grant {
  id: string;
  appId: string;
  appName: string;
  projectId: string;
  projectName: string;
  scopes: Permission[];
  authorizedBy: string | null;
  createdAt: string;
  lastUsedAt: string | null;
  /** Active, or why it ended: revoked (by whom or what) or its link revoked. */
  status: "active" | "revoked" | "link_revoked";
  revokedReason: string | null;
}

/** The grants lists of the dashboard (organizer and developer). */
export function grantLists(db: Db, access: AccessService, apps: AppsService, usage: GrantUsage) {
  function present(row: GrantListRow): Grant {
    const pending = usage.pendingLastUse(row.id);
    return {
      id: row.id,
      appId: row.app_id,
      appName: row.app_name,
      projectId: row.project_id,
      projectName: row.project_name,
      scopes: parsePermissions(row.scopes),
      authorizedBy: row.authorizer_name,
      createdAt: row.created_at,
      lastUsedAt: pending && (!row.last_used_at || pending > row.last_used_at) ? pending : row.last_used_at,
      status: row.revoked_at ? "revoked" : row.link_revoked_at ? "link_revoked" : "active",
      revokedReason: row.revoked_reason,
    };
  }

  return {
    /** The project's grants, newest first (its Integrations tab); any member may look. */
    async grantsOfProject(actor: Actor, projectId: string): Promise<Grant[]> {
      await access.requireAction(actor, projectId, "integrations.view");
      return (await oauthRepository.listGrants(db, { projectId }, listedGrants)).map(present);
    },

    /** The app's grants, newest first (its Linked projects tab); home-project managers only. */
    async grantsOfApp(actor: Actor, appId: string): Promise<Grant[]> {
      const app = await apps.getApp(actor, appId);
      return (await oauthRepository.listGrants(db, { appId: app.id }, listedGrants)).map(present);
    },
  };
}
