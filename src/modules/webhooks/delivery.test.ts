import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createApp,
  createProject,
  createTicketType,
  uniqueEmail,
  userActor,
} from "../../../test/helpers/factories.js";
import { gql } from "../../../test/helpers/graphql.js";
import { Mailbox } from "../../../test/helpers/mailbox.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { startReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { globalId } from "../../graphql/ids.js";
import type { Permission } from "../access/permissions.js";

const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05" };

for (const engine of testEngines()) {
  describe(`webhook delivery (${engine.name})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let mailbox: Mailbox;
    before(async () => {
      mailbox = await new Mailbox().start();
      server = await startTestServer(engine, { ...env, SMTP_URL: mailbox.url });
    });
    after(async () => {
      await server.close();
      await mailbox.close();
    });

    /** An app with an endpoint on a fresh receiver, subscribed to `events`. */
    async function subscribedApp(
      events: string[],
      permissions: Permission[] = ["attendees:read", "agenda:read"],
    ) {
      receiver = await startReceiver();
      const { app, projectId, ownerId } = await createApp(server.services, { permissions });
      const owner = userActor(ownerId ?? "");
      const { secret } = await server.services.webhooks.configure(owner, {
        appId: app.id,
        url: receiver.url,
        events,
      });
      return { app, projectId, owner, secret: secret ?? "" };
    }

    test("refuses an unknown event type, a non-https URL without the setting and a stranger", async () => {
      const { app, owner } = await subscribedApp(["attendee.registered"]);
      await assert.rejects(
        server.services.webhooks.configure(owner, {
          appId: app.id,
          url: receiver.url,
          events: ["attendee.exploded"],
        }),
        { code: "BAD_USER_INPUT" },
      );
      const stranger = userActor((await createProject(server.services)).ownerId);
      await assert.rejects(
        server.services.webhooks.configure(stranger, {
          appId: app.id,
          url: receiver.url,
          events: ["attendee.registered"],
        }),
        { code: "NOT_FOUND" },
      );
      await receiver.close();
    });

    test("a write that queued a delivery wakes the dispatcher: it goes out at once, not at the 5 s poll", async () => {
      const { projectId, owner } = await subscribedApp(["checkin.created"]);
      const ticketType = await createTicketType(server.services, owner, projectId);
      const attendee = await server.services.attendees.registerAttendee(owner, {
        projectId,
        ticketTypeId: ticketType.id,
        name: "Ada",
        email: uniqueEmail("ada"),
      });
      await server.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      const [checkedIn] = await receiver.waitFor(1, { timeoutMs: 1_500 });
      assert.equal(checkedIn?.json.type, "checkin.created");
      await receiver.close();
    });

    test("signs each event the Standard Webhooks way, with the object as the API shows it", async () => {
      const { projectId, owner, secret } = await subscribedApp(["attendee.registered", "checkin.created"]);
      assert.match(secret, /^whsec_/);
      const ticketType = await createTicketType(server.services, owner, projectId);
      const email = uniqueEmail("guest");
      const attendee = await server.services.attendees.registerAttendee(owner, {
        projectId,
        ticketTypeId: ticketType.id,
        name: "Grace",
        email,
      });
      await server.services.checkins.checkIn(owner, { attendeeId: attendee.id });
      const [registered, checkedIn] = await receiver.waitFor(2);
      assert.ok(registered && checkedIn);
      const verified = new Webhook(secret).verify(registered.body, registered.headers) as { type: string };
      assert.equal(verified.type, "attendee.registered");
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32).toString("base64")}`).verify(
          registered.body,
          registered.headers,
        ),
      );
      assert.equal(registered.json.data.projectId, projectId);
      assert.equal(registered.json.data.object.id, globalId("Attendee", attendee.id));
      assert.equal(registered.json.data.object.email, email);
      assert.deepEqual(registered.json.data.object.ticketType, { id: globalId("TicketType", ticketType.id) });
      assert.equal(checkedIn.json.type, "checkin.created");
      assert.ok((checkedIn.json.data.object.checkIn as { checkedInAt: string }).checkedInAt);
      await receiver.close();
    });

    test("retries a failing receiver with the same webhook-id, logging every attempt", async () => {
      const { app, projectId, owner } = await subscribedApp(["project.updated"]);
      receiver.answer = (n) => (n <= 2 ? 500 : 204);
      await server.services.projects.update(owner, projectId, { name: "Renamed" });
      const requests = await receiver.waitFor(3);
      assert.equal(new Set(requests.map((r) => r.headers["webhook-id"])).size, 1);
      assert.equal(new Set(requests.map((r) => r.body)).size, 1, "every retry sends the same body");
      assert.deepEqual(requests[0]?.json.data.changed, ["name"]);
      const delivery = await waitForStatus(app.id, owner, "DELIVERED");
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.responseStatus, 204);
      const { attempts } = await server.services.webhooks.delivery(owner, delivery.id);
      assert.deepEqual(
        attempts.map((a) => a.responseStatus),
        [500, 500, 204],
      );
      assert.equal(attempts[0]?.responseBody, "answer 500");
      await receiver.close();
    });

    test("gives up after the last retry (FAILED), and Redeliver sends it again", async () => {
      const { app, projectId, owner } = await subscribedApp(["project.updated"]);
      receiver.answer = () => 503;
      await server.services.projects.update(owner, projectId, { name: "Down" });
      const failed = await waitForStatus(app.id, owner, "FAILED");
      assert.equal(failed.attempts, 4, "the first attempt and three retries");
      receiver.answer = () => 200;
      await server.services.webhooks.redeliver(owner, failed.id);
      const delivered = await waitForStatus(app.id, owner, "DELIVERED");
      assert.equal(delivered.id, failed.id);
      assert.equal(receiver.received.length, 5);
      await receiver.close();
    });

    test("a rolled-back write sends nothing; revocation and narrowing stop a project's events", async () => {
      const {
        app,
        projectId: home,
        owner,
      } = await subscribedApp(["attendee.registered", "app.link.revoked"]);
      const { project, ownerId } = await createProject(server.services);
      const organizer = userActor(ownerId);
      await server.services.apps.authorize(organizer, { appId: app.id, projectId: project.id });
      const ticketType = await createTicketType(server.services, organizer, project.id, { quantity: 1 });
      const register = () =>
        server.services.attendees.registerAttendee(organizer, {
          projectId: project.id,
          ticketTypeId: ticketType.id,
          name: "A",
          email: uniqueEmail(),
        });
      await register();
      await receiver.waitFor(1);
      await assert.rejects(register(), "sold out: the write rolls back, and so does its event");
      await server.services.apps.revokeLink(organizer, { appId: app.id, projectId: project.id });
      await server.services.tickets.updateTicketType(organizer, { id: ticketType.id, quantity: 10 });
      await register();
      const [, revoked] = await receiver.waitFor(2);
      assert.equal(revoked?.json.type, "app.link.revoked");
      assert.equal(revoked?.json.data.object.projectId, project.id);

      // Narrowing: the app stops asking for attendees:read, so no project sends attendee events.
      await server.services.apps.updateApp(owner, { id: app.id, permissions: ["agenda:read"] });
      const homeTickets = await createTicketType(server.services, owner, home);
      await server.services.attendees.registerAttendee(owner, {
        projectId: home,
        ticketTypeId: homeTickets.id,
        name: "B",
        email: uniqueEmail(),
      });
      await server.services.webhooks.sendPing(owner, app.id);
      await receiver.waitFor(1, { filter: (r) => r.json.type === "ping" });
      assert.deepEqual(
        receiver.received.map((r) => r.json.type),
        ["attendee.registered", "app.link.revoked", "ping"],
      );
      await receiver.close();
    });

    test("a fragment chooses data.object, evaluated with the link's permissions", async () => {
      const { app, projectId, owner } = await subscribedApp(["ticket_type.created"], ["tickets:read"]);
      await assert.rejects(
        server.services.webhooks.configure(owner, {
          appId: app.id,
          url: receiver.url,
          events: ["ticket_type.created"],
          fragments: { "ticket_type.created": "name nope" },
        }),
        { code: "BAD_USER_INPUT" },
      );
      await assert.rejects(
        server.services.webhooks.configure(owner, {
          appId: app.id,
          url: receiver.url,
          events: ["ticket_type.created"],
          fragments: { "ticket_type.created": "id } query X { viewer { id }" },
        }),
        { code: "BAD_USER_INPUT" },
      );
      await server.services.webhooks.configure(owner, {
        appId: app.id,
        url: receiver.url,
        events: ["ticket_type.created"],
        fragments: { "ticket_type.created": "name sold" },
      });
      await createTicketType(server.services, owner, projectId, { name: "VIP" });
      const [created] = await receiver.waitFor(1);
      assert.deepEqual(created?.json.data.object, { name: "VIP", sold: 0 });
      await receiver.close();
    });

    test("an app reads its own endpoint and delivery log through the API, never the secret", async () => {
      const { app, projectId, owner } = await subscribedApp(["project.updated"]);
      const { token } = await server.services.apps.rotateToken(owner, { id: app.id });
      receiver.answer = (n) => (n === 1 ? 200 : 410);
      await server.services.projects.update(owner, projectId, { name: "One" });
      await waitForStatus(app.id, owner, "DELIVERED");
      await server.services.projects.update(owner, projectId, { name: "Two" });
      await waitForStatus(app.id, owner, "FAILED");
      const query = `query ($status: WebhookDeliveryStatus, $after: String) { viewer { webhook { url events secretLastFour disabledAt }
        webhookDeliveries(first: 1, status: $status, after: $after) { totalCount pageInfo { hasNextPage endCursor }
          edges { node { id type projectId status attempts responseStatus createdAt deliveredAt } } } } }`;
      const all = await gql(server.url, query, { token });
      assert.equal(all.status, 200, JSON.stringify(all.body));
      const viewer = all.body.data.viewer;
      assert.equal(viewer.webhook.url, receiver.url);
      assert.deepEqual(viewer.webhook.events, ["project.updated"]);
      assert.equal(viewer.webhook.secretLastFour.length, 4);
      assert.equal(viewer.webhookDeliveries.totalCount, 2);
      assert.equal(viewer.webhookDeliveries.edges[0].node.status, "FAILED");
      assert.equal(viewer.webhookDeliveries.edges[0].node.responseStatus, 410);
      const next = await gql(server.url, query, {
        token,
        variables: { after: viewer.webhookDeliveries.pageInfo.endCursor },
      });
      const older = next.body.data.viewer.webhookDeliveries;
      assert.equal(older.edges[0].node.status, "DELIVERED");
      assert.equal(older.pageInfo.hasNextPage, false);
      const delivered = await gql(server.url, query, { token, variables: { status: "DELIVERED" } });
      assert.equal(delivered.body.data.viewer.webhookDeliveries.totalCount, 1);
      assert.doesNotMatch(JSON.stringify(all.body), /whsec_/);
      await receiver.close();
    });

    test("an endpoint failing for 3 days is disabled and its developer emailed; saving enables it", async () => {
      const { app, projectId, owner } = await subscribedApp(["project.updated"]);
      receiver.answer = () => 500;
      const fourDaysAgo = new Date(Date.now() - 4 * 24 * 60 * 60 * 1000).toISOString();
      await server.database.db
        .updateTable("webhook_endpoints")
        .set({ failing_since: fourDaysAgo })
        .where("app_id", "=", app.id)
        .execute();
      await server.services.projects.update(owner, projectId, { name: "Still down" });
      const developer = await server.database.db
        .selectFrom("users")
        .select("email")
        .where("id", "=", owner.kind === "user" ? owner.userId : "")
        .executeTakeFirstOrThrow();
      const mail = await mailbox.latest(developer.email);
      assert.match(mail.subject, /Webhooks of .* were disabled/);
      assert.match(mail.text, new RegExp(receiver.url.replace(/[.:/]/g, "\\$&")));
      const endpoint = await server.services.webhooks.endpointOf(owner, app.id);
      assert.ok(endpoint?.disabledAt);
      // Disabled: later events are not sent but kept as FAILED, so the backlog can be redelivered.
      const before = receiver.received.length;
      await server.services.projects.update(owner, projectId, { name: "Again" });
      const kept = await waitForStatus(app.id, owner, "FAILED");
      assert.equal(kept.lastError, "The endpoint is disabled");
      assert.equal(receiver.received.length, before);
      const saved = await server.services.webhooks.configure(owner, {
        appId: app.id,
        url: receiver.url,
        events: ["project.updated"],
      });
      assert.equal(saved.endpoint.disabledAt, null);
      receiver.answer = () => 200;
      const since = new Date(Date.now() - 60_000).toISOString();
      assert.equal(await server.services.webhooks.redeliverFailedSince(owner, app.id, since), 2);
      await receiver.waitFor(1, { filter: (r) => r.json.data.object.name === "Again" });
      await receiver.close();
    });

    async function waitForStatus(appId: string, owner: ReturnType<typeof userActor>, status: string) {
      for (let i = 0; i < 300; i++) {
        const [latest] = await server.services.webhooks.deliveries(owner, appId, { limit: 1 });
        if (latest?.status === status) return latest;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no delivery reached ${status}`);
    }
  });
}
