import DataLoader from "dataloader";
import type { Columns } from "../db/projection.js";
import { noFigures } from "../modules/tickets/seats-left.js";
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

// How each relation's loader is made: one DataLoader per relation and request, so related rows of a
// whole page load in one SQL statement and the number of statements does not grow with the page
// size. Rows reached here come from parents the caller was already allowed to read.
const makers = {
  project: ({ projects }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => projects.byIds(ids), undefined)),
  room: ({ agenda }: Services) => new RelationLoader((ids) => agenda.roomsByIds([...ids]), undefined),
  track: ({ agenda }: Services) => new RelationLoader((ids) => agenda.tracksByIds([...ids]), undefined),
  speakersOfSession: ({ agenda }: Services) =>
    perColumns((columns) => new RelationLoader((ids) => agenda.speakersBySessionIds(ids, columns), [])),
  publishedSessionsOfSpeaker: ({ agenda }: Services) =>
    new DataLoader(
      fromMap(
        (ids: readonly string[]) => agenda.sessionsBySpeakerIds([...ids], { statuses: ["PUBLISHED"] }),
        [],
      ),
    ),
  allSessionsOfSpeaker: ({ agenda }: Services) =>
    new DataLoader(
      fromMap(
        (ids: readonly string[]) =>
          agenda.sessionsBySpeakerIds([...ids], { statuses: ["DRAFT", "PUBLISHED", "CANCELLED"] }),
        [],
      ),
    ),
  ticketType: ({ tickets }: Services) =>
    new RelationLoader((ids) => tickets.ticketTypesByIds([...ids]), undefined),
  seatFigures: ({ tickets }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => tickets.seatFigures([...ids]), noFigures)),
  activeCheckIn: ({ checkins }: Services) =>
    new RelationLoader((ids) => checkins.activeByAttendeeIds([...ids]), undefined),
  order: ({ orders }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => orders.ordersByIds(ids), undefined)),
  orderLines: ({ orders }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => orders.linesOf(ids), [])),
  orderRefunds: ({ refunds }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => refunds.refundsOf(ids), [])),
  orderInvoices: ({ orders }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => orders.invoicesOf(ids), [])),
  answers: ({ questions }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => questions.answersByAttendeeIds(ids), [])),
  questionTranslations: ({ questions }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => questions.translationsByQuestionIds(ids), [])),
  checkInHistory: ({ checkins }: Services) =>
    new DataLoader(fromMap((ids: readonly string[]) => checkins.historyByAttendeeIds([...ids]), [])),
};

/** A request's loaders, one per relation (`loaders.room`, …). */
export type Loaders = { readonly [Name in keyof typeof makers]: ReturnType<(typeof makers)[Name]> };

/**
 * Makes each loader on its first use: most operations use one or two of them, and making all ten
 * for every execution was a ninth of what a small query allocated (45 → 40 KiB sampled) and a
 * sixteenth of a check-in (78 → 73). The getters live on the prototype, so a request pays for one
 * object and the loaders it uses.
 */
class LoadersMadeOnUse {
  readonly made: Partial<Record<keyof Loaders, unknown>> = {};
  constructor(readonly services: Services) {}
}
for (const name of Object.keys(makers) as (keyof Loaders)[]) {
  Object.defineProperty(LoadersMadeOnUse.prototype, name, {
    get(this: LoadersMadeOnUse) {
      // biome-ignore lint/suspicious/noAssignInExpressions: made once, then read
      return (this.made[name] ??= makers[name](this.services));
    },
  });
}

/** The loaders of one request. */
export function createLoaders(services: Services): Loaders {
  return new LoadersMadeOnUse(services) as unknown as Loaders;
}
