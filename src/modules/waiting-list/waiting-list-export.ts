import type { Readable } from "node:stream";
import type { Db } from "../../db/database.js";
import type { CursorKey } from "../../shared/pagination.js";
import { nowIso } from "../../shared/time.js";
import { type CsvColumn, csvOf } from "../attendees/attendees-csv.js";
import type { createTicketsService } from "../tickets/tickets.service.js";
import { type ExportedEntry, presentEntry } from "./waiting-list.model.js";
import { waitingListRepository as repo } from "./waiting-list.repository.js";

/** Entries read per statement: memory stays at one page whatever the list's length. */
const exportPageSize = 500;

/**
 * A project's entries (or one ticket type's) in line order, read page by page as they are consumed:
 * two statements a page (the entries, their ticket types' names), never one per entry. The caller
 * checked attendees:read.
 */
export async function* exportEntries(
  db: Db,
  tickets: Pick<ReturnType<typeof createTicketsService>, "ticketTypesByIds">,
  projectId: string,
  ticketTypeId: string | undefined,
): AsyncGenerator<ExportedEntry> {
  // Places are counted per ticket type over the whole read, so they run on across pages.
  const places = new Map<string, number>();
  let after: CursorKey | undefined;
  for (;;) {
    // Larger pages than a list's 100 through the same keyset; the repository reads one row more.
    const window = { limit: exportPageSize, after, before: undefined, backward: false };
    const rows = await repo.list(db, projectId, ticketTypeId, window);
    const page = rows.slice(0, exportPageSize);
    const types = await tickets.ticketTypesByIds([...new Set(page.map((r) => r.ticket_type_id))]);
    const now = nowIso();
    for (const row of page) {
      const entry = presentEntry(row, now);
      let place: number | null = null;
      if (entry.state === "WAITING") {
        place = (places.get(entry.ticketTypeId) ?? 0) + 1;
        places.set(entry.ticketTypeId, place);
      }
      yield { ...entry, ticketTypeName: types.get(entry.ticketTypeId)?.name ?? "", place };
    }
    const last = page.at(-1);
    if (!last || rows.length <= exportPageSize) return;
    after = [last.created_at, last.id];
  }
}

const csvColumns: CsvColumn<ExportedEntry>[] = [
  ["place", (e) => e.place],
  ["ticket_type", (e) => e.ticketTypeName],
  ["name", (e) => e.name],
  ["email", (e) => e.email],
  ["state", (e) => e.state],
  ["joined_at", (e) => e.createdAt],
  ["offered_at", (e) => e.offeredAt],
  ["offer_expires_at", (e) => e.offerExpiresAt],
  ["id", (e) => e.id],
];

/** The CSV of waiting-list entries as a stream (`csvOf`). */
export function waitingListCsv(entries: AsyncIterable<ExportedEntry>): Readable {
  return csvOf(csvColumns, entries);
}
