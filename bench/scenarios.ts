import { encodeCursor } from "../src/shared/pagination.js";

/**
 * The canonical requests of the benchmark. Each scenario makes the body of its n-th request, so
 * the load generator can vary bodies per request (the cache-miss variants) at the same cost for the
 * limit server and for Eventgraph.
 */
export interface Scenario {
  id: string;
  title: string;
  /** "hit": identical requests, served from the response cache once warm; "miss": every request differs; "write": a mutation. */
  cache: "hit" | "miss" | "write";
  /** Sends the demo app's token. */
  authenticated: boolean;
  /** The JSON body of the n-th request (n counts from 0 and keeps counting across rounds). */
  body(n: number): string;
}

const smallQuery = (projectId: string) => `{ project(id: ${JSON.stringify(projectId)}) { name } }`;

const agendaQuery = `query Agenda($id: ID!, $after: String) {
  project(id: $id) {
    sessions(first: 50, after: $after) {
      edges { node { id title startsAt endsAt room { name } track { name } speakers { name company } } }
    }
  }
}`;

const attendeesQuery = `query Attendees($id: ID!, $after: String) {
  project(id: $id) {
    attendees(first: 100, after: $after) {
      edges { node { id name email company status ticketType { name } checkIn { checkedInAt } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

const checkInMutation = `mutation CheckIn($input: CheckInAttendeeInput!) {
  checkInAttendee(input: $input) { checkIn { checkedInAt } userErrors { message } }
}`;

const undoMutation = `mutation UndoCheckIn($input: CheckInAttendeeInput!) {
  undoCheckIn(input: $input) { checkIn { undoneAt } userErrors { message } }
}`;

/** The attendee page query, for reading attendee ids page by page. */
const attendeeIdsQuery = `query AttendeeIds($id: ID!, $after: String) {
  project(id: $id) {
    attendees(first: 100, after: $after, status: REGISTERED) {
      edges { node { id } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/**
 * A cursor before every row (an empty sort value sorts first on both engines) that is unique per
 * request: the page is the same first page, but no two requests share a response cache key, so
 * each one is executed. The id part is never compared, since every row's sort value is larger.
 */
function uniqueFirstPageCursor(n: number): string {
  return encodeCursor(["", `bench-${n}`]);
}

/** Every scenario of one dataset. */
export function scenarios(projectId: string, attendeeIds: readonly string[]): Scenario[] {
  const small = smallQuery(projectId);
  const list: Scenario[] = [
    {
      id: "small-hit",
      title: "project { name }",
      cache: "hit",
      authenticated: false,
      body: () => JSON.stringify({ query: small }),
    },
    {
      id: "small-miss",
      title: "project { name }",
      cache: "miss",
      authenticated: false,
      // The query has no argument to vary, so an extra variable the operation does not declare
      // (ignored by execution, part of the cache key) makes every request distinct.
      body: (n) => JSON.stringify({ query: small, variables: { nonce: n } }),
    },
    {
      id: "agenda-hit",
      title: "agenda: 50 sessions + room, track, speakers",
      cache: "hit",
      authenticated: false,
      body: () => JSON.stringify({ query: agendaQuery, variables: { id: projectId } }),
    },
    {
      id: "agenda-miss",
      title: "agenda: 50 sessions + room, track, speakers",
      cache: "miss",
      authenticated: false,
      body: (n) =>
        JSON.stringify({ query: agendaQuery, variables: { id: projectId, after: uniqueFirstPageCursor(n) } }),
    },
    {
      id: "attendees-hit",
      title: "attendees: 100 + ticket type, check-in (token)",
      cache: "hit",
      authenticated: true,
      body: () => JSON.stringify({ query: attendeesQuery, variables: { id: projectId } }),
    },
    {
      id: "attendees-miss",
      title: "attendees: 100 + ticket type, check-in (token)",
      cache: "miss",
      authenticated: true,
      body: (n) =>
        JSON.stringify({
          query: attendeesQuery,
          variables: { id: projectId, after: uniqueFirstPageCursor(n) },
        }),
    },
  ];
  if (attendeeIds.length > 0) {
    list.push({
      id: "checkin",
      title: "checkInAttendee (passes alternate with undoCheckIn)",
      cache: "write",
      authenticated: true,
      // Pass after pass over the attendees, checking them all in, then all out, so every request
      // changes a row; with hundreds of attendees per pass no two connections touch the same one.
      body: (n) => {
        const pass = Math.floor(n / attendeeIds.length);
        const attendeeId = attendeeIds[n % attendeeIds.length];
        return JSON.stringify({
          query: pass % 2 === 0 ? checkInMutation : undoMutation,
          variables: { input: { attendeeId } },
        });
      },
    });
  }
  return list;
}

/** Registered attendees of the first `pages` pages (global ids, as apps see them), for the check-in scenario. */
export async function registeredAttendeeIds(url: string, projectId: string, token: string, pages: number) {
  const ids: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < pages; page++) {
    const response = await fetch(`${url}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: attendeeIdsQuery, variables: { id: projectId, after } }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: the shape is the query's, checked by the use below
    const body = (await response.json()) as any;
    const connection = body?.data?.project?.attendees;
    if (!connection) throw new Error(`Could not list attendees: ${JSON.stringify(body)}`);
    for (const edge of connection.edges) ids.push(edge.node.id);
    if (!connection.pageInfo.hasNextPage) break;
    after = connection.pageInfo.endCursor;
  }
  return ids;
}
