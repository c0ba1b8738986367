import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { rememberedCaller } from "../../src/graphql/authentication.js";
import { globalId } from "../../src/graphql/ids.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { areaBit } from "../../src/shared/data-areas.js";
import { feedListens, markerArrives } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import { createAttendee, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { createTestContext, fastPathOff } from "../helpers/test-services.js";
import { ownDatabase } from "../helpers/throwaway-database.js";

// The cost side of the database-enforced access version (migration 2026-11-28T10-00_access-versions):
// a stream of check-ins at the door is the API's hottest write, and none of it decides access. It
// must move no project version, no epoch and no credentials epoch: otherwise every check-in would send every cached answer
// of the process back to the database and every app's token to a lookup.

const checkIn = `mutation ($id: ID!) {
  checkInAttendee(input: { attendeeId: $id }) { checkIn { checkedInAt } userErrors { message } }
}`;
const agenda = "query ($id: ID!) { project(id: $id) { name rooms { edges { node { name } } } } }";

/**
 * Waits until the server's feed has handled every notification committed so far (they arrive in
 * commit order), with a marker that names the check-ins' area only: feedListens' marker names every
 * area, which moves the credentials epoch itself.
 */
async function caughtUp({ services }: TestServer): Promise<void> {
  await markerArrives(services, areaBit.checkins);
  // The response cache reads the feed's epoch once per event-loop turn.
  await new Promise((resolve) => setImmediate(resolve));
}

for (const engine of testEngines()) {
  describe(`check-ins leave access alone (${engine.name})`, () => {
    let server: TestServer;
    let sql: PlainSql;
    let drop = async () => {};
    before(async () => {
      // A database of its own: on the shared one, other files' settings edits move the credentials
      // epoch, rightly, whatever the check-ins do.
      const own = await ownDatabase(engine, "checkins_access");
      drop = own.drop;
      await (await createTestContext(own.engine)).close();
      server = await startTestServer(own.engine);
      sql = await plainSql(server.config.databaseUrl);
    });
    after(async () => {
      await sql?.close();
      await server?.close();
      await drop();
    });

    test("twenty check-ins by an app move no version and no epoch, and its token stays remembered", {
      skip: fastPathOff("remembered-credentials"),
    }, async () => {
      const { services } = server;
      const { project, owner } = await createPublishedProject(services);
      const ticket = await createTicketType(services, owner, project.id);
      const attendees = [];
      for (let i = 0; i < 20; i++)
        attendees.push(await createAttendee(services, owner, project.id, ticket.id));
      const { token } = await services.apps.createApp(systemActor, {
        projectId: project.id,
        name: "Door",
        permissions: ["agenda:read", "checkins:write"],
      });
      const header = `Bearer ${token}`;
      await feedListens(services);
      await gql(server.url, agenda, { token, variables: { id: project.id } });
      assert.equal(
        (await gql(server.url, agenda, { token, variables: { id: project.id } })).body.extensions.cached,
        true,
      );
      const version = async () =>
        (
          await sql.all<{ v: number }>(
            "select project_version as v from project_versions where project_id = ?",
            project.id,
          )
        )[0]?.v;
      const before = {
        version: await version(),
        epoch: services.database.externalWrites(),
        credentials: services.responseCache.credentialsEpoch(),
      };
      assert.notEqual(before.epoch, undefined);
      assert.ok(rememberedCaller(services, header), "the token is not remembered to begin with");

      for (const attendee of attendees) {
        const done = await gql(server.url, checkIn, {
          token,
          variables: { id: globalId("Attendee", attendee.id) },
        });
        assert.deepEqual(done.body.data.checkInAttendee.userErrors, []);
      }
      await caughtUp(server);

      assert.equal(await version(), before.version);
      assert.equal(services.database.externalWrites(), before.epoch);
      assert.equal(services.responseCache.credentialsEpoch(), before.credentials);
      assert.ok(rememberedCaller(services, header), "a check-in made the token be looked up again");
      const again = await gql(server.url, agenda, { token, variables: { id: project.id } });
      assert.equal(again.body.extensions.cached, true, "a check-in evicted the agenda");
    });
  });
}
