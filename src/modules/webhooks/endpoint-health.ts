import type { Config } from "../../config.js";
import type { DatabaseHandle } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { nowIso } from "../../shared/time.js";
import type { Mailer } from "../accounts/mailer.js";
import { type EndpointRow, webhooksRepository as repo } from "./webhooks.repository.js";

/** An endpoint failing this long without one success is disabled and its developer emailed. */
const disableAfterMs = 3 * 24 * 60 * 60 * 1000;

/** What disabling an endpoint needs. */
export interface HealthDeps {
  database: DatabaseHandle;
  config: Config;
  logger: Logger;
  mailer: Mailer;
}

/**
 * Disables an endpoint failing for 3 days (and tells its developer). `failing_since` itself is
 * kept with the results (finishAttempts); the row read before the send may be a result or two
 * behind, so it only says whether to look, and the update checks the stored value.
 */
export async function disableIfFailing(deps: HealthDeps, endpoint: EndpointRow): Promise<void> {
  const { db } = deps.database;
  const cutoff = new Date(Date.now() - disableAfterMs).toISOString();
  if (!endpoint.failing_since || endpoint.failing_since >= cutoff) return;
  const disabled = await db
    .updateTable("webhook_endpoints")
    .set({ disabled_at: nowIso() })
    .where("app_id", "=", endpoint.app_id)
    .where("disabled_at", "is", null)
    .where("failing_since", "<", cutoff)
    .executeTakeFirst();
  // Only the process that disabled it sends the email.
  if (Number(disabled.numUpdatedRows) === 0) return;
  const developer = await repo.developerEmails(db, endpoint.app_id);
  const link = `${deps.config.baseUrl}/apps/${endpoint.app_id}/webhooks`;
  for (const to of developer.emails) {
    await deps.mailer
      .send({
        to,
        subject: `Webhooks of ${developer.name} were disabled`,
        text: `Every delivery to ${endpoint.url} has failed since ${endpoint.failing_since}, so Eventgraph stopped sending to it. Nothing was lost: fix the endpoint, save it again on the app's Webhooks tab and redeliver the failed events.\n\n${link}`,
        link,
      })
      .catch((error) => deps.logger.error({ err: error }, "Could not email the developer"));
  }
}
