import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { onlyJson, runCliInProcess } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { findEverywhere, type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { createTestContext } from "../helpers/test-services.js";
import { ownDatabase } from "../helpers/throwaway-database.js";
import { startReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

const register = `mutation ($input: RegisterAttendeeInput!) {
  registerAttendee(input: $input) { attendee { id } userErrors { message } }
}`;
const update = `mutation ($input: UpdateAttendeeInput!) {
  updateAttendee(input: $input) { attendee { id } userErrors { message } }
}`;
const erase = `mutation ($id: ID!) {
  eraseAttendee(input: { id: $id }) { attendee { id name email company status ticketCode } userErrors { code message } }
}`;
const figures = `query ($id: ID!) { project(id: $id) {
  attendees(first: 10) { totalCount edges { node { id name email } } }
  allTicketTypes(first: 10) { edges { node { sold remaining } } }
} }`;

for (const engine of testEngines()) {
  describe(`erasing an attendee (${engine.name})`, () => {
    let server: TestServer;
    let sql: PlainSql;
    let receiver: WebhookReceiver;
    let drop = async () => {};
    before(async () => {
      // A database of its own: another file's dispatcher must not claim this file's deliveries.
      const own = await ownDatabase(engine, "erasure");
      drop = own.drop;
      await (await createTestContext(own.engine)).close();
      server = await startTestServer(own.engine, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });
      sql = await plainSql(server.config.databaseUrl);
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver?.close();
      await sql?.close();
      await server?.close();
      await drop();
    });

    test("needs attendees:write, and an unknown or foreign attendee is NOT_FOUND", async () => {
      const { services } = server;
      const { project, owner, ownerId } = await createPublishedProject(services);
      const ticket = await createTicketType(services, owner, project.id);
      const { token: writer } = await createApp(services, {
        projectId: project.id,
        ownerId,
        permissions: ["attendees:write"],
      });
      const { token: reader } = await createApp(services, {
        projectId: project.id,
        ownerId,
        permissions: ["attendees:read"],
      });
      const registered = await gql(server.url, register, {
        token: writer,
        variables: {
          input: {
            projectId: project.id,
            ticketTypeId: globalId("TicketType", ticket.id),
            name: "Kept Person",
            email: `kept-${randomBytes(4).toString("hex")}@example.org`,
          },
        },
      });
      const id = registered.body.data.registerAttendee.attendee.id;
      const refused = await gql(server.url, erase, { token: reader, variables: { id } });
      assert.equal(refused.body.errors?.[0]?.extensions?.code, "FORBIDDEN");
      const other = await createApp(services, { permissions: ["attendees:write"] });
      const foreign = await gql(server.url, erase, { token: other.token, variables: { id } });
      assert.equal(foreign.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      const unknown = await gql(server.url, erase, {
        token: writer,
        variables: { id: globalId("Attendee", "00000000-0000-0000-0000-000000000000") },
      });
      assert.equal(unknown.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
      const [row] = await sql.all<{ name: string }>(
        "select name from attendees where project_id = ?",
        project.id,
      );
      assert.equal(row?.name, "Kept Person");
    });

    test("replaces their name, email and company in every table; counts add up, the audit log says who erased them, apps hear attendee.erased", async () => {
      const { services } = server;
      const tag = randomBytes(5).toString("hex");
      const name = `Zelda Quixote${tag}`;
      const email = `Zelda.${tag}@Example.org`;
      const company = `Erasable Widgets ${tag}`;
      const { project, owner, ownerId } = await createPublishedProject(services);
      const ticket = await createTicketType(services, owner, project.id);
      const { app, token } = await createApp(services, {
        projectId: project.id,
        ownerId,
        name: "Registrations Sync",
        permissions: ["attendees:read", "attendees:write"],
      });
      await services.webhooks.configure(owner, {
        appId: app.id,
        url: receiver.url,
        events: ["attendee.registered", "attendee.updated", "attendee.erased"],
      });
      const input = (n: string, e: string) => ({
        projectId: project.id,
        ticketTypeId: globalId("TicketType", ticket.id),
        name: n,
        email: e,
        company: "Old Company",
      });
      const them = await gql(server.url, register, { token, variables: { input: input(name, email) } });
      const id = them.body.data.registerAttendee.attendee.id;
      const otherEmail = `other-${tag}@example.org`;
      await gql(server.url, register, {
        token,
        variables: { input: input(`Other Person${tag}`, otherEmail) },
      });
      await gql(server.url, update, { token, variables: { input: { id, company } } });
      // An uploaded file listing both: the other person's line must survive.
      await services.attendeeFiles.upload(
        owner,
        project.id,
        "people.csv",
        Buffer.from(
          `name,email,company,ticket type\n${name},${email},${company},Standard\nOther Person${tag},${otherEmail},,Standard\n`,
        ),
      );
      // Delivered, so their payloads are stored in the delivery log.
      await receiver.waitFor(3, { filter: (r) => r.json.data.projectId === project.id });
      const before = await gql(server.url, figures, { token, variables: { id: project.id } });
      for (const needle of [email, name, company]) {
        assert.notDeepEqual(await findEverywhere(sql, engine.name, needle), [], `${needle} is stored before`);
      }

      const erased = await gql(server.url, erase, { token, variables: { id } });
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      const attendee = erased.body.data.eraseAttendee.attendee;
      assert.equal(attendee.name, "Erased attendee");
      assert.match(attendee.email, /@erased\.invalid$/);
      assert.equal(attendee.company, null);
      assert.equal(attendee.status, "REGISTERED");
      assert.ok(attendee.ticketCode);

      const heard = await receiver.waitFor(1, {
        filter: (r) => r.json.type === "attendee.erased" && r.json.data.projectId === project.id,
      });
      assert.equal(heard[0]?.json.data.object.name, "Erased attendee");

      for (const needle of [email, name, company]) {
        assert.deepEqual(await findEverywhere(sql, engine.name, needle), [], `${needle} is found nowhere`);
      }
      // The other person is untouched, in the file too.
      assert.notDeepEqual(await findEverywhere(sql, engine.name, otherEmail), []);
      const [file] = await sql.all<{ content: string }>(
        "select content from attendee_imports where project_id = ?",
        project.id,
      );
      assert.match(file?.content ?? "", new RegExp(`Other Person${tag},${otherEmail}`));

      const afterwards = await gql(server.url, figures, { token, variables: { id: project.id } });
      assert.deepEqual(afterwards.body.data.project.allTicketTypes, before.body.data.project.allTicketTypes);
      assert.equal(
        afterwards.body.data.project.attendees.totalCount,
        before.body.data.project.attendees.totalCount,
      );
      const [counts] = await sql.all<{ registered: number | string }>(
        "select registered from overview_ticket_counts where ticket_type_id = ?",
        ticket.id,
      );
      assert.equal(Number(counts?.registered), 2);

      const audit = await sql.all<{ actor_kind: string; actor_label: string; changes: string | null }>(
        "select actor_kind, actor_label, changes from audit_events where project_id = ? and action = 'attendee.erased'",
        project.id,
      );
      assert.equal(audit.length, 1);
      assert.equal(audit[0]?.actor_kind, "app");
      assert.equal(audit[0]?.actor_label, "Registrations Sync");

      // Erasing again changes nothing and records nothing.
      const again = await gql(server.url, erase, { token, variables: { id } });
      assert.equal(again.body.data.eraseAttendee.attendee.name, "Erased attendee");
      const entries = await sql.all(
        "select id from audit_events where project_id = ? and action = 'attendee.erased'",
        project.id,
      );
      assert.equal(entries.length, 1);
    });

    // The CLI runs the same service on either engine; it is run once, beside the SQLite server.
    if (engine.name === "sqlite")
      test("eventgraph attendees erase does the same as the operator", async () => {
        const { services } = server;
        const { project, owner } = await createPublishedProject(services);
        const ticket = await createTicketType(services, owner, project.id);
        const email = `cli-${randomBytes(5).toString("hex")}@example.org`;
        const attendee = await services.attendees.registerAttendee(owner, {
          projectId: project.id,
          ticketTypeId: ticket.id,
          name: "Cli Person",
          email,
        });
        const env = { DATABASE_URL: server.config.databaseUrl };
        const run = await runCliInProcess(["attendees", "erase", "--attendee", attendee.id, "--json"], env);
        assert.equal(run.code, 0, run.stderr);
        assert.deepEqual(onlyJson(run.stdout), { id: attendee.id, erased: true });
        assert.deepEqual(await findEverywhere(sql, engine.name, email), []);
        const unknown = await runCliInProcess(["attendees", "erase", "--attendee", "nope"], env);
        assert.equal(unknown.code, 1);
        assert.equal(unknown.stderr.trim().split("\n").length, 1);
      });
  });
}
