import type { Db, Tx } from "../../db/database.js";
import { notFound } from "../../errors.js";
import { objectEvent, updateEvent } from "../../shared/project-changes.js";
import { parseInput } from "../../shared/validation.js";
import type { Actor } from "../access/actor.js";
import { type RowVisibility, type RowWriter, writeRow } from "../access/row-access.js";
import { type DeleteInput, deleteInput } from "./agenda.model.js";

/**
 * What a change to one agenda table (sessions, speakers, tracks, rooms) needs to know of it: its
 * name in errors and in the audit log, its SQL and how a row is presented. Who may see the row is
 * the table's own rule and is passed as `visible`.
 */
export interface AgendaTable<R extends { id: string; project_id: string }, T> {
  what: string;
  visible: RowVisibility<R>;
  find(db: Db, projectId: string, id: string): Promise<R | undefined>;
  locate(db: Db, id: string): Promise<R | undefined>;
  remove(db: Db, projectId: string, id: string): Promise<void>;
  present(row: R): T;
}

/** Authorizes a write to row `id` under agenda:write and runs `body` on it in the write's transaction. */
async function writeAgendaRow<R extends { id: string; project_id: string }, T, Out>(
  writer: RowWriter,
  actor: Actor,
  table: AgendaTable<R, T>,
  id: string,
  body: (trx: Tx, projectId: string, row: R) => Promise<Out>,
): Promise<Out> {
  const located = await table.locate(writer.db, id);
  return writeRow(
    writer,
    actor,
    located,
    table.what,
    "agenda:write",
    table.visible,
    async (trx, projectId) => {
      const row = await table.find(trx, projectId, id);
      if (!row) throw notFound(table.what);
      return body(trx, projectId, row);
    },
  );
}

/**
 * Changes one row under agenda:write: `change` writes it (the row as it was is passed in, read
 * first so the audit log can show each field as before → after), then the row is read again,
 * logged and returned.
 */
export function updateAgendaRow<R extends { id: string; project_id: string }, T>(
  writer: RowWriter,
  actor: Actor,
  table: AgendaTable<R, T>,
  data: { id: string },
  change: (trx: Tx, projectId: string, before: R) => Promise<void>,
): Promise<T> {
  return writeAgendaRow(writer, actor, table, data.id, async (trx, projectId, before) => {
    await change(trx, projectId, before);
    const after = await table.find(trx, projectId, data.id);
    if (!after) throw notFound(table.what);
    await writer.changes.event(
      trx,
      actor,
      updateEvent(projectId, table.what, data.id, data, { before, after }),
    );
    return table.present(after);
  });
}

/** Deletes one row under agenda:write, logs it and returns it as it was. */
export function deleteAgendaRow<R extends { id: string; project_id: string }, T>(
  writer: RowWriter,
  actor: Actor,
  table: AgendaTable<R, T>,
  input: DeleteInput,
): Promise<T> {
  const { id } = parseInput(deleteInput, input);
  return writeAgendaRow(writer, actor, table, id, async (trx, projectId, row) => {
    await table.remove(trx, projectId, id);
    await writer.changes.event(trx, actor, objectEvent(projectId, table.what, id, "deleted"));
    return table.present(row);
  });
}
