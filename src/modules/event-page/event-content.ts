import type { Page, PageArgs, PageWindow } from "../../shared/pagination.js";
import { maxPageSize, resolvePageArgs } from "../../shared/pagination.js";
import type { ProjectAccess } from "../access/access.service.js";
import type { createAgendaService, Room, Session, Speaker, Track } from "../agenda/agenda.service.js";
import type { Attendee } from "../attendees/attendees.service.js";
import type { OrdersService } from "../orders/orders.service.js";
import type { createProjectsService, Project } from "../projects/projects.service.js";
import { noFigures, seatsLeft } from "../tickets/seats-left.js";
import {
  type createTicketsService,
  orderableOnPage,
  registrableOnPage,
  type TicketType,
} from "../tickets/tickets.service.js";

/** A published session with what the page shows beside it. */
export interface EventSession extends Session {
  speakers: Speaker[];
  room: Room | undefined;
  track: Track | undefined;
}

/** A ticket type on sale, with what is left and whether it can be registered for on the page. */
export interface EventTicket extends TicketType {
  remaining: number;
  /** With the one-ticket registration form. */
  registrable: boolean;
  /** In an order (the checkout), which also sells tickets paid by bank transfer. */
  orderable: boolean;
}

/** Everything the public event page shows: only what the token-less API shows too. */
export interface EventContent {
  project: Project;
  sessions: EventSession[];
  speakers: Speaker[];
  tickets: EventTicket[];
  /** True when the programme has more sessions than the page shows (see `maxSessions`). */
  truncated: boolean;
  /** The organizer enters prices net: every price shown says "plus tax" (Settings → Payments). */
  pricesNet: boolean;
}

/** A registration as its holder sees it through the manage link. */
export interface HeldRegistration {
  attendee: Attendee;
  ticketType: TicketType | undefined;
  project: EventContent["project"];
}

/** The services the page's content is read through (the event page service's own). */
interface ContentSources {
  projects: ReturnType<typeof createProjectsService>;
  agenda: ReturnType<typeof createAgendaService>;
  tickets: ReturnType<typeof createTicketsService>;
  orders: Pick<OrdersService, "pageSettings">;
}

/**
 * The most sessions (and speakers, ticket types) one page shows: it bounds the work of a cache miss.
 * A programme larger than this is listed in full by the API and the iCalendar feed's own cap.
 */
const maxSessions = 1_000;

/** Every item of a paged list up to `max`, page by page (the services cap a page at 100). */
async function collect<T>(
  list: (window: PageWindow) => Promise<Page<T>>,
  max: number,
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let args: PageArgs = { first: maxPageSize };
  for (;;) {
    const page = await list(resolvePageArgs(args));
    items.push(...page.items);
    if (!page.hasNextPage) return { items, more: false };
    if (items.length >= max) return { items: items.slice(0, max), more: true };
    args = { first: maxPageSize, after: page.endCursor };
  }
}

/** Loads the public content of a published project through the same services as the public API. */
export async function loadEventContent(deps: ContentSources, access: ProjectAccess): Promise<EventContent> {
  const { agenda, tickets, projects } = deps;
  const [project, sessionList, tracks, rooms, ticketTypes, orderSettings] = await Promise.all([
    projects.load(access),
    collect((w) => agenda.listSessions(access, {}, w), maxSessions),
    collect((w) => agenda.listTracks(access, w), maxSessions),
    collect((w) => agenda.listRooms(access, w), maxSessions),
    collect((w) => tickets.listTicketTypes(access, { onSaleOnly: true }, w), maxPageSize),
    deps.orders.pageSettings(access.projectId),
  ]);
  const sessionIds = sessionList.items.map((s) => s.id);
  const ticketTypeIds = ticketTypes.items.map((t) => t.id);
  const [speakersBySession, seats] = await Promise.all([
    agenda.speakersBySessionIds(sessionIds),
    tickets.seatFigures(ticketTypeIds),
  ]);
  const trackById = new Map(tracks.items.map((t) => [t.id, t]));
  const roomById = new Map(rooms.items.map((r) => [r.id, r]));
  const speakers = new Map<string, Speaker>();
  const sessions = sessionList.items.map((session) => {
    const onSession = speakersBySession.get(session.id) ?? [];
    for (const speaker of onSession) speakers.set(speaker.id, speaker);
    return {
      ...session,
      speakers: onSession,
      room: session.roomId ? roomById.get(session.roomId) : undefined,
      track: session.trackId ? trackById.get(session.trackId) : undefined,
    };
  });
  return {
    project,
    sessions,
    speakers: [...speakers.values()].sort((a, b) => a.name.localeCompare(b.name)),
    tickets: ticketTypes.items.map((t) => ({
      ...t,
      remaining: seatsLeft(t.quantity, seats.get(t.id) ?? noFigures),
      registrable: registrableOnPage(t),
      orderable: orderableOnPage(t),
    })),
    truncated: sessionList.more,
    pricesNet: orderSettings.pricesNet,
  };
}
