import type { Db, Tx } from "../../db/database.js";
import { inTransaction } from "../../db/transaction.js";
import { notFound } from "../../errors.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import type { AccessService, ProjectAccess } from "./access.service.js";
import type { Actor } from "./actor.js";
import type { Permission } from "./permissions.js";
import { assertPermission } from "./policy.js";

/** Whether the actor may see this row without any write permission (a module's read rule). */
export type RowVisibility<R> = (access: ProjectAccess, row: R) => boolean | Promise<boolean>;

/**
 * Access to a row found by its id alone (`node(id)`, update/delete by id), or undefined when the row
 * is missing, its project is invisible to the actor, or the row itself is hidden by the read rules.
 */
export async function resolveRowAccess<R extends { project_id: string }>(
  access: AccessService,
  actor: Actor,
  row: R | undefined,
  isVisible: RowVisibility<R>,
): Promise<ProjectAccess | undefined> {
  if (!row) return undefined;
  const projectAccess = await access.resolve(actor, row.project_id);
  if (!projectAccess || !(await isVisible(projectAccess, row))) return undefined;
  return projectAccess;
}

/**
 * Authorizes a write to a row found by its id. A missing row, an invisible project and a row the
 * actor could not even read all answer NOT_FOUND named after the row (never "Project not found",
 * which would tell that the id exists); a readable row without the permission answers FORBIDDEN.
 */
export async function requireRowPermission<R extends { project_id: string }>(
  access: AccessService,
  actor: Actor,
  row: R | undefined,
  what: string,
  permission: Permission,
  isVisible: RowVisibility<R>,
): Promise<ProjectAccess> {
  if (!row) throw notFound(what);
  const projectAccess = await access.resolve(actor, row.project_id);
  if (!projectAccess) throw notFound(what);
  if (!projectAccess.permissions.has(permission) && !(await isVisible(projectAccess, row))) {
    throw notFound(what);
  }
  assertPermission(projectAccess, permission);
  return projectAccess;
}

/** What `writeRow` needs: the database, the access rules and where to announce changes. */
export interface RowWriter {
  db: Db;
  access: AccessService;
  changes: ProjectChanges;
}

/**
 * One write to an existing row: authorizes it (as `requireRowPermission`), runs `change` in one
 * transaction (rolled back if the request was cut off meanwhile) and announces the project's change.
 */
export async function writeRow<R extends { project_id: string }, T>(
  writer: RowWriter,
  actor: Actor,
  row: R | undefined,
  what: string,
  permission: Permission,
  isVisible: RowVisibility<R>,
  change: (trx: Tx, projectId: string) => Promise<T>,
): Promise<T> {
  const { projectId } = await requireRowPermission(writer.access, actor, row, what, permission, isVisible);
  const result = await inTransaction(writer.db, actor, (trx) => change(trx, projectId));
  await writer.changes.notify(projectId);
  return result;
}
