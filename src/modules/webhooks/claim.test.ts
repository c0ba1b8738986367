import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp } from "../../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../../test/helpers/test-services.js";
import { ownDatabase } from "../../../test/helpers/throwaway-database.js";
import { claimDeliveries } from "./claim.repository.js";
import { pendingDelivery } from "./outbox.js";
import { finishAttempts } from "./results.repository.js";
import type { DeliveryRow } from "./webhooks.repository.js";

const now = "2030-01-01T00:00:00.000Z";
const later = "2030-01-01T00:05:00.000Z";
const lease = { now, leaseUntil: "2030-01-01T00:01:00.000Z" };

for (const engine of testEngines()) {
  describe(`webhook claim (${engine.name})`, () => {
    let context: TestContext;
    let drop: () => Promise<void>;
    before(async () => {
      // Its claims, at a `now` of its choosing, would take other files' deliveries in a shared database.
      const own = await ownDatabase(engine, "claim");
      drop = own.drop;
      context = await createTestContext(own.engine);
    });
    after(async () => {
      await context.close();
      await drop();
    });

    /** Inserts deliveries about one object in this order (so in `seq` order), each with `state`. */
    async function events(appId: string, object: string, states: Partial<DeliveryRow>[], projectId = "p") {
      const rows = states.map((state) => ({
        ...pendingDelivery({
          app_id: appId,
          project_id: projectId,
          event_type: "attendee.updated",
          object_typename: "Attendee",
          object_id: object,
          changed: null,
          payload: null,
        }),
        next_attempt_at: now,
        ...state,
      }));
      for (const row of rows)
        await context.database.db.insertInto("webhook_deliveries").values(row).execute();
      return rows.map((row) => row.id);
    }

    const claim = (appId: string, room: number, token = "t") =>
      claimDeliveries(context.database.db, engine.name, { ...lease, appId, token, room });
    const ids = (rows: DeliveryRow[]) => rows.map((row) => row.id);

    test("takes each object's head: one event per object at a time in commit order, objects side by side", async () => {
      const { app } = await createApp(context.services);
      const retry = { attempts: 1, payload: "{}" };
      const notDue = await events(app.id, "a", [
        ...Array.from({ length: 400 }, () => ({ ...retry, next_attempt_at: later })),
        {},
      ]);
      const dueRetry = await events(app.id, "b", [retry, {}, {}]);
      await events(app.id, "c", [{ attempts: 1, lease_token: "other", locked_until: later }, {}, retry]);
      const retryLast = await events(app.id, "d", [{}, {}, retry]);
      // The same object id in another project is another object.
      const elsewhere = await events(app.id, "d", [{}], "q");
      const claimed = await claim(app.id, 32);
      assert.deepEqual(
        ids(claimed),
        // A retry waiting for its time holds nothing; a due one goes beside the next first attempt;
        // nothing of an object with an event in flight goes; a retry waits for the first attempts before it.
        [notDue.at(-1), dueRetry[0], dueRetry[1], retryLast[0], elsewhere[0]],
      );
      for (const row of claimed) {
        assert.equal(row.lease_token, "t");
        assert.equal(row.attempts, (row.payload === null ? 0 : 1) + 1);
      }
      assert.deepEqual(
        await claim(app.id, 32),
        [],
        "every object's head is now leased: a second claim takes nothing",
      );
      // The first attempt of d is answered: d's next event is its head now.
      await context.database.db
        .updateTable("webhook_deliveries")
        .set({ status: "DELIVERED", lease_token: null, locked_until: null })
        .where("id", "=", retryLast[0] ?? "")
        .execute();
      assert.deepEqual(ids(await claim(app.id, 32)), [retryLast[1]]);
    });

    test("takes no more than the endpoint's free slots, and only the app's own deliveries", async () => {
      const { app } = await createApp(context.services);
      const other = await createApp(context.services);
      for (const object of ["a", "b", "c", "d", "e", "f"]) await events(app.id, object, [{}, {}]);
      const theirs = await events(other.app.id, "a", [{}]);
      assert.equal((await claim(app.id, 2)).length, 2);
      assert.equal((await claim(app.id, 1)).length, 1);
      assert.equal((await claim(app.id, 0)).length, 0);
      assert.equal((await claim(app.id, 32)).length, 3, "the objects left");
      assert.deepEqual(ids(await claim(other.app.id, 32)), theirs);
    });

    test("results written together: each only under its own lease, an unsent one keeping the stored body", async () => {
      const { app } = await createApp(context.services);
      const [taken] = await events(app.id, "taken", [{}]);
      const [sent] = await events(app.id, "sent", [{}]);
      const [unsent] = await events(app.id, "unsent", [{ payload: '{"stored":true}' }]);
      assert.equal((await claim(app.id, 3, "mine")).length, 3);
      // Another process took one over (its lease ran out while this one was sending).
      await context.database.db
        .updateTable("webhook_deliveries")
        .set({ lease_token: "theirs" })
        .where("id", "=", taken ?? "")
        .execute();
      const delivered = (deliveryId: string) => ({
        deliveryId,
        token: "mine",
        patch: {
          status: "DELIVERED" as const,
          payload: `{"id":"${deliveryId}"}`,
          response_status: 204,
          last_error: null,
          delivered_at: later,
          next_attempt_at: now,
        },
        attempt: {
          id: `attempt-${deliveryId}`,
          delivery_id: deliveryId,
          attempt: 1,
          url: "https://example.com/hooks",
          request_headers: "{}",
          started_at: now,
          duration_ms: 5,
          response_status: 204,
          response_body: "",
          error: null,
        },
      });
      const recorded = await finishAttempts(
        context.database.db,
        [
          delivered(taken ?? ""),
          delivered(sent ?? ""),
          { deliveryId: unsent ?? "", token: "mine", patch: { status: "CANCELLED", last_error: "revoked" } },
        ],
        [],
      );
      assert.deepEqual([...recorded].sort(), [sent, unsent].sort());
      const rows = await context.database.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("app_id", "=", app.id)
        .execute();
      const row = (id: string | undefined) => rows.find((r) => r.id === id);
      const attempts = await context.database.db
        .selectFrom("webhook_attempts")
        .select("delivery_id")
        .where("delivery_id", "in", [taken ?? "", sent ?? "", unsent ?? ""])
        .execute();
      assert.deepEqual(
        { status: row(taken)?.status, lease: row(taken)?.lease_token, payload: row(taken)?.payload },
        { status: "PENDING", lease: "theirs", payload: null },
        "a result whose lease was taken over is not recorded",
      );
      assert.deepEqual(
        attempts.map((a) => a.delivery_id),
        [sent],
        "only a recorded sent result logs its attempt",
      );
      assert.deepEqual(
        [row(sent)?.status, row(sent)?.response_status, row(sent)?.payload, row(sent)?.lease_token],
        ["DELIVERED", 204, `{"id":"${sent}"}`, null],
      );
      assert.deepEqual(
        [row(unsent)?.status, row(unsent)?.last_error, row(unsent)?.payload, row(unsent)?.locked_until],
        ["CANCELLED", "revoked", '{"stored":true}', null],
      );
    });

    test("claims racing each other never take one delivery twice nor two events of one object", async () => {
      const { app } = await createApp(context.services);
      for (let i = 0; i < 60; i++) await events(app.id, `o${i}`, [{}, {}, {}]);
      // On PostgreSQL the claims run on separate pooled connections at once.
      const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => claim(app.id, 16, `t${i}`)));
      const all = claims.flat();
      assert.equal(new Set(ids(all)).size, all.length, "no delivery claimed twice");
      assert.equal(new Set(all.map((row) => row.object_id)).size, all.length, "one event per object");
      assert.ok(all.length >= 16, `${all.length} claimed`);
    });
  });
}
