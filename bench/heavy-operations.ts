import { getIntrospectionQuery } from "graphql";
import { operationLimitDefaults } from "../src/graphql/limits/operation-limits.js";

/**
 * The most expensive operations the default limits admit (cost ≤ 50,000, ≤ 100 aliases), one kind
 * of work each: the event-loop drill (bench/event-loop.ts) and test/api/event-loop.test.ts run them.
 */
export interface HeavyOperation {
  name: string;
  query: string;
}

const aliased = (count: number, field: (i: number) => string) =>
  Array.from({ length: count }, (_, i) => `a${i}: ${field(i)}`).join("\n");

const terms = ["ann", "example", "mar", "son", "ber", "ine", "ell", "ter", "zzq", "a@e"];

/**
 * The operations, for the demo project `projectId`; `attendeeIds` are up to 100 attendee global ids;
 * `introspection` is the standard introspection query's selection (`getIntrospectionQuery()`),
 * repeated `introspectionAliases` times.
 */
function heaviestAdmittedOperations(
  projectId: string,
  attendeeIds: readonly string[],
  introspection: { query: string; aliases: number },
): HeavyOperation[] {
  const project = (body: string) => `{ project(id: ${JSON.stringify(projectId)}) { ${body} } }`;
  const ids = JSON.stringify(attendeeIds.slice(0, 100));
  const schemaSelection = introspection.query.slice(
    introspection.query.indexOf("__schema") + "__schema".length,
  );
  const fragments = schemaSelection.slice(schemaSelection.indexOf("fragment"));
  const selection = schemaSelection.slice(0, schemaSelection.indexOf("fragment")).trim().replace(/\}$/, "");
  return [
    {
      name: "100 aliased attendee search counts",
      query: project(
        aliased(100, (i) => `attendees(first: 0, search: "${terms[i % terms.length]}") { totalCount }`),
      ),
    },
    {
      name: "100 aliased attendee counts by status",
      query: project(
        aliased(
          100,
          (i) => `attendees(first: 0, status: ${i % 2 ? "REGISTERED" : "CANCELLED"}) { totalCount }`,
        ),
      ),
    },
    {
      name: "70 aliased pages of 100 attendees",
      query: project(
        aliased(
          70,
          (i) =>
            `attendees(first: 100, search: "${terms[i % terms.length]}") { edges { node { name email company } } }`,
        ),
      ),
    },
    {
      name: "4 × nodes(ids:) of 100 attendees with their check-ins",
      query: `{ ${aliased(4, () => `nodes(ids: ${ids}) { ... on Attendee { name email checkIns { checkedInAt } } }`)} }`,
    },
    {
      name: "4 × 100 sessions with their speakers",
      query: project(
        aliased(4, () => `sessions(first: 100) { edges { node { title speakers { name company } } } }`),
      ),
    },
    {
      name: `${introspection.aliases} × the standard introspection query`,
      query: `{ ${aliased(introspection.aliases, () => `__schema ${selection}`)} }\n${fragments}`,
    },
  ];
}

/**
 * `heaviestAdmittedOperations` with as many introspection aliases as the limits admit, asked from
 * the server itself (a dry run), so the drill follows the cost model as it changes.
 */
export async function heavyOperations(
  url: string,
  token: string,
  projectId: string,
  attendeeIds: readonly string[],
  maxCost = 50_000,
): Promise<HeavyOperation[]> {
  const query = getIntrospectionQuery();
  const response = await fetch(`${url}/api/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, extensions: { dryRun: true } }),
  });
  const { extensions } = (await response.json()) as { extensions: { dryRun: { cost: number } } };
  const budget = Math.min(maxCost, operationLimitDefaults.maxIntrospection);
  const aliases = Math.max(1, Math.min(100, Math.floor(budget / extensions.dryRun.cost)));
  return heaviestAdmittedOperations(projectId, attendeeIds, { query, aliases });
}
