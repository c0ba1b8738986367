import { encodeCursor } from "../src/shared/pagination.js";
import type { Dataset } from "./datasets.js";
import { luaString, type RequestSource } from "./load.js";

/**
 * The canonical requests of the benchmark. Each scenario makes the body of its n-th request, so
 * the load generator can vary bodies per request (the cache-miss variants) at the same cost for the
 * limit server and for Eventgraph.
 */
export interface Scenario extends RequestSource {
  id: string;
  title: string;
  /** "hit": identical requests, served from the response cache once warm; "miss": every request differs; "write": a mutation. */
  cache: "hit" | "miss" | "write";
  /** Sends the demo app's token. */
  authenticated: boolean;
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

// The Lua twins of the bodies below, for wrk (bench/load.ts defines `b64url` for them).
const fixedLua = (body: string) => `local fixed = ${luaString(body)}\nfunction body(n) return fixed end`;

/** A body whose variables end in `"after": <unique first-page cursor>`, as Lua. */
function cursorLua(variablesBefore: Record<string, unknown>, query: string): string {
  const head = JSON.stringify({ query, variables: variablesBefore }).slice(0, -2);
  return [
    `local head = ${luaString(`${head},"after":"`)}`,
    'function body(n) return head .. b64url(\'["","bench-\' .. string.format("%d", n) .. \'"]\') .. \'"}}\' end',
  ].join("\n");
}

/** Every scenario of one dataset. */
export function scenarios(projectId: string, attendeeIds: readonly string[]): Scenario[] {
  const small = smallQuery(projectId);
  const smallBody = JSON.stringify({ query: small });
  const agendaBody = JSON.stringify({ query: agendaQuery, variables: { id: projectId } });
  const attendeesBody = JSON.stringify({ query: attendeesQuery, variables: { id: projectId } });
  const smallNonceHead = JSON.stringify({ query: small, variables: { nonce: 0 } }).slice(0, -3);
  const list: Scenario[] = [
    {
      id: "small-hit",
      title: "project { name }",
      cache: "hit",
      authenticated: false,
      body: () => smallBody,
      lua: fixedLua(smallBody),
    },
    {
      id: "small-miss",
      title: "project { name }",
      cache: "miss",
      authenticated: false,
      // The query has no argument to vary, so an extra variable the operation does not declare
      // (ignored by execution, part of the cache key) makes every request distinct.
      body: (n) => JSON.stringify({ query: small, variables: { nonce: n } }),
      lua: `local head = ${luaString(smallNonceHead)}\nfunction body(n) return head .. string.format("%d", n) .. "}}" end`,
    },
    {
      id: "agenda-hit",
      title: "agenda: 50 sessions + room, track, speakers",
      cache: "hit",
      authenticated: false,
      body: () => agendaBody,
      lua: fixedLua(agendaBody),
    },
    {
      id: "agenda-miss",
      title: "agenda: 50 sessions + room, track, speakers",
      cache: "miss",
      authenticated: false,
      body: (n) =>
        JSON.stringify({ query: agendaQuery, variables: { id: projectId, after: uniqueFirstPageCursor(n) } }),
      lua: cursorLua({ id: projectId }, agendaQuery),
    },
    {
      id: "attendees-hit",
      title: "attendees: 100 + ticket type, check-in (token)",
      cache: "hit",
      authenticated: true,
      body: () => attendeesBody,
      lua: fixedLua(attendeesBody),
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
      lua: cursorLua({ id: projectId }, attendeesQuery),
    },
  ];
  if (attendeeIds.length > 0) list.push(checkInScenario(attendeeIds));
  return list;
}

/** The id of the check-in scenario, the one write the bench measures. */
export const checkInScenarioId = "checkin";

/**
 * The `data` of an answer, as text to compare with another side's: for a write, with every
 * timestamp made the same (two sides check in at other instants, and the rest must agree).
 */
export function comparableData(answer: string, scenario: Pick<Scenario, "cache">): string {
  const data = JSON.stringify((JSON.parse(answer) as { data?: unknown }).data);
  return scenario.cache === "write" ? data.replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"') : data;
}

/**
 * Check-ins: pass after pass over the attendees, checking them all in, then all out, so every
 * request changes a row; with hundreds of attendees per pass no two connections touch the same one.
 */
export function checkInScenario(attendeeIds: readonly string[]): Scenario {
  const bodyOf = (query: string, attendeeId: string) =>
    JSON.stringify({ query, variables: { input: { attendeeId } } });
  const [checkInHead, checkInTail] = bodyOf(checkInMutation, "@").split("@");
  const [undoHead, undoTail] = bodyOf(undoMutation, "@").split("@");
  return {
    id: checkInScenarioId,
    title: "checkInAttendee (passes alternate with undoCheckIn)",
    cache: "write",
    authenticated: true,
    body: (n) => {
      const pass = Math.floor(n / attendeeIds.length);
      return bodyOf(
        pass % 2 === 0 ? checkInMutation : undoMutation,
        attendeeIds[n % attendeeIds.length] ?? "",
      );
    },
    lua: [
      `local ids = {${attendeeIds.map(luaString).join(",")}}`,
      `local c1, c2 = ${luaString(checkInHead ?? "")}, ${luaString(checkInTail ?? "")}`,
      `local u1, u2 = ${luaString(undoHead ?? "")}, ${luaString(undoTail ?? "")}`,
      "function body(n)",
      "  local id = ids[(n % #ids) + 1]",
      "  if math.floor(n / #ids) % 2 == 0 then return c1 .. id .. c2 end",
      "  return u1 .. id .. u2",
      "end",
    ].join("\n"),
  };
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

/** The request headers of a scenario: JSON, and the demo app's token when it is authenticated. */
export function headersOf(scenario: Scenario, dataset: Pick<Dataset, "token">): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (scenario.authenticated) headers.authorization = `Bearer ${dataset.token}`;
  return headers;
}

/** The answer Eventgraph at `url` gives to a scenario's first request: what the limit server and the Fastify floor send. */
export async function referenceResponse(url: string, scenario: Scenario, dataset: Dataset) {
  const response = await fetch(`${url}/api/graphql`, {
    method: "POST",
    headers: headersOf(scenario, dataset),
    body: scenario.body(0),
  });
  const body = await response.text();
  if (response.status !== 200 || body.includes('"errors"')) {
    throw new Error(`${scenario.id} on ${dataset.name} answered ${response.status}: ${body.slice(0, 500)}`);
  }
  return { contentType: response.headers.get("content-type") ?? "application/json", body };
}
