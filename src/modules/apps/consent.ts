import type { Db } from "../../db/database.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { type Permission, parsePermissions, permissionCatalogue } from "../access/permissions.js";
import { appsRepository } from "./apps.repository.js";

// What the consent page and the approval badge read about an app: public facts and pending
// approvals, apart from the apps service's writes. The apps service spreads these into itself.

/** What the consent page shows about a permission. */
interface PermissionInfo {
  name: Permission;
  title: string;
  description: string;
}

/** Public facts about an app for its connect page. */
export interface ConnectInfo {
  app: {
    id: string;
    name: string;
    description: string | null;
    redirectUrl: string | null;
    websiteUrl: string | null;
    privacyPolicyUrl: string | null;
  };
  permissions: PermissionInfo[];
  /** False while no owner of the app's home project has verified their email. */
  homeProjectVerified: boolean;
  /**
   * Who built the app: its creator while still on the home project's team, else the project's first
   * owner. Only the domain of their email is shown, and only once verified: proof of an organisation
   * without handing out an address.
   */
  developer: { name: string; verifiedEmailDomain: string | null } | null;
}

/** The permissions the app asks for that a link's consent (stored form) does not include. */
export function missingFromGrant(consented: string, requested: readonly Permission[]): Permission[] {
  const granted = new Set(parsePermissions(consented));
  return requested.filter((p) => !granted.has(p));
}

/** The URLs an app set (redirect, website, privacy policy). */
export interface AppUrls {
  redirectUrl: string | null;
  websiteUrl: string | null;
  privacyPolicyUrl: string | null;
}

/** Read-only queries behind the consent page, the approval badge and `Viewer`'s URLs. */
export function consentQueries(db: Db) {
  return {
    /** What the public connect page shows; NOT_FOUND for an unknown app. */
    async connectInfo(appId: string): Promise<ConnectInfo> {
      const row = await appsRepository.findById(db, appId);
      if (!row) throw notFound("App");
      const requested = new Set(parsePermissions(row.permissions));
      const developer = await appsRepository.developer(db, row.project_id, row.created_by);
      return {
        app: {
          id: row.id,
          name: row.name,
          description: row.description,
          redirectUrl: row.redirect_url,
          websiteUrl: row.website_url,
          privacyPolicyUrl: row.privacy_url,
        },
        permissions: permissionCatalogue
          .filter((p) => requested.has(p.name))
          .map((p) => ({ name: p.name, title: p.title, description: p.description })),
        homeProjectVerified: await appsRepository.hasVerifiedOwner(db, row.project_id),
        developer: developer
          ? {
              name: developer.name,
              verifiedEmailDomain: developer.email_verified_at
                ? (developer.email.split("@").pop() ?? "").toLowerCase()
                : null,
            }
          : null,
      };
    },

    /** How many apps linked to the project wait for an organizer to approve added permissions. */
    async pendingApprovalCount(projectId: string): Promise<number> {
      const rows = await appsRepository.listIntegrations(db, projectId);
      return rows.filter(
        (row) => missingFromGrant(row.permissions, parsePermissions(row.app_permissions)).length > 0,
      ).length;
    },

    /** The URLs an app set, for `Viewer` (the calling app reads its own settings). */
    async urlsOf(appId: string): Promise<AppUrls> {
      const row = await appsRepository.findById(db, appId);
      if (!row)
        throw new AppError(ErrorCode.UNAUTHENTICATED, "The access token is invalid or has been revoked");
      return {
        redirectUrl: row.redirect_url,
        websiteUrl: row.website_url,
        privacyPolicyUrl: row.privacy_url,
      };
    },
  };
}
