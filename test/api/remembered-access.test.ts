import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { changeArrives, feedListens } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import {
  createApp,
  createAttendee,
  createProject,
  createTicketType,
  createUser,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { fastPathOff } from "../helpers/test-services.js";

// An app's access to a project is remembered between requests (modules/access/access.service.ts):
// these tests take it away in every way there is, right after a write that used it.

const checkIn = `mutation($input: CheckInAttendeeInput!) {
  checkInAttendee(input: $input) { checkIn { checkedInAt } userErrors { message } }
}`;

for (const engine of testEngines()) {
  describe(`an app's remembered access (${engine.name})`, () => {
    let server: TestServer;
    // Another process on the same database (a second server with its own caches and change feed).
    let elsewhere: TestServer;
    before(async () => {
      server = await startTestServer(engine);
      elsewhere = await startTestServer(engine, { DATABASE_URL: server.config.databaseUrl });
      await feedListens(server.services);
    });
    after(async () => {
      await elsewhere.close();
      await server.close();
    });

    /** An organizer's project with attendees, linked to a new app that may check them in. */
    async function linkedProject(attendees: number) {
      const owner = { kind: "user" as const, userId: (await createUser(server.services)).id };
      const { project } = await createProject(server.services, { ownerId: owner.userId });
      const ticket = await createTicketType(server.services, systemActor, project.id);
      const people: string[] = [];
      for (let i = 0; i < attendees; i++) {
        const attendee = await createAttendee(server.services, systemActor, project.id, ticket.id);
        people.push(globalId("Attendee", attendee.id));
      }
      const { app, token } = await createApp(server.services, { permissions: ["checkins:write"] });
      await server.services.apps.authorize(owner, { appId: app.id, projectId: project.id });
      const send = (attendeeId: string) =>
        gql(server.url, checkIn, { token, variables: { input: { attendeeId } } });
      // Two check-ins: the second is decided from the remembered access.
      for (const attendeeId of people.slice(0, 2)) {
        const { body } = await send(attendeeId);
        assert.deepEqual(body.data.checkInAttendee.userErrors, [], JSON.stringify(body));
      }
      return { owner, project, app, people, send };
    }

    // Refused as if the project or the attendee did not exist, or as not permitted: never done.
    function assertRefused(
      body: { data?: { checkInAttendee: unknown } | null; errors?: { extensions: { code: string } }[] },
      code = "NOT_FOUND",
    ) {
      assert.equal(body.errors?.[0]?.extensions.code, code, JSON.stringify(body));
      assert.equal(body.data?.checkInAttendee ?? null, null);
    }

    test("a write by id checks the project's status once, then answers from what it remembered", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const { people, send } = await linkedProject(3);
      server.statements.length = 0;
      const { body } = await send(people[2] ?? "");
      assert.deepEqual(body.data.checkInAttendee.userErrors, [], JSON.stringify(body));
      // On PostgreSQL other test files' settings changes reach this server's feed and may make it
      // read again; on SQLite nothing else writes this file.
      if (engine.name === "sqlite") {
        const reads = server.statements.filter((sql) => /from "projects"/.test(sql));
        assert.deepEqual(reads, [], server.statements.join("\n"));
      }
    });

    test("a link revoked here refuses the very next write", async () => {
      const { owner, project, app, people, send } = await linkedProject(3);
      await server.services.apps.revokeLink(owner, { appId: app.id, projectId: project.id });
      assertRefused((await send(people[2] ?? "")).body);
    });

    test("a link revoked by another process refuses the next write once its change arrives", async () => {
      const { owner, project, app, people, send } = await linkedProject(3);
      const arrived = changeArrives(server.services, project.id);
      await elsewhere.services.apps.revokeLink(owner, { appId: app.id, projectId: project.id });
      await arrived;
      assertRefused((await send(people[2] ?? "")).body);
    });

    test("narrowing the app's permissions refuses the very next write", async () => {
      const { app, people, send } = await linkedProject(3);
      await server.services.apps.updateApp(systemActor, { id: app.id, permissions: ["attendees:read"] });
      assertRefused((await send(people[2] ?? "")).body);
    });

    test("deleting the project refuses the very next write", async () => {
      const { owner, project, people, send } = await linkedProject(3);
      await server.services.projects.delete(owner, project.id, project.id);
      assertRefused((await send(people[2] ?? "")).body);
    });
  });
}
