import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  buildClientSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
} from "graphql";
import { repositoryRoot } from "../../src/docs/schema-history.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createTicketType, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

// Version 2026-12-01 renamed TicketType.quantity to capacity (src/graphql/versions/api-versions.ts).
const oldVersion = "2026-09-01";
const newVersion = "2026-12-01";
const epochOf = (day: string) => `@${Date.parse(`${day}T00:00:00Z`) / 1000}`;

const tickets = (field: string) =>
  `query Tickets($id: ID!) { project(id: $id) { allTicketTypes(first: 10) { edges { node { name ${field} } } } } }`;
const rows = (field: string, value: number) => [{ node: { name: "Standard", [field]: value } }];

for (const engine of testEngines()) {
  describe(`dated API versions (${engine.name})`, () => {
    const server = serverPerSuite(engine, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });

    /** An app reading tickets, with one ticket type of 120 in its home project. */
    async function appWithTickets(apiVersion?: string) {
      const made = await createApp(server.services, { permissions: ["tickets:read"], apiVersion });
      await createTicketType(server.services, systemActor, made.projectId, {
        name: "Standard",
        quantity: 120,
      });
      return { ...made, variables: { id: made.projectId } };
    }

    test("refuses a version it does not answer, naming those it does, for an app and for the public", async () => {
      const { token } = await appWithTickets();
      for (const header of ["2026-10-01", "latest", "x".repeat(5000), ""]) {
        for (const caller of [{ token }, {}]) {
          const answer = await gql(server.url, "{ __typename }", {
            ...caller,
            headers: { "eventgraph-version": header },
          });
          assert.equal(answer.status, 400, header.slice(0, 20));
          assert.equal(answer.body.errors[0].extensions.code, "BAD_REQUEST");
          assert.match(answer.body.errors[0].message, /use one of 2026-09-01, 2026-12-01$/);
          assert.ok(answer.body.errors[0].message.length < 200, "the header is not echoed whole");
          assert.equal(answer.headers.get("eventgraph-version"), null);
        }
      }
      const stream = await fetch(`${server.url}/api/graphql/stream`, {
        method: "POST",
        headers: {
          accept: "text/event-stream",
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
          "eventgraph-version": "1999-01-01",
        },
        body: JSON.stringify({ query: "subscription { __typename }" }),
      });
      assert.equal(stream.status, 400);
      assert.match(await stream.text(), /is not a version this server answers/);
    });

    test("refuses to pin an app to a version it does not answer", async () => {
      const { app, ownerId } = await appWithTickets();
      await assert.rejects(
        server.services.apps.updateApp(userActor(ownerId ?? ""), { id: app.id, apiVersion: "2025-01-01" }),
        { code: "BAD_USER_INPUT", message: /must be one of 2026-09-01, 2026-12-01/ },
      );
    });

    test("an app pinned to the old version reads it unchanged, and is told the field is going away", async () => {
      const { token, variables } = await appWithTickets(oldVersion);
      const answer = await gql(server.url, tickets("quantity"), { token, variables });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body.data.project.allTicketTypes.edges, rows("quantity", 120));
      assert.equal(answer.headers.get("eventgraph-version"), oldVersion);
      assert.equal(answer.headers.get("deprecation"), epochOf(newVersion));
      assert.equal(answer.headers.get("sunset"), "Wed, 01 Dec 2027 00:00:00 GMT");
      assert.match(
        answer.headers.get("link") ?? "",
        /<\/graphql\/reference\/guides\/versioning>; rel="deprecation"/,
      );
      const exposed = answer.headers.get("access-control-expose-headers") ?? "";
      for (const name of ["eventgraph-version", "deprecation", "sunset", "link"])
        assert.ok(exposed.includes(name));
      const renamed = await gql(server.url, tickets("capacity"), { token, variables });
      assert.equal(renamed.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
      assert.match(renamed.body.errors[0].message, /Cannot query field "capacity" on type "TicketType"/);
      assert.equal(renamed.headers.get("eventgraph-version"), oldVersion);
    });

    test("a new app is pinned to the newest version, which has the new name and warns of nothing", async () => {
      const { app, token, variables } = await appWithTickets();
      assert.equal(app.apiVersion, newVersion);
      const answer = await gql(server.url, tickets("capacity"), { token, variables });
      assert.deepEqual(answer.body.data.project.allTicketTypes.edges, rows("capacity", 120));
      assert.equal(answer.headers.get("eventgraph-version"), newVersion);
      assert.equal(answer.headers.get("deprecation"), null);
      assert.equal(answer.headers.get("sunset"), null);
      const old = await gql(server.url, tickets("quantity"), { token, variables });
      assert.match(old.body.errors[0].message, /Cannot query field "quantity" on type "TicketType"/);
    });

    test("the header chooses the version of one request, over the app's pin", async () => {
      const pinnedOld = await appWithTickets(oldVersion);
      const upgraded = await gql(server.url, tickets("capacity"), {
        token: pinnedOld.token,
        variables: pinnedOld.variables,
        headers: { "eventgraph-version": newVersion },
      });
      assert.deepEqual(upgraded.body.data.project.allTicketTypes.edges, rows("capacity", 120));
      assert.equal(upgraded.headers.get("eventgraph-version"), newVersion);
      const pinnedNew = await appWithTickets();
      const downgraded = await gql(server.url, tickets("quantity"), {
        token: pinnedNew.token,
        variables: pinnedNew.variables,
        headers: { "eventgraph-version": oldVersion },
      });
      assert.deepEqual(downgraded.body.data.project.allTicketTypes.edges, rows("quantity", 120));
    });

    test("a caller without a token or a header is answered in the oldest version served", async () => {
      const answer = await gql(server.url, `{ project(id: "Zz9Q") { name } }`);
      assert.equal(answer.headers.get("eventgraph-version"), oldVersion);
    });

    test("never serves one version's cached answer for another, on the route or the hit lane", async () => {
      const { token, variables } = await appWithTickets(oldVersion);
      // Valid in both versions with the same data: only the key can keep them apart.
      const query = tickets("");
      for (const version of [oldVersion, newVersion]) {
        const answers = [];
        for (let i = 0; i < 3; i++) {
          answers.push(
            await gql(server.url, query, { token, variables, headers: { "eventgraph-version": version } }),
          );
        }
        assert.deepEqual(
          answers.map((a) => [a.headers.get("eventgraph-version"), a.body.extensions.cached]),
          [
            [version, false],
            [version, true],
            [version, true],
          ],
          version,
        );
      }
    });

    test("a changed pin answers the app's next request in the new version, its token remembered", async () => {
      const { app, ownerId, token, variables } = await appWithTickets(oldVersion);
      const before = await gql(server.url, tickets("quantity"), { token, variables });
      assert.equal(before.headers.get("eventgraph-version"), oldVersion);
      const updated = await server.services.apps.updateApp(userActor(ownerId ?? ""), {
        id: app.id,
        apiVersion: newVersion,
      });
      assert.equal(updated.apiVersion, newVersion);
      const after = await gql(server.url, tickets("capacity"), { token, variables });
      assert.deepEqual(after.body.data.project.allTicketTypes.edges, rows("capacity", 120));
      assert.equal(after.headers.get("eventgraph-version"), newVersion);
    });

    test("announces a deprecated argument's removal date, never later than the version's own end", async () => {
      const { token, variables } = await appWithTickets();
      const query = `query($id: ID!) { project(id: $id) { ticketTypes(onSaleOnly: false) { totalCount } } }`;
      for (const [version, since] of [
        [oldVersion, oldVersion],
        [newVersion, newVersion],
      ] as const) {
        const answer = await gql(server.url, query, {
          token,
          variables,
          headers: { "eventgraph-version": version },
        });
        assert.equal(answer.body.data.project.ticketTypes.totalCount, 1);
        assert.equal(answer.headers.get("deprecation"), epochOf(since));
        assert.equal(answer.headers.get("sunset"), "Tue, 01 Jun 2027 00:00:00 GMT");
      }
    });

    test("introspection in each version prints byte for byte that version's committed snapshot", async () => {
      const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
      for (const [version, file] of [
        [oldVersion, "schema.graphql"],
        [newVersion, `schema.${newVersion}.graphql`],
      ] as const) {
        const answer = await gql(server.url, query, { headers: { "eventgraph-version": version } });
        assert.equal(answer.status, 200, JSON.stringify(answer.body.errors));
        const schema = buildClientSchema(answer.body.data as IntrospectionQuery);
        const printed = `${printSchema(lexicographicSortSchema(schema))}\n`;
        assert.ok(
          printed === readFileSync(join(repositoryRoot, file), "utf8"),
          `${version} differs from ${file}`,
        );
      }
    });

    test("renders webhook payloads in the version the app is pinned to, and checks fragments there", async () => {
      const receiver = await startReceiver();
      try {
        for (const [version, field, other] of [
          [oldVersion, "quantity", "capacity"],
          [newVersion, "capacity", "quantity"],
        ] as const) {
          const { app, ownerId, projectId } = await createApp(server.services, {
            permissions: ["tickets:read"],
            apiVersion: version,
          });
          const owner = userActor(ownerId ?? "");
          const configure = (fragments?: Record<string, string>) =>
            server.services.webhooks.configure(owner, {
              appId: app.id,
              url: receiver.url,
              events: ["ticket_type.created"],
              fragments,
            });
          await assert.rejects(configure({ "ticket_type.created": `id ${other}` }), {
            code: "BAD_USER_INPUT",
          });
          await configure();
          await createTicketType(server.services, owner, projectId, { name: "Standard", quantity: 120 });
          const [delivery] = await receiver.waitFor(1, {
            filter: (r) => r.json.data.projectId === projectId,
          });
          assert.equal(
            delivery?.json.data.object[field],
            120,
            `${version}: ${JSON.stringify(delivery?.json.data.object)}`,
          );
          assert.equal(Object.hasOwn(delivery?.json.data.object ?? {}, other), false);
        }
      } finally {
        await receiver.close();
      }
    });
  });
}
