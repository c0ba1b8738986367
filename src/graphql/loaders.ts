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
function perColumns<V>(create: (columns: Columns) => DataLoader<string, V>) {
  const loaders = new Map<string, DataLoader<string, V>>();
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
 * One DataLoader per relation, created per request: related rows of a whole page load in one SQL
 * statement, so the number of statements does not grow with the page size. Rows reached here come
 * from parents the caller was already allowed to read.
 */
export function createLoaders(services: Services) {
  const { agenda, tickets, checkins, projects } = services;
  return {
    project: new DataLoader(fromMap((ids: readonly string[]) => projects.byIds(ids), undefined)),
    room: new DataLoader(fromMap((ids: readonly string[]) => agenda.roomsByIds([...ids]), undefined)),
    track: new DataLoader(fromMap((ids: readonly string[]) => agenda.tracksByIds([...ids]), undefined)),
    speakersOfSession: perColumns(
      (columns) =>
        new DataLoader(fromMap((ids: readonly string[]) => agenda.speakersBySessionIds(ids, columns), [])),
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
    ticketType: new DataLoader(
      fromMap((ids: readonly string[]) => tickets.ticketTypesByIds([...ids]), undefined),
    ),
    soldCount: new DataLoader(fromMap((ids: readonly string[]) => tickets.soldCounts([...ids]), 0)),
    activeCheckIn: new DataLoader(
      fromMap((ids: readonly string[]) => checkins.activeByAttendeeIds([...ids]), undefined),
    ),
    checkInHistory: new DataLoader(
      fromMap((ids: readonly string[]) => checkins.historyByAttendeeIds([...ids]), []),
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
