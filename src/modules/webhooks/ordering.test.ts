import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp, createTicketType, uniqueEmail, userActor } from "../../../test/helpers/factories.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { startReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { schema } from "../../api-schema.js";
import { WebhookDispatcher } from "./dispatcher.js";
import { ObjectRenderer } from "./render.js";

// Retries wait 2 s: long enough that later events visibly go out before a retry.
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: "2" };

for (const engine of testEngines()) {
  describe(`webhook ordering under load (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(engine, env);
    });
    after(async () => {
      await server.close();
    });

    /** An app subscribed to attendee.registered on a new receiver, and a writer of `n` registrations. */
    async function subscribed() {
      const receiver = await startReceiver();
      const { app, projectId, ownerId } = await createApp(server.services, {
        permissions: ["attendees:read"],
      });
      const owner = userActor(ownerId ?? "");
      await server.services.webhooks.configure(owner, {
        appId: app.id,
        url: receiver.url,
        events: ["attendee.registered"],
      });
      const ticketType = await createTicketType(server.services, owner, projectId, { quantity: 1000 });
      /** Registers `n` attendees, `concurrency` writes at a time. */
      const register = async (n: number, concurrency: number) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next++ < n)
              await server.services.attendees.registerAttendee(owner, {
                projectId,
                ticketTypeId: ticketType.id,
                name: "Guest",
                email: uniqueEmail("guest"),
              });
          }),
        );
      };
      /** The app's delivery ids in commit (`seq`) order. */
      const committed = async () =>
        (
          await server.database.db
            .selectFrom("webhook_deliveries")
            .select("id")
            .where("app_id", "=", app.id)
            .orderBy("seq")
            .execute()
        ).map((row) => row.id);
      return { receiver, register, committed, appId: app.id };
    }

    /** Each webhook-id in the order of its first request. */
    const firstAttempts = (receiver: WebhookReceiver) => [
      ...new Set(receiver.received.map((r) => r.headers["webhook-id"])),
    ];

    test("120 events written 20 at a time reach the endpoint once each, in commit order", async () => {
      const { receiver, register, committed } = await subscribed();
      await register(120, 20);
      // One at a time (strict order): a CI host with the suite beside it has delivered ~3 a second.
      await receiver.waitFor(120, { timeoutMs: 90_000 });
      assert.equal(receiver.received.length, 120, "nothing sent twice");
      assert.deepEqual(firstAttempts(receiver), await committed());
      await receiver.close();
    });

    test("a failed first attempt does not hold the later events: its retry comes after them", async () => {
      const { receiver, register, committed } = await subscribed();
      receiver.answer = (n) => (n === 1 ? 500 : 204);
      await register(1, 1);
      await receiver.waitFor(1);
      await register(5, 1);
      const requests = await receiver.waitFor(7, { timeoutMs: 10_000 });
      const order = await committed();
      assert.deepEqual(firstAttempts(receiver), order);
      assert.deepEqual(
        requests.map((r) => r.headers["webhook-id"]),
        [...order, order[0]],
        "the retry goes out after the five later events",
      );
      await receiver.close();
    });

    test("a success after a failure in the same run clears failing_since (results are written batched)", async () => {
      const { receiver, register, appId } = await subscribed();
      receiver.answer = (n) => (n === 2 ? 500 : 204);
      await register(6, 6);
      await receiver.waitFor(7, { timeoutMs: 10_000 });
      const failingSince = async () =>
        (
          await server.database.db
            .selectFrom("webhook_endpoints")
            .select("failing_since")
            .where("app_id", "=", appId)
            .executeTakeFirstOrThrow()
        ).failing_since;
      for (let i = 0; i < 100 && (await failingSince()) !== null; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await failingSince(), null);
      await receiver.close();
    });

    test("two dispatchers on one database never send a delivery twice or out of order", async () => {
      const { receiver, register, committed } = await subscribed();
      let inFlight = 0;
      let most = 0;
      receiver.answer = async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 3));
        inFlight--;
        return 204;
      };
      const { services } = server;
      const second = new WebhookDispatcher({
        database: services.database,
        config: services.config,
        logger: services.logger,
        access: services.access,
        mailer: services.mailer,
        renderer: new ObjectRenderer(schema, services),
      });
      second.start();
      const unsubscribe = services.webhooks.onQueued(() => second.wake());
      try {
        await register(80, 10);
        await receiver.waitFor(80, { timeoutMs: 30_000 });
      } finally {
        unsubscribe();
        await second.stop();
      }
      assert.equal(receiver.received.length, 80, "nothing sent twice");
      assert.equal(most, 1, "one project's first attempts go one at a time");
      assert.deepEqual(firstAttempts(receiver), await committed());
      await receiver.close();
    });
  });
}
