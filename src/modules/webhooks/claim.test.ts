import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp } from "../../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../../test/helpers/test-services.js";
import { ownDatabase } from "../../../test/helpers/throwaway-database.js";
import { claimDeliveries } from "./claim.repository.js";
import { pendingDelivery } from "./outbox.js";
import type { DeliveryRow } from "./webhooks.repository.js";

const now = "2030-01-01T00:00:00.000Z";
const later = "2030-01-01T00:05:00.000Z";
const lease = { now, leaseUntil: "2030-01-01T00:01:00.000Z", perEndpoint: 4, runLength: 20 };

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

    /** Inserts deliveries of one queue in this order (so in `seq` order), each with `state`. */
    async function queue(appId: string, projectId: string, states: Partial<DeliveryRow>[]) {
      const rows = states.map((state) => ({
        ...pendingDelivery({
          app_id: appId,
          project_id: projectId,
          event_type: "checkin.created",
          object_typename: "CheckIn",
          object_id: "x",
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

    const claim = (limit: number, room = new Map<string, number>()) =>
      claimDeliveries(context.database.db, engine.name, { ...lease, token: "t", limit, room });

    test("takes each queue's head only: runs in commit order, due retries ahead of them, nothing past one in flight", async () => {
      const { app } = await createApp(context.services);
      const retry = { attempts: 1, payload: "{}" };
      const notDue = await queue(app.id, "notdue", [
        ...Array.from({ length: 400 }, () => ({ ...retry, next_attempt_at: later })),
        {},
      ]);
      const mixed = await queue(app.id, "mixed", [
        { ...retry, next_attempt_at: later },
        retry,
        ...Array.from({ length: 30 }, () => ({})),
      ]);
      await queue(app.id, "inflight", [
        { attempts: 1, lease_token: "other", locked_until: later },
        ...Array.from({ length: 50 }, () => ({})),
      ]);
      const shortRun = await queue(app.id, "short", [{}, {}, retry, {}]);
      const units = await claim(32, new Map([[app.id, 10]]));
      const ids = units.map((unit) => unit.map((row) => row.id));
      assert.deepEqual(
        new Set(ids.map((unit) => JSON.stringify(unit))),
        new Set(
          [
            [notDue.at(-1)],
            [mixed[1]],
            mixed.slice(2, 22),
            // The retry after two first attempts waits for them; nothing after the one in flight goes.
            shortRun.slice(0, 2),
          ].map((unit) => JSON.stringify(unit)),
        ),
      );
      for (const unit of units)
        for (const row of unit) {
          assert.equal(row.lease_token, "t");
          assert.equal(row.attempts, (row.payload === null ? 0 : 1) + 1);
        }
      assert.deepEqual(await claim(32), [], "every head is now leased: a second claim takes nothing");
    });

    test("keeps each app within its endpoint's free slots and the process within its limit", async () => {
      const { app } = await createApp(context.services);
      for (const project of ["a", "b", "c", "d", "e", "f"]) await queue(app.id, project, [{}, {}]);
      assert.equal((await claim(32, new Map([[app.id, 2]]))).length, 2);
      assert.equal((await claim(1)).length, 1);
      assert.equal((await claim(32, new Map([[app.id, 0]]))).length, 0);
      assert.equal((await claim(32)).length, 3, "the queues left");
    });
  });
}
