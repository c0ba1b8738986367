import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { sql } from "kysely";
import { globalId } from "../../src/graphql/ids.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createAttendee, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

const hour = 3_600_000;

for (const engine of testEngines()) {
  describe(`write rules (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    // A database trigger makes the data version bump fail, standing in for a crash between the
    // write and the bump: the write must not survive without its bump.
    async function refuseVersionBumps(projectId: string): Promise<() => Promise<void>> {
      const db = server.database.db;
      const name = `refuse_bump_${randomUUID().replaceAll("-", "")}`;
      if (engine.name === "sqlite") {
        await sql
          .raw(
            `create trigger ${name} before update on project_versions when old.project_id = '${projectId}' begin select raise(abort, 'bump refused'); end`,
          )
          .execute(db);
        return async () => void (await sql.raw(`drop trigger ${name}`).execute(db));
      }
      await sql
        .raw(
          `create function ${name}() returns trigger as $$ begin raise exception 'bump refused'; end $$ language plpgsql`,
        )
        .execute(db);
      await sql
        .raw(
          `create trigger ${name} before update on project_versions for each row when (old.project_id = '${projectId}') execute function ${name}()`,
        )
        .execute(db);
      return async () => {
        await sql.raw(`drop trigger ${name} on project_versions`).execute(db);
        await sql.raw(`drop function ${name}()`).execute(db);
      };
    }

    test("bumps the data version in the write's transaction: no cached answer outlives a write whose bump failed", async () => {
      const { project, ownerId } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["agenda:read", "agenda:write"],
      });
      const read = `{ project(id: "${project.id}") { tracks { totalCount } } }`;
      const first = await gql(server.url, read, { token });
      assert.equal(first.body.data.project.tracks.totalCount, 0);

      const restore = await refuseVersionBumps(project.id);
      try {
        const write = await gql(
          server.url,
          `mutation { createTrack(input: {projectId: "${project.id}", name: "Main"}) { track { name } } }`,
          { token },
        );
        assert.equal(write.body.errors?.[0]?.extensions?.code, "INTERNAL_SERVER_ERROR");
      } finally {
        await restore();
      }

      const stored = await server.database.db
        .selectFrom("tracks")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("project_id", "=", project.id)
        .executeTakeFirstOrThrow();
      const again = await gql(server.url, read, { token });
      assert.equal(again.body.data.project.tracks.totalCount, Number(stored.n));
      assert.equal(Number(stored.n), 0, "the track was rolled back with its failed bump");
    });

    test("registerAttendee from an app respects the ticket type's sales window; organizers may register outside it", async () => {
      const { project, ownerId, owner } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["attendees:write"],
      });
      const now = Date.now();
      const future = await createTicketType(server.services, owner, project.id, {
        name: "Next year",
        salesStartAt: new Date(now + 24 * hour).toISOString(),
      });
      const closed = await createTicketType(server.services, owner, project.id, {
        name: "Early bird",
        salesStartAt: new Date(now - 48 * hour).toISOString(),
        salesEndAt: new Date(now - 24 * hour).toISOString(),
      });
      for (const ticket of [future, closed]) {
        const { body } = await gql(
          server.url,
          `mutation ($input: RegisterAttendeeInput!) { registerAttendee(input: $input) { attendee { id } userErrors { field message } } }`,
          {
            token,
            variables: {
              input: {
                projectId: project.id,
                ticketTypeId: globalId("TicketType", ticket.id),
                name: "Grace",
                email: `g-${randomUUID()}@example.com`,
              },
            },
          },
        );
        assert.equal(body.data.registerAttendee.attendee, null, ticket.name);
        assert.deepEqual(body.data.registerAttendee.userErrors[0].field, ["ticketTypeId"]);
        assert.match(body.data.registerAttendee.userErrors[0].message, /not on sale/);
      }
      const byOrganizer = await createAttendee(server.services, owner, project.id, closed.id);
      assert.equal(byOrganizer.status, "REGISTERED");
    });

    test("tells a tickets:write caller without read permissions the rule, never the exact sold or registered count", async () => {
      const { project, ownerId, owner } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["tickets:write"],
      });
      const ticket = await createTicketType(server.services, owner, project.id, { quantity: 10 });
      for (let i = 0; i < 3; i++) await createAttendee(server.services, owner, project.id, ticket.id);

      const lower = await gql(
        server.url,
        `mutation { updateTicketType(input: {id: "${globalId("TicketType", ticket.id)}", quantity: 1}) { ticketType { id } userErrors { field message } } }`,
        { token },
      );
      const [quantityError] = lower.body.data.updateTicketType.userErrors;
      assert.deepEqual(quantityError.field, ["quantity"]);
      assert.doesNotMatch(quantityError.message, /\d/);

      const remove = await gql(
        server.url,
        `mutation { deleteTicketType(input: {id: "${globalId("TicketType", ticket.id)}"}) { ticketType { id } userErrors { field message } } }`,
        { token },
      );
      assert.equal(remove.body.data.deleteTicketType.ticketType, null);
      assert.doesNotMatch(JSON.stringify(remove.body), /\b3\b/);

      // With the read permission the figure is part of what the caller may see anyway.
      const reader = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["tickets:write", "tickets:read"],
      });
      const told = await gql(
        server.url,
        `mutation { updateTicketType(input: {id: "${globalId("TicketType", ticket.id)}", quantity: 1}) { userErrors { message } } }`,
        { token: reader.token },
      );
      assert.match(told.body.data.updateTicketType.userErrors[0].message, /at least 3/);
    });
  });
}
