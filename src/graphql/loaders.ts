import DataLoader from "dataloader";
import type { Columns } from "../db/projection.js";
import type { Services } from "../services.js";

// Turns a Map-returning batch function into DataLoader's "one answer per key, in order" contract.
function fromMap<K, V>(load: (keys: readonly K[]) => Promise<Map<K, V>>, missing: V) {
  return async (keys: readonly K[]) => {
    const found = await load(keys);
    return keys.map((key) => found.get(key) ?? missing);
  };
}

// One loader per column list (see Columns): one selection asking for more columns than another
// must not be answered from rows loaded for the other. A request rarely has more than one.
function perColumns<Loader>(create: (columns: Columns) => Loader) {
  const loaders = new Map<string, Loader>();
  return (columns: Columns) => {
    const key = columns?.join(",") ?? "*";
    let loader = loaders.get(key);
    if (!loader) {
      loader = create(columns);
      loaders.set(key, loader);
    }
    return loader;
  };
}

/**
 * A relation's DataLoader that a connection can also fill ahead: it loads, with its page, what the
 * selected fields of its rows will ask for (`preload`, see graphql/selection.ts), and each row's field
 * then answers at once (`get`). Through the DataLoader alone every row's field was a promise of its
 * own, which graphql-jit follows one by one: a quarter of an attendee page miss's allocation.
 *
 * @internal Exported for its tests; the modules reach it through `createLoaders`.
 */
export class RelationLoader<V> {
  private readonly known = new Map<string, V>();
  private readonly loader: DataLoader<string, V>;

  constructor(
    private readonly batch: (ids: readonly string[]) => Promise<Map<string, V>>,
    private readonly missing: V,
  ) {
    this.loader = new DataLoader(fromMap(batch, missing));
  }

  /** The row's related value: at once when preloaded, else through the batch of this tick. */
  get(id: string): V | Promise<V> {
    const value = this.known.get(id);
    if (value !== undefined || this.known.has(id)) return value as V;
    return this.loader.load(id);
  }

  /** Loads the values of `ids` not known yet, in one statement, for `get` to answer at once. */
  async preload(ids: Iterable<string>): Promise<void> {
    const wanted = [...new Set(ids)].filter((id) => !this.known.has(id));
    if (wanted.length === 0) return;
    const found = await this.batch(wanted);
    for (const id of wanted) this.known.set(id, found.get(id) ?? this.missing);
  }
}

/**
 * One DataLoader per relation, created per request: related rows of a whole page load in one SQL
 * statement, so the number of statements does not grow with the page size. Rows reached here come
 * from parents the caller was already allowed to read.
 */
export function createLoaders(services: Services) {
  const { agenda, tickets, checkins, projects } = services;
  return {
    project: new DataLoader(fromMap((ids: readonly string[]) => projects.byIds(ids), undefined)),
    room: new RelationLoader((ids) => agenda.roomsByIds([...ids]), undefined),
    track: new RelationLoader((ids) => agenda.tracksByIds([...ids]), undefined),
    speakersOfSession: perColumns(
      (columns) => new RelationLoader((ids) => agenda.speakersBySessionIds(ids, columns), []),
    ),
    publishedSessionsOfSpeaker: new DataLoader(
      fromMap(
        (ids: readonly string[]) => agenda.sessionsBySpeakerIds([...ids], { statuses: ["PUBLISHED"] }),
        [],
      ),
    ),
    allSessionsOfSpeaker: new DataLoader(
      fromMap(
        (ids: readonly string[]) =>
          agenda.sessionsBySpeakerIds([...ids], { statuses: ["DRAFT", "PUBLISHED", "CANCELLED"] }),
        [],
      ),
    ),
    ticketType: new RelationLoader((ids) => tickets.ticketTypesByIds([...ids]), undefined),
    soldCount: new DataLoader(fromMap((ids: readonly string[]) => tickets.soldCounts([...ids]), 0)),
    activeCheckIn: new RelationLoader((ids) => checkins.activeByAttendeeIds([...ids]), undefined),
    checkInHistory: new DataLoader(
      fromMap((ids: readonly string[]) => checkins.historyByAttendeeIds([...ids]), []),
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
