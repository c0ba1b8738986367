import { sql } from "kysely";
import type { Tx } from "../../db/database.js";
import { afterCommit } from "../../db/transaction.js";
import type { DomainEvent } from "../project-changes.js";
import { encodeLiveEvent, type LiveEvent, liveEventTypes } from "./live-events.js";

/**
 * The recorder (ProjectChanges.addRecorder) that makes a write's events reach subscribers: this
 * process's after the commit (`afterCommit`, never for a rolled-back write), and on PostgreSQL every
 * other process's through the change feed's channel. NOTIFY is transactional: PostgreSQL sends it at
 * the commit and drops it with a rollback, so the other processes hear it after the commit or never,
 * in commit order, on the connection that already carries the project changes.
 */
export function liveRecorder(
  engine: "sqlite" | "postgres",
  channel: string,
  publish: (event: LiveEvent) => void,
) {
  return async (trx: Tx, _actor: object | undefined, event: DomainEvent): Promise<void> => {
    if (!liveEventTypes.has(event.type)) return;
    const live: LiveEvent = { projectId: event.projectId, type: event.type, objectId: event.object.id };
    afterCommit(trx, () => publish(live));
    if (engine === "postgres") await sql`select pg_notify(${channel}, ${encodeLiveEvent(live)})`.execute(trx);
  };
}
