import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import {
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from "graphql";
import { schema } from "../../src/api-schema.js";
import { allPermissions } from "../../src/modules/access/permissions.js";
import { testEngines } from "../helpers/engines.js";
import {
  createApp,
  createAttendee,
  createPublishedProject,
  createTicketType,
  testPassword,
  uniqueEmail,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

const nul = "bad\u0000text";
const b64 = (text: string) => Buffer.from(text).toString("base64url");

// A value of `type` for a mutation input: every text is `nul` except the project id, so each
// mutation gets past its access check to where text meets the database.
function fuzzValue(type: GraphQLInputType, fieldName: string, projectId: string): unknown {
  if (isNonNullType(type)) return fuzzValue(type.ofType, fieldName, projectId);
  if (isListType(type)) return [fuzzValue(type.ofType, fieldName, projectId)];
  if (isInputObjectType(type)) {
    return Object.fromEntries(
      Object.values(type.getFields()).map((f) => [f.name, fuzzValue(f.type, f.name, projectId)]),
    );
  }
  if (isEnumType(type)) return type.getValues()[0]?.name;
  if (isScalarType(type)) {
    if (fieldName === "projectId") return projectId;
    if (type.name === "String" || type.name === "ID") return nul;
    if (type.name === "DateTime") return "2026-05-04T09:00:00Z";
    if (type.name === "Int") return 1;
    if (type.name === "Boolean") return false;
  }
  throw new Error(`no fuzz value for ${String(type)}`);
}

function internalErrors(body: { errors?: { extensions?: { code?: string } }[] }) {
  return (body.errors ?? []).filter((e) => e.extensions?.code === "INTERNAL_SERVER_ERROR");
}

for (const engine of testEngines()) {
  describe(`input correctness found by real clients (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("applies the default of a non-null variable sent without variables, as graphql-js does", async () => {
      const { project } = await createPublishedProject(server.services);
      const { status, body } = await gql(
        server.url,
        `query ($id: ID! = "${project.id}", $first: Int! = 2) { project(id: $id) { name sessions(first: $first) { totalCount } } }`,
      );
      assert.equal(status, 200);
      assert.equal(body.errors, undefined);
      assert.equal(body.data.project.name, project.name);
      const sent = await gql(server.url, 'query ($id: ID! = "ZZZZ") { project(id: $id) { name } }', {
        variables: { id: project.id },
      });
      assert.equal(sent.body.data.project.name, project.name, "a sent value wins over the default");
      // Sent twice, the same body is handed out parsed and frozen the second time: the default is
      // filled into a copy, not into the shared object.
      const both = `query ($id: ID!, $first: Int! = 1) { project(id: $id) { sessions(first: $first) { totalCount } } }`;
      for (let i = 0; i < 2; i++) {
        const partly = await gql(server.url, both, { variables: { id: project.id } });
        assert.equal(partly.status, 200, JSON.stringify(partly.body));
        assert.equal(partly.body.errors, undefined);
      }
    });

    test("runs the explorer's own default query as written (a non-null variable with a default)", async () => {
      const source = readFileSync(
        new URL("../../../src/docs/explorer/explorer.browser.jsx", import.meta.url),
        "utf8",
      );
      const document = /const defaultQuery = `([^`]*)`/.exec(source)?.[1] ?? "";
      assert.ok(
        document?.includes("ID! ="),
        "the explorer's default query declares a defaulted non-null variable",
      );
      const { status, body } = await gql(server.url, document);
      assert.equal(status, 200);
      assert.deepEqual(body.data, { project: null });
      assert.equal(body.errors[0].extensions.code, "NOT_FOUND");
    });

    test("answers node(id:) null for malformed, non-Node and unknown-type ids, without internal messages", async () => {
      const { project } = await createPublishedProject(server.services);
      const bad = [
        "garbage",
        "",
        b64("UserError:1"),
        b64("Nope:1"),
        b64("PageInfo:x"),
        b64(`Attendee:${nul}`),
      ];
      for (const id of bad) {
        const { status, body } = await gql(server.url, "query ($id: ID!) { node(id: $id) { id } }", {
          variables: { id },
        });
        assert.equal(status, 200);
        assert.deepEqual(body.data, { node: null }, `node(${JSON.stringify(id)})`);
        assert.equal(body.errors, undefined, `node(${JSON.stringify(id)}): ${JSON.stringify(body.errors)}`);
      }
      const { body } = await gql(server.url, "query ($ids: [ID!]!) { nodes(ids: $ids) { id } }", {
        variables: { ids: [...bad, project.id] },
      });
      assert.equal(body.errors, undefined);
      assert.deepEqual(body.data.nodes, [...bad.map(() => null), { id: project.id }]);
    });

    test("refuses NUL in every mutation's text the same way on both engines: nothing stored, no internal error", async () => {
      const { project, ownerId } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: [...allPermissions],
      });
      const mutations = Object.values(schema().getMutationType()?.getFields() ?? {});
      assert.ok(mutations.length >= 20);
      for (const mutation of mutations) {
        const input = mutation.args[0];
        assert.ok(input);
        const payloadFields = Object.keys(
          (getNamedType(mutation.type) as unknown as { getFields(): object }).getFields(),
        );
        const objectField = payloadFields.find((f) => f !== "userErrors");
        const fuzzed = fuzzValue(input.type, input.name, project.id);
        const { status, body } = await gql(
          server.url,
          `mutation ($input: ${String(input.type)}) { ${mutation.name}(input: $input) { ${objectField} { __typename } userErrors { field message } } }`,
          { token, variables: { input: fuzzed } },
        );
        assert.equal(status, 200, mutation.name);
        assert.deepEqual(internalErrors(body), [], `${mutation.name}: ${JSON.stringify(body.errors)}`);
        // An input without any text (updateEventPage: an id and switches) has nothing to refuse.
        if (!JSON.stringify(fuzzed).includes("\\u0000")) continue;
        const payload = body.data?.[mutation.name];
        assert.ok(
          payload === null || payload === undefined || payload[objectField ?? ""] === null,
          mutation.name,
        );
      }
    });

    test("refuses NUL in ids and search text of queries without an internal error", async () => {
      const { project, ownerId, owner } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: [...allPermissions],
      });
      const ticket = await createTicketType(server.services, owner, project.id);
      await createAttendee(server.services, owner, project.id, ticket.id);
      const queries: [string, Record<string, unknown>][] = [
        ["query ($id: ID!) { project(id: $id) { name } }", { id: nul }],
        ["query ($id: ID!) { node(id: $id) { id } }", { id: b64(`Session:${nul}`) }],
        [
          "query ($id: ID!, $s: String) { project(id: $id) { attendees(search: $s) { totalCount } } }",
          { id: project.id, s: "\u0000" },
        ],
        [
          "query ($id: ID!, $t: ID) { project(id: $id) { attendees(ticketTypeId: $t) { totalCount } } }",
          { id: project.id, t: nul },
        ],
        [
          "query ($id: ID!, $a: String) { project(id: $id) { sessions(after: $a) { totalCount } } }",
          { id: project.id, a: nul },
        ],
      ];
      for (const [query, variables] of queries) {
        for (const auth of [undefined, token]) {
          const { body } = await gql(server.url, query, { token: auth, variables });
          assert.deepEqual(internalErrors(body), [], `${query}: ${JSON.stringify(body.errors)}`);
        }
      }
      // A search for NUL is refused, not a match of every attendee (SQLite used to match all).
      const search = await gql(
        server.url,
        'query ($id: ID!) { project(id: $id) { attendees(search: "\\u0000") { totalCount } } }',
        { token, variables: { id: project.id } },
      );
      assert.equal(search.body.data.project.attendees, null);
      assert.equal(search.body.errors[0].extensions.code, "BAD_USER_INPUT");
    });

    test("refuses control characters in login, signup and dashboard addresses with a 400 page, never a 500", async () => {
      const client = new HttpClient(server.url);
      await client.get("/login");
      const login = await client.post("/login", { email: `a${nul}@example.com`, password: testPassword });
      assert.equal(login.status, 400);
      await client.get("/signup");
      const signup = await client.post("/signup", {
        email: uniqueEmail(),
        name: `Ada${nul}`,
        password: testPassword,
      });
      assert.equal(signup.status, 400);
      const page = await client.get("/b/%00abc/agenda");
      assert.ok(page.status === 400 || page.status === 303, `status ${page.status}`);
    });

    test("refuses an impossible date in a dashboard form instead of moving it to the next month", async () => {
      const { user: owner, project } = await createOrganizer(server.services, {
        project: { timezone: "UTC" },
      });
      const client = await logIn(server.url, owner.email);
      await client.get(`/b/${project.id}/agenda/sessions/new`);
      const created = await client.post(`/b/${project.id}/agenda/sessions`, {
        title: "Keynote",
        startsAt: "2026-02-30T09:00",
        endsAt: "2026-02-30T10:00",
        status: "DRAFT",
      });
      assert.equal(created.status, 400);
      const stored = await server.database.db
        .selectFrom("sessions")
        .select("starts_at")
        .where("project_id", "=", project.id)
        .execute();
      assert.deepEqual(stored, [], "nothing stored on 2 March either");
    });

    test("refuses impossible dates, zero-width-only names and bidi overrides in names shown to others", async () => {
      const { project, ownerId } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: [...allPermissions],
      });
      const session = await gql(
        server.url,
        "mutation ($input: CreateSessionInput!) { createSession(input: $input) { session { startsAt } userErrors { field } } }",
        {
          token,
          variables: {
            input: {
              projectId: project.id,
              title: "Keynote",
              startsAt: "2026-02-30T09:00:00Z",
              endsAt: "2026-03-03T10:00:00Z",
            },
          },
        },
      );
      assert.equal(session.body.data?.createSession?.session ?? null, null, JSON.stringify(session.body));
      const track = await gql(
        server.url,
        "mutation ($input: CreateTrackInput!) { createTrack(input: $input) { track { name } userErrors { field message } } }",
        { token, variables: { input: { projectId: project.id, name: "\u200B\u200D\uFEFF " } } },
      );
      assert.equal(track.body.data.createTrack.track, null);
      assert.deepEqual(track.body.data.createTrack.userErrors[0].field, ["name"]);
      await assert.rejects(
        server.services.apps.createApp(
          { kind: "user", userId: ownerId },
          { projectId: project.id, name: "\u202Emoc.elgoog", permissions: ["agenda:read"] },
        ),
        (error: Error & { code?: string }) => error.code === "BAD_USER_INPUT",
      );
    });
  });
}
