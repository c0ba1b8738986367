import type { Config } from "../../config.js";
import type { Db } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { type Permission, parsePermissions, permissionCatalogue } from "../access/permissions.js";
import type { Mailer } from "../accounts/mailer.js";
import { type Throttle, throttleRules } from "../accounts/throttle.js";
import type { AppRow } from "./apps.repository.js";
import { appsRepository } from "./apps.repository.js";

/** Tells the managers of linked projects that an app asks for more than their link granted. */
export interface UpdateRequestNotifier {
  /** Starts mailing in the background; failures are logged, never thrown at the caller. */
  notify(app: AppRow, added: readonly Permission[]): void;
  /** Resolves once every mailing started so far has ended (shutdown, one-shot CLI commands). */
  settled(): Promise<void>;
}

function titleOf(permission: Permission): string {
  return permissionCatalogue.find((p) => p.name === permission)?.title ?? permission;
}

/**
 * One email per owner or admin, listing every project of theirs whose link lacks a permission the
 * app just added (a person managing three linked projects gets one email, not three). Throttled per
 * app and recipient (throttleRules.updateRequestMail); the Integrations badge shows the request
 * whether or not a mail went out.
 */
export function createUpdateRequestNotifier(deps: {
  db: Db;
  config: Config;
  mailer: Mailer;
  throttle: Throttle;
  logger: Logger;
}): UpdateRequestNotifier {
  const { db, config, mailer, throttle, logger } = deps;

  async function send(app: AppRow, added: readonly Permission[]): Promise<void> {
    const rows = await appsRepository.linkManagers(db, app.id);
    const byRecipient = new Map<string, { name: string; projects: { id: string; name: string }[] }>();
    for (const row of rows) {
      const granted = new Set(parsePermissions(row.permissions));
      // A project that already consented to everything added (a re-widening) has nothing to approve.
      if (added.every((p) => granted.has(p))) continue;
      const entry = byRecipient.get(row.email) ?? { name: row.name, projects: [] };
      entry.projects.push({ id: row.project_id, name: row.project_name });
      byRecipient.set(row.email, entry);
    }
    const asked = added.map((p) => `  - ${titleOf(p)} (${p})`).join("\n");
    // One at a time: a slow SMTP server then holds one connection, not hundreds.
    for (const [to, { name, projects }] of byRecipient) {
      const key = `${app.id}:${to.toLowerCase()}`;
      if (!(await throttle.take([{ rule: throttleRules.updateRequestMail, key }]))) continue;
      const first = projects[0];
      if (!first) continue;
      const link = `${config.baseUrl}/b/${first.id}/settings/integrations`;
      const list = projects
        .map((p) => `  - ${p.name} (${p.id}): ${config.baseUrl}/b/${p.id}/settings/integrations`)
        .join("\n");
      await mailer.send({
        to,
        subject: `${app.name} asks for more access to your project`,
        text:
          `Hello ${name},\n\nthe app "${app.name}" now also asks for:\n\n${asked}\n\n` +
          `It keeps only what you granted until an owner or admin approves. Review the request on the ` +
          `Integrations tab of:\n\n${list}\n\nIf you do not approve, nothing changes.\n`,
        link,
      });
    }
  }

  const running = new Set<Promise<void>>();
  return {
    notify(app, added) {
      const sending = send(app, added)
        .catch((error: unknown) =>
          logger.error({ err: error, appId: app.id }, "Could not email the update request of an app"),
        )
        .finally(() => running.delete(sending));
      running.add(sending);
    },
    async settled() {
      await Promise.all([...running]);
    },
  };
}
