import {
  type DocumentNode,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";
import { type AreaMask, allAreas, areaBit } from "../../shared/data-areas.js";

/**
 * The data areas (src/shared/data-areas.ts) a query document reads, from the fields it selects: a
 * field reads its parent type's area and its result type's area. Types that only wrap others
 * (Query, connections' PageInfo, Money) read none; a type not listed here may read anything.
 * Every operation and fragment of the document counts, which can only widen the set (safe).
 */
const typeAreas: Record<string, AreaMask> = {
  Query: 0,
  PageInfo: 0,
  Money: 0,
  Project: areaBit.project,
  ProjectConnection: areaBit.project,
  ProjectEdge: areaBit.project,
  Venue: areaBit.project,
  Session: areaBit.agenda,
  SessionConnection: areaBit.agenda,
  SessionEdge: areaBit.agenda,
  Speaker: areaBit.agenda,
  SpeakerConnection: areaBit.agenda,
  SpeakerEdge: areaBit.agenda,
  SpeakerLink: areaBit.agenda,
  Room: areaBit.agenda,
  RoomConnection: areaBit.agenda,
  RoomEdge: areaBit.agenda,
  Track: areaBit.agenda,
  TrackConnection: areaBit.agenda,
  TrackEdge: areaBit.agenda,
  TicketType: areaBit.tickets,
  TicketTypeConnection: areaBit.tickets,
  TicketTypeEdge: areaBit.tickets,
  Attendee: areaBit.attendees,
  AttendeeConnection: areaBit.attendees,
  AttendeeEdge: areaBit.attendees,
  CheckIn: areaBit.checkins,
  // Orders change with their tickets (orders:write bumps attendees and tickets).
  Order: areaBit.attendees,
  OrderConnection: areaBit.attendees,
  OrderEdge: areaBit.attendees,
  OrderLine: areaBit.attendees,
  // A code's uses move with the orders placed with it (orders:write bumps tickets too).
  // The line moves with registrations and offers (written under attendees:write: attendees and tickets).
  WaitingListEntry: areaBit.attendees,
  WaitingListEntryConnection: areaBit.attendees,
  WaitingListEntryEdge: areaBit.attendees,
  "TicketType.waitingList": areaBit.attendees,
  DiscountCode: areaBit.tickets,
  DiscountCodeConnection: areaBit.tickets,
  DiscountCodeEdge: areaBit.tickets,
  GeneratedDiscountCodes: areaBit.tickets,
};

// Fields computed from another area's rows than their type's.
const fieldAreas: Record<string, AreaMask> = {
  "Attendee.checkedIn": areaBit.checkins,
  "Attendee.checkIn": areaBit.checkins,
  "Attendee.checkIns": areaBit.checkins,
  "TicketType.sold": areaBit.attendees,
  "TicketType.remaining": areaBit.attendees,
  "TicketType.available": areaBit.attendees,
};

const areaOfType = (name: string): AreaMask => typeAreas[name] ?? allAreas;

const cache = new WeakMap<DocumentNode, AreaMask>();

/** The areas `document` reads (computed once per parsed document). */
export function areasReadBy(schema: GraphQLSchema, document: DocumentNode): AreaMask {
  const known = cache.get(document);
  if (known !== undefined) return known;
  // Every answer about a project rests on the caller's access to it (the app's link and its
  // permissions, the project's status), which is project-area data: whatever else it reads, a change
  // of access must evict it (the database moves that version on every access change, whoever writes).
  let areas: AreaMask = areaBit.project;
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        const result = typeInfo.getType();
        if (!parent || !result) {
          areas = allAreas;
          return;
        }
        // __typename and introspection read no project data.
        if (node.name.value.startsWith("__")) return;
        const named = getNamedType(result);
        // A scalar or enum result adds nothing; an interface or union (Node) may be anything.
        areas |= areaOfType(parent.name) | (isLeafType(named) ? 0 : areaOfType(named.name));
        areas |= fieldAreas[`${parent.name}.${node.name.value}`] ?? 0;
      },
    }),
  );
  cache.set(document, areas);
  return areas;
}
