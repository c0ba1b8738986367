import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp, createTicketType, uniqueEmail, userActor } from "../../../test/helpers/factories.js";
import { startTestServer, type TestServer } from "../../../test/helpers/test-server.js";
import { startReceiver, type WebhookReceiver } from "../../../test/helpers/webhook-receiver.js";
import { schema } from "../../api-schema.js";
import { WebhookDispatcher } from "./dispatcher.js";
import { ObjectRenderer } from "./render.js";

// Retries wait 2 s: long enough that later events visibly go out before a retry. Four requests at
// once per endpoint, so a few dozen events show the bound.
const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: "2", WEBHOOK_MAX_IN_FLIGHT: "4" };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const engine of testEngines()) {
  describe(`webhook ordering under load (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(engine, env);
    });
    after(async () => {
      await server.close();
    });

    /** An app subscribed to attendees' events on a new receiver, and writers of its events. */
    async function subscribed() {
      const receiver = await startReceiver();
      const { app, projectId, ownerId } = await createApp(server.services, {
        permissions: ["attendees:read"],
      });
      const owner = userActor(ownerId ?? "");
      await server.services.webhooks.configure(owner, {
        appId: app.id,
        url: receiver.url,
        events: ["attendee.registered", "attendee.updated", "attendee.cancelled"],
      });
      const ticketType = await createTicketType(server.services, owner, projectId, { quantity: 1000 });
      /** Runs `work` for each of `items`, `concurrency` at a time. */
      const inParallel = async <T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>) => {
        let next = 0;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < items.length) await work(items[next++] as T);
          }),
        );
      };
      /** Registers `n` attendees, `concurrency` writes at a time; answers their ids. */
      const register = async (n: number, concurrency: number) => {
        const ids: string[] = [];
        await inParallel(Array.from({ length: n }), concurrency, async () => {
          const attendee = await server.services.attendees.registerAttendee(owner, {
            projectId,
            ticketTypeId: ticketType.id,
            name: "Guest",
            email: uniqueEmail("guest"),
          });
          ids.push(attendee.id);
        });
        return ids;
      };
      /** Renames then cancels each attendee, one after another, `concurrency` attendees at a time. */
      const updateAndCancel = (ids: string[], concurrency: number) =>
        inParallel(ids, concurrency, async (id) => {
          await server.services.attendees.updateAttendee(owner, { id, name: "Renamed" });
          await server.services.attendees.cancelAttendee(owner, { id });
        });
      /** The app's deliveries in commit (`seq`) order. */
      const committed = () =>
        server.database.db
          .selectFrom("webhook_deliveries")
          .select(["id", "object_id"])
          .where("app_id", "=", app.id)
          .orderBy("seq")
          .execute();
      return { receiver, register, updateAndCancel, committed, appId: app.id };
    }

    /** Each webhook-id in the order of its first request. */
    const firstAttempts = (receiver: WebhookReceiver) => [
      ...new Set(receiver.received.map((r) => r.headers["webhook-id"])),
    ];

    /** Asserts that each object's deliveries first arrived in commit order, and answers how many objects. */
    async function assertOrderPerObject(
      receiver: WebhookReceiver,
      committed: { id: string; object_id: string }[],
    ) {
      const arrival = new Map(firstAttempts(receiver).map((id, i) => [id, i]));
      const byObject = new Map<string, number[]>();
      for (const row of committed) {
        const at = arrival.get(row.id);
        assert.notEqual(at, undefined, `delivery ${row.id} never arrived`);
        byObject.set(row.object_id, [...(byObject.get(row.object_id) ?? []), at as number]);
      }
      for (const [object, arrivals] of byObject)
        assert.deepEqual(
          arrivals,
          [...arrivals].sort((a, b) => a - b),
          `the events of ${object} arrive in commit order`,
        );
      return byObject.size;
    }

    test("each attendee's registered, updated and cancelled arrive in commit order, attendees side by side", async () => {
      const { receiver, register, updateAndCancel, committed } = await subscribed();
      let inFlight = 0;
      let most = 0;
      receiver.answer = async () => {
        most = Math.max(most, ++inFlight);
        await sleep(20);
        inFlight--;
        return 204;
      };
      const ids = await register(40, 10);
      await updateAndCancel(ids, 10);
      await receiver.waitFor(120, { timeoutMs: 60_000 });
      await sleep(200);
      assert.equal(receiver.received.length, 120, "nothing sent twice");
      assert.equal(await assertOrderPerObject(receiver, await committed()), 40);
      assert.ok(most > 1, "different attendees' events are sent in parallel");
      await receiver.close();
    });

    test("no more than WEBHOOK_MAX_IN_FLIGHT requests to one endpoint at once, and it fills them", async () => {
      const { receiver, register } = await subscribed();
      let inFlight = 0;
      let most = 0;
      receiver.answer = async () => {
        most = Math.max(most, ++inFlight);
        await sleep(150);
        inFlight--;
        return 204;
      };
      await register(30, 10);
      await receiver.waitFor(30, { timeoutMs: 30_000 });
      assert.equal(most, 4);
      await receiver.close();
    });

    test("a slow endpoint of one app does not delay another app's deliveries", async () => {
      const slow = await subscribed();
      const fast = await subscribed();
      // The slow app's requests are held unanswered until the end of the test.
      const held: (() => void)[] = [];
      slow.receiver.answer = () => new Promise<number>((resolve) => held.push(() => resolve(204)));
      await slow.register(20, 5);
      await slow.receiver.waitFor(4);
      const started = Date.now();
      await fast.register(20, 5);
      await fast.receiver.waitFor(20, { timeoutMs: 10_000 });
      const took = Date.now() - started;
      assert.equal(slow.receiver.received.length, 4, "the slow endpoint still has its 4 requests held");
      assert.ok(took < 5_000, `the other app's 20 events took ${took} ms`);
      slow.receiver.answer = () => 204;
      for (const release of held) release();
      await slow.receiver.waitFor(20, { timeoutMs: 30_000 });
      await slow.receiver.close();
      await fast.receiver.close();
    });

    test("a failed first attempt does not hold the later events: its retry comes after them", async () => {
      const { receiver, register, committed } = await subscribed();
      receiver.answer = (n) => (n === 1 ? 500 : 204);
      await register(1, 1);
      await receiver.waitFor(1);
      await register(5, 1);
      const requests = await receiver.waitFor(7, { timeoutMs: 10_000 });
      const order = (await committed()).map((row) => row.id);
      assert.deepEqual(new Set(firstAttempts(receiver)), new Set(order));
      assert.equal(
        requests[6]?.headers["webhook-id"],
        order[0],
        "the retry goes out after the five later events",
      );
      await receiver.close();
    });

    test("a success after a failure answered together clears failing_since (results are written batched)", async () => {
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
      for (let i = 0; i < 100 && (await failingSince()) !== null; i++) await sleep(50);
      assert.equal(await failingSince(), null);
      await receiver.close();
    });

    test("two dispatchers on one database never send a delivery twice nor an object's events out of order", async () => {
      const { receiver, register, updateAndCancel, committed } = await subscribed();
      let inFlight = 0;
      let most = 0;
      receiver.answer = async () => {
        most = Math.max(most, ++inFlight);
        await sleep(3);
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
        const ids = await register(30, 10);
        await updateAndCancel(ids, 10);
        await receiver.waitFor(90, { timeoutMs: 30_000 });
        await sleep(200);
      } finally {
        unsubscribe();
        await second.stop();
      }
      assert.equal(receiver.received.length, 90, "nothing sent twice");
      assert.ok(most <= 8, `${most} requests at once: at most 4 per dispatcher`);
      await assertOrderPerObject(receiver, await committed());
      await receiver.close();
    });
  });
}
