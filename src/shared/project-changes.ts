import type { Db, Tx } from "../db/database.js";
import { inTransaction } from "../db/transaction.js";
import { type AreaMask, allAreas, areaBit } from "./data-areas.js";

/** Hears of a committed change to `areas` of a project's data. */
export type ChangeListener = (projectId: string, areas: AreaMask) => void;

/** What a write did to a project, in the words of the event catalogue (`attendee.registered`). */
export interface DomainEvent {
  projectId: string;
  /** Dot name, past tense: `<object>.<verb>` (`session.updated`, `app.link.revoked`). */
  type: string;
  /** The changed object, as the GraphQL type and the row id it is known by. */
  object: { typename: string; id: string };
  /** The fields an update changed (GraphQL field names), when the write knows them. */
  changed?: string[];
  /**
   * The new values of changed fields, when the write knows them and the audit log cannot read them
   * back (a member's role, an app's permissions). Never secrets, tokens or hashes: every recorder
   * (the audit log, webhook payloads) may show them.
   */
  values?: Record<string, unknown>;
  /**
   * The object's whole row as the write left it, when the write holds it anyway (read or returned
   * in its transaction): the audit log takes the values it shows from it instead of reading the row
   * back, a statement less per write. Recorders other than the audit log ignore it.
   */
  row?: Readonly<Record<string, unknown>>;
  /**
   * The object's row as it was before an update, when the write read it anyway: the audit log then
   * shows each changed field as before → after, and leaves out the fields a form sent unchanged.
   */
  before?: Readonly<Record<string, unknown>>;
}

/** Stores an event inside the write's transaction (it must use `trx`, never another connection). */
export type EventRecorder = (trx: Tx, actor: object | undefined, event: DomainEvent) => Promise<void>;

/**
 * Announces that a project's data changed, in two halves. `record` persists the change where every
 * process sees it (the project's version counters, which the response cache checks) INSIDE the
 * write's transaction: the data and its version commit together, so no crash between the two can
 * leave another process serving a stale cached answer. `announce` then tells local listeners (the
 * cache drops its entries; with Redis, other processes are told to drop theirs too) after the
 * commit, when what they re-read is visible. A change names the areas it touched
 * (src/shared/data-areas.ts), so only the answers that read them are dropped.
 *
 * A change of the project area (settings, apps, tokens, links: what grants access) returns only once
 * every server process has heard of it (`heardEverywhere`, PostgreSQL's fence), so a revocation
 * holds from the very next request whichever process answers it, as PRODUCT.md §5 asks.
 */
export class ProjectChanges {
  private readonly listeners = new Set<ChangeListener>();
  private readonly recorders = new Set<EventRecorder>();
  // The transactions whose write found nothing to change (see `unchanged`).
  private readonly unchangedWrites = new WeakSet<Tx>();

  /**
   * `persist` bumps the version counters of `areas` within the given transaction or database;
   * `heardEverywhere` resolves once every other process has heard of the changes committed so far
   * (SQLite needs none: each process reads data_version before it answers).
   */
  constructor(
    private readonly persist: (
      db: Db | Tx,
      projectId: string,
      areas: AreaMask,
    ) => Promise<void> = async () => {},
    private readonly heardEverywhere: () => Promise<void> = async () => {},
  ) {}

  /**
   * Runs `work` in one transaction (see inTransaction) that also records a change of `areas` of
   * `projectId` (all of them unless told), then announces it once committed. A change of the project
   * area then waits until every other process has heard of it, unless `takesNothingAway` (a new
   * project: no process can hold access to it that the write would end).
   */
  async write<T>(
    db: Db,
    actor: object | undefined,
    projectId: string,
    work: (trx: Tx) => Promise<T>,
    areas: AreaMask = allAreas,
    { takesNothingAway = false }: { takesNothingAway?: boolean } = {},
  ): Promise<T> {
    let changed = true;
    const result = await inTransaction(db, actor, async (trx) => {
      const value = await work(trx);
      changed = !this.unchangedWrites.has(trx);
      if (changed) await this.persist(trx, projectId, areas);
      return value;
    });
    if (!changed) return result;
    this.notify(projectId, areas);
    if (areas & areaBit.project && !takesNothingAway) await this.heardEverywhere();
    return result;
  }

  /**
   * Says, from inside `write`'s work, that the write found nothing to change after all: a second
   * check-in of someone already in, a repeated scan at the door, an undo with nothing to undo. The
   * write then bumps no version and announces nothing, so the answers cached for its areas stay: a
   * door app that retries, or a scanner that reads a badge twice, would otherwise evict every cached
   * attendee page of the event with each repeat. Only for work that wrote no row.
   */
  unchanged(trx: Tx): void {
    this.unchangedWrites.add(trx);
  }

  /** Records changes (of every area) of `projectIds` inside the caller's transaction (when they are known only there). */
  async record(trx: Tx, ...projectIds: string[]): Promise<void> {
    for (const projectId of new Set(projectIds)) await this.persist(trx, projectId, allAreas);
  }

  /**
   * Records a change of `areas` of one project inside the caller's transaction. Called first in a
   * write, it also locks the project's version row until the commit, so writes to one project that must
   * see each other (a repeated form submit) run one after the other.
   */
  async recordAreas(trx: Tx, projectId: string, areas: AreaMask): Promise<void> {
    await this.persist(trx, projectId, areas);
  }

  /**
   * Says what a write did, inside its transaction: hands the event to every recorder, whose rows
   * commit or roll back with the write itself (an outbox, an audit log). A recorder that throws
   * aborts the write: losing the event is worse. It does not bump version counters: the enclosing
   * `write` (or `record`) does, for the areas it names, so a check-in's event does not evict the
   * agenda; an event of something no cached answer reads (a member, an invitation) bumps nothing.
   */
  async event(trx: Tx, actor: object | undefined, event: DomainEvent): Promise<void> {
    for (const recorder of this.recorders) await recorder(trx, actor, event);
  }

  /** Registers a recorder called by `event` inside the write's transaction; returns its remover. */
  addRecorder(recorder: EventRecorder): () => void {
    this.recorders.add(recorder);
    return () => this.recorders.delete(recorder);
  }

  /**
   * After the transaction that `record`ed changes of `projectIds` committed: tells every listener,
   * then waits until every other process has heard of them too.
   */
  async announceRecorded(...projectIds: string[]): Promise<void> {
    this.announce(...projectIds);
    await this.heardEverywhere();
  }

  /** Tells this process's listeners (and through them the cluster) of changes nothing recorded. */
  announce(...projectIds: string[]): void {
    for (const projectId of new Set(projectIds)) this.notify(projectId, allAreas);
  }

  /** Registers a listener; returns the function that removes it. */
  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(projectId: string, areas: AreaMask): void {
    for (const listener of this.listeners) listener(projectId, areas);
  }
}

/** The fields a parsed update input sets (undefined means "leave as is"), for `DomainEvent.changed`. */
export function changedFields(input: object): string[] {
  return Object.entries(input)
    .filter(([field, value]) => field !== "id" && value !== undefined)
    .map(([field]) => field);
}

/**
 * The event of a verb on one object, named after its GraphQL type in snake case:
 * (`TicketType`, `updated`) -> `ticket_type.updated`.
 */
export function objectEvent(projectId: string, typename: string, id: string, verb: string): DomainEvent {
  const noun = typename.replace(/(?<=[a-z0-9])(?=[A-Z])/g, "_").toLowerCase();
  return { projectId, type: `${noun}.${verb}`, object: { typename, id } };
}

type Row = Readonly<Record<string, unknown>>;

/**
 * The event of an update of one object: the fields `input` named (see changedFields), and the row
 * as it was and as the write left it, from which the audit log shows each changed field as
 * before → after.
 */
export function updateEvent(
  projectId: string,
  typename: string,
  id: string,
  input: object,
  rows: { before: Row | undefined; after: Row },
): DomainEvent {
  return {
    ...objectEvent(projectId, typename, id, "updated"),
    changed: changedFields(input),
    before: rows.before,
    row: rows.after,
  };
}
