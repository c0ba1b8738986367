import { AppError, ErrorCode } from "../errors.js";
import type { EventContent } from "../modules/event-page/event-content.js";

/**
 * Sessions (and speakers) one event page shows: a programme of 1,000 sessions rendered at once held
 * the event loop for about 0.6 s; this many render in a few milliseconds, and the rest is paged.
 */
const itemsPerPage = 150;

/** Which page is asked for: `?page=` absent is 1; anything but a number from 1 to 99 is a 404. */
export function pageNumber(raw: string | undefined): number {
  if (raw === undefined) return 1;
  if (!/^[1-9][0-9]?$/.test(raw)) throw new AppError(ErrorCode.NOT_FOUND, "Page not found");
  return Number(raw);
}

/** Where a page stands among the pages of the programme. */
export interface Pager {
  page: number;
  pages: number;
}

/** The content one page shows, or undefined past the last page. */
export function pageOf(
  content: EventContent,
  page: number,
): { content: EventContent; pager: Pager } | undefined {
  const longest = Math.max(content.sessions.length, content.speakers.length);
  const pages = Math.max(1, Math.ceil(longest / itemsPerPage));
  if (page > pages) return undefined;
  const from = (page - 1) * itemsPerPage;
  return {
    content: {
      ...content,
      sessions: content.sessions.slice(from, from + itemsPerPage),
      speakers: content.speakers.slice(from, from + itemsPerPage),
    },
    pager: { page, pages },
  };
}
