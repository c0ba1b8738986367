import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sqliteEngine } from "../helpers/engines.js";
import { createApp, createProject, createTicketType, uniqueEmail, userActor } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

// PRODUCT.md §5: a revoked app gets nothing more from the project. A delivery's body is rendered at
// its first attempt and stored, so that every retry sends the same bytes (webhooks/dispatcher.ts).
// The link is checked when the body is rendered, not before a retry of a stored body, nor before a
// redelivery the developer asks for: an app whose receiver fails (on purpose or not) gets the
// project's attendees after the organizer revoked it. The engine does not matter here: SQLite.

const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: "0.5,0.5,0.5" };

describe("webhook retries after a revocation", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(sqliteEngine, env);
  });
  after(() => server?.close());

  // Failed before every retry and redelivery checked the link again (webhooks.service.ts,
  // `mayStillReceive`): the stored body went out after the revocation.
  test("a stored body is not sent to the app once its link is revoked, retried or redelivered", async () => {
    const receiver = await startReceiver();
    try {
      receiver.answer = () => 503;
      const { app, ownerId: developerId } = await createApp(server.services, {
        permissions: ["attendees:read"],
      });
      const developer = userActor(developerId ?? "");
      await server.services.webhooks.configure(developer, {
        appId: app.id,
        url: receiver.url,
        events: ["attendee.registered"],
      });
      const { project, ownerId } = await createProject(server.services);
      const organizer = userActor(ownerId);
      await server.services.apps.authorize(organizer, { appId: app.id, projectId: project.id });
      const tickets = await createTicketType(server.services, organizer, project.id);
      await server.services.attendees.registerAttendee(organizer, {
        projectId: project.id,
        ticketTypeId: tickets.id,
        name: "Private Person",
        email: uniqueEmail(),
      });
      await receiver.waitFor(1);
      await server.services.apps.revokeLink(organizer, { appId: app.id, projectId: project.id });
      const revokedAt = Date.now();
      // The three retries are due within 1.5 s.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const [delivery] = await server.services.webhooks.deliveries(developer, app.id, { limit: 1 });
      if (delivery) await server.services.webhooks.redeliver(developer, delivery.id).catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const late = receiver.received.filter(
        (r) => r.receivedAt > revokedAt && r.json.type === "attendee.registered",
      );
      assert.deepEqual(
        late.map((r) => r.json.data.object),
        [],
        "the revoked app received the attendee",
      );
    } finally {
      await receiver.close();
    }
  });
});
