import type { Db, Tx } from "../../db/database.js";
import { notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
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
 * `resolveRowAccess` for many rows at once: each project's access is decided once. Answers the
 * access of each row the actor may see; the others are absent.
 */
export async function resolveRowsAccess<R extends { project_id: string }>(
  access: AccessService,
  actor: Actor,
  rows: readonly R[],
  isVisible: RowVisibility<R>,
): Promise<Map<R, ProjectAccess>> {
  const projects = new Map<string, Promise<ProjectAccess | undefined>>();
  const found = new Map<R, ProjectAccess>();
  for (const row of rows) {
    let projectAccess = projects.get(row.project_id);
    if (!projectAccess) {
      projectAccess = access.resolve(actor, row.project_id);
      projects.set(row.project_id, projectAccess);
    }
    const granted = await projectAccess;
    if (granted && (await isVisible(granted, row))) found.set(row, granted);
  }
  return found;
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
 * transaction (rolled back if the request was cut off meanwhile) that also bumps the version of
 * the data areas the permission covers, and announces the change after the commit.
 */
export async function writeRow<R extends { project_id: string }, T>(
  writer: RowWriter,
  actor: Actor,
  row: R | undefined,
  what: string,
  permission: Permission,
  isVisible: RowVisibility<R>,
  change: (trx: Tx, projectId: string, access: ProjectAccess) => Promise<T>,
): Promise<T> {
  const granted = await requireRowPermission(writer.access, actor, row, what, permission, isVisible);
  const { projectId } = granted;
  return writer.changes.write(
    writer.db,
    actor,
    projectId,
    (trx) => change(trx, projectId, granted),
    areasWrittenUnder(permission),
  );
}

/**
 * One new row in a project: checks the permission first (so a caller without it learns nothing
 * from validation), then `prepare` validates and builds, `insert` writes in one transaction that
 * also bumps the project's data version, and the change is announced after the commit. Returns what `prepare` built.
 */
export async function createRow<T>(
  writer: RowWriter,
  actor: Actor,
  projectId: string,
  permission: Permission,
  prepare: () => T,
  insert: (trx: Tx, prepared: T) => Promise<void>,
): Promise<T> {
  await writer.access.requirePermission(actor, projectId, permission);
  const prepared = prepare();
  await writer.changes.write(
    writer.db,
    actor,
    projectId,
    (trx) => insert(trx, prepared),
    areasWrittenUnder(permission),
  );
  return prepared;
}

/** The columns of `R` a field of `D` may be written to: those whose type holds the field's value. */
type ColumnFor<D, R, K extends keyof D> = {
  [C in keyof R]-?: Exclude<D[K], undefined> extends R[C] ? C : never;
}[keyof R];

/**
 * The column changes of a partial update: each field of the parsed input that was given (not
 * undefined; null clears) under its column's name. A column of the wrong type fails to compile.
 */
export function patchFrom<D extends object, R>(
  data: D,
  columns: { [K in keyof D]?: ColumnFor<D, R, K> },
): Partial<R> {
  const patch: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(columns)) {
    const value = (data as Record<string, unknown>)[field];
    if (value !== undefined) patch[column as string] = value;
  }
  return patch as Partial<R>;
}
