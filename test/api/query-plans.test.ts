import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import SQLite from "better-sqlite3";
import pg from "pg";
import { startDemoServer } from "../helpers/demo-server.js";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import type { TestServer } from "../helpers/test-server.js";

// The reads the API makes for its main entry points, public and with a token. Each runs against the
// demo conference; every SQL statement it executes is then EXPLAINed on the same database.
const publicQueries = [
  `query($id: ID!) { project(id: $id) { name sessions(first: 20) { totalCount edges { node { id room { id name } track { id name } speakers { name } } } } } }`,
  `query($id: ID!) { project(id: $id) { speakers(first: 20) { totalCount edges { node { name sessions { title } } } } } }`,
  `query($id: ID!) { project(id: $id) { tracks(first: 20) { totalCount edges { node { name } } } rooms(first: 20) { totalCount edges { node { name } } } } }`,
  `query($id: ID!) { project(id: $id) { ticketTypes(first: 20) { totalCount edges { node { name available } } } } }`,
];
const appQueries = [
  `query($id: ID!) { project(id: $id) { attendees(first: 50) { totalCount edges { node { id name ticketType { name sold } checkedIn checkIn { checkedInAt } checkIns { checkedInAt } } } } } }`,
  `query($id: ID!) { project(id: $id) { attendees(first: 50, status: REGISTERED, search: "ann") { totalCount edges { node { id } } } } }`,
  `query($id: ID!) { project(id: $id) { ticketTypes(first: 20, onSaleOnly: false) { totalCount edges { node { name capacity sold remaining available } } } } }`,
  `query($id: ID!) { project(id: $id) { speakers(first: 20, includeUnpublished: true) { totalCount edges { node { name } } } } }`,
  `{ viewer { name permissions projects(first: 10) { totalCount edges { node { id } } } } }`,
];

interface Plan {
  sql: string;
  plan: string;
}

// Full scans of a table: SQLite says "SCAN <table>" without an index; PostgreSQL keeps a "Seq Scan"
// even with sequential scans discouraged only when no index can serve the lookup. SQLite also says
// "SCAN <alias>" for reading the rows of a subquery it computed ("CO-ROUTINE <alias>" or
// "MATERIALIZE <alias>" in the same plan), whose own lookups are listed and checked apart.
function fullScans(plans: Plan[], engine: string): Plan[] {
  return plans.filter(({ plan }) => {
    if (engine !== "sqlite") return /Seq Scan on/.test(plan);
    const lines = plan.split("\n").map((line) => line.trim());
    const subqueries = new Set(
      lines.flatMap((line) => /^(?:CO-ROUTINE|MATERIALIZE) (\w+)$/.exec(line)?.[1] ?? []),
    );
    return lines.some((line) => {
      const scanned = /\bSCAN (\w+)$/.exec(line)?.[1];
      return scanned !== undefined && !subqueries.has(scanned) && !/CONSTANT ROW/.test(line);
    });
  });
}

for (const engine of testEngines()) {
  describe(`query plans of the API (${engine.name})`, () => {
    let server: TestServer;
    let projectId: string;
    let token: string;
    before(async () => {
      ({ server, projectId, token } = await startDemoServer(engine, {
        scale: 1,
        seed: 3,
        app: { name: "Planner", permissions: ["agenda:read", "tickets:read", "attendees:read"] },
      }));
    });
    after(() => server.close());

    async function explainAll(): Promise<Plan[]> {
      const queries = server.queries.filter((q) => /^\s*select/i.test(q.sql));
      if (engine.name === "sqlite") {
        const sqlite = new SQLite(server.config.databaseUrl.slice("sqlite:".length), { readonly: true });
        try {
          return queries.map(({ sql, parameters }) => ({
            sql,
            plan: (
              sqlite.prepare(`explain query plan ${sql}`).all(...(parameters as unknown[])) as {
                detail: string;
              }[]
            )
              .map((row) => row.detail)
              .join("\n"),
          }));
        } finally {
          sqlite.close();
        }
      }
      const client = new pg.Client({ connectionString: server.config.databaseUrl });
      await client.connect();
      try {
        await client.query("begin");
        // Only for this transaction: makes the planner prefer any usable index over a seq scan.
        await client.query("set local enable_seqscan = off");
        const plans: Plan[] = [];
        for (const { sql, parameters } of queries) {
          const { rows } = await client.query<{ "QUERY PLAN": string }>(
            `explain ${sql}`,
            parameters as unknown[],
          );
          plans.push({ sql, plan: rows.map((row) => row["QUERY PLAN"]).join("\n") });
        }
        await client.query("rollback");
        return plans;
      } finally {
        await client.end();
      }
    }

    test("every lookup of the main public and app queries is served by an index", async () => {
      server.queries.length = 0;
      for (const query of publicQueries) {
        const { body } = await gql(server.url, query, { variables: { id: projectId } });
        assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      }
      for (const query of appQueries) {
        const { body } = await gql(server.url, query, { variables: { id: projectId }, token });
        assert.equal(body.errors, undefined, JSON.stringify(body.errors));
      }
      const plans = await explainAll();
      assert.ok(plans.length >= 20, `only ${plans.length} statements were recorded`);
      const scans = fullScans(plans, engine.name);
      assert.deepEqual(
        scans.map((s) => `${s.sql}\n  ${s.plan.replaceAll("\n", "\n  ")}`),
        [],
        "statements that scan a whole table",
      );
    });
  });
}
