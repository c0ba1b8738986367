import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createApp,
  createProject,
  createTicketType,
  uniqueEmail,
  userActor,
} from "../../../test/helpers/factories.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { startReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";

// Retries 1 s apart: long enough for a revocation to land between two attempts.
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: "1,1,1" };

for (const engine of testEngines()) {
  describe(`a revocation or a deletion stops what was rendered before it (${engine.name})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    before(async () => {
      server = await startTestServer(engine, env);
    });
    after(async () => {
      await server.close();
    });

    /** An app homed in one project and linked to another, hearing of its registrations. */
    async function linkedApp() {
      receiver = await startReceiver();
      const { app, ownerId } = await createApp(server.services, { permissions: ["attendees:read"] });
      const developer = userActor(ownerId ?? "");
      await server.services.webhooks.configure(developer, {
        appId: app.id,
        url: receiver.url,
        events: ["attendee.registered"],
      });
      const { project, ownerId: organizerId } = await createProject(server.services);
      const organizer = userActor(organizerId);
      await server.services.apps.authorize(organizer, { appId: app.id, projectId: project.id });
      const tickets = await createTicketType(server.services, organizer, project.id);
      const register = () =>
        server.services.attendees.registerAttendee(organizer, {
          projectId: project.id,
          ticketTypeId: tickets.id,
          name: "Grace",
          email: uniqueEmail("grace"),
        });
      return { app, developer, organizer, project, register };
    }

    async function waitForStatus(appId: string, developer: ReturnType<typeof userActor>, status: string) {
      for (let i = 0; i < 200; i++) {
        const [latest] = await server.services.webhooks.deliveries(developer, appId, { limit: 1 });
        if (latest?.status === status) return latest;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no delivery reached ${status}`);
    }

    test("a retry of a body rendered before the link was revoked is cancelled, not sent", async () => {
      const { app, developer, organizer, project, register } = await linkedApp();
      receiver.answer = () => 500;
      await register();
      await receiver.waitFor(1);
      await server.services.apps.revokeLink(organizer, { appId: app.id, projectId: project.id });
      const cancelled = await waitForStatus(app.id, developer, "CANCELLED");
      assert.equal(cancelled.lastError, "The app no longer has access to this project's events");
      assert.equal(receiver.received.length, 1, "no retry after the revocation");
      await receiver.close();
    });

    test("a delivered event cannot be redelivered once the link is revoked", async () => {
      const { app, developer, organizer, project, register } = await linkedApp();
      await register();
      const delivered = await waitForStatus(app.id, developer, "DELIVERED");
      await server.services.apps.revokeLink(organizer, { appId: app.id, projectId: project.id });
      await assert.rejects(server.services.webhooks.redeliver(developer, delivered.id), {
        code: "FORBIDDEN",
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.length, 1);
      const [latest] = await server.services.webhooks.deliveries(developer, app.id, { limit: 1 });
      assert.equal(latest?.status, "DELIVERED", "not queued again");
      await receiver.close();
    });

    test("deleting a project deletes its deliveries, personal data and all", async () => {
      const { app, developer, organizer, project, register } = await linkedApp();
      await register();
      const delivered = await waitForStatus(app.id, developer, "DELIVERED");
      await server.services.projects.delete(organizer, project.id, project.id);
      const left = await server.database.db
        .selectFrom("webhook_deliveries")
        .select("id")
        .where("project_id", "=", project.id)
        .execute();
      assert.deepEqual(left, []);
      await assert.rejects(server.services.webhooks.redeliver(developer, delivered.id), {
        code: "NOT_FOUND",
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.received.length, 1);
      await receiver.close();
    });
  });
}
