import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { testEngines } from "../../../test/helpers/engines.js";
import { createApp, createProject } from "../../../test/helpers/factories.js";
import { startTestServer } from "../../../test/helpers/test-server.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { openDatabase } from "../../db/database.js";
import { createServices } from "../../services.js";
import { utcDay } from "../../shared/time.js";
import { systemActor } from "../access/actor.js";
import { UsageRecorder } from "./usage.js";

const dayMs = 24 * 60 * 60 * 1000;

for (const engine of testEngines()) {
  describe(`app usage (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    function usageRows(appId: string) {
      return ctx.database.db
        .selectFrom("app_usage")
        .select(["day", "requests"])
        .where("app_id", "=", appId)
        .orderBy("day")
        .execute();
    }

    test("keeps the counts of a failed write and logs it, instead of losing them", async () => {
      // A database the writes cannot succeed on: SQLite without tables, a PostgreSQL database that
      // does not exist.
      const url =
        engine.name === "sqlite"
          ? engine.newDatabaseUrl()
          : engine.newDatabaseUrl().replace(/\/[^/]*$/, "/eventgraph_no_such_database");
      const broken = openDatabase(url);
      try {
        const recorder = new UsageRecorder(broken.db, ctx.services.logger, 60_000);
        recorder.record("some-app");
        recorder.record("some-app");
        await assert.rejects(recorder.flush());
        assert.equal(recorder.pendingRequests("some-app", utcDay()), 2);
        assert.ok(recorder.pendingLastUsedAt("some-app"));
        assert.match(ctx.logs.text, /Could not write API usage counts/);
        recorder.forget("some-app");
      } finally {
        await broken.close();
      }
    });

    test("writes nothing per request, and shows counts not yet written", async () => {
      const { app } = await createApp(ctx.services);
      ctx.statements.length = 0;
      for (let i = 0; i < 3; i++) ctx.services.apps.recordRequest(app.id);
      assert.deepEqual(ctx.statements, []);
      assert.deepEqual(await usageRows(app.id), []);

      const shown = await ctx.services.apps.getApp(systemActor, app.id);
      assert.equal(shown.requestsLast30Days, 3);
      assert.ok(shown.lastUsedAt);

      await ctx.services.apps.flushUsage();
      assert.deepEqual(await usageRows(app.id), [{ day: utcDay(), requests: 3 }]);
      const row = await ctx.database.db
        .selectFrom("apps")
        .select("last_used_at")
        .where("id", "=", app.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.last_used_at, shown.lastUsedAt);
      assert.equal((await ctx.services.apps.getApp(systemActor, app.id)).requestsLast30Days, 3);

      ctx.services.apps.recordRequest(app.id);
      ctx.services.apps.recordRequest(app.id);
      assert.equal((await ctx.services.apps.getApp(systemActor, app.id)).requestsLast30Days, 5);
      await ctx.services.apps.flushUsage();
      assert.deepEqual(await usageRows(app.id), [{ day: utcDay(), requests: 5 }]);
      // Nothing left to write: a flush with no counts does not touch the database.
      ctx.statements.length = 0;
      await ctx.services.apps.flushUsage();
      assert.deepEqual(ctx.statements, []);
    });

    test("adds up the counts of several processes sharing the database", async () => {
      const { app } = await createApp(ctx.services);
      const other = createServices(ctx.database, ctx.config, ctx.services.logger);
      ctx.services.apps.recordRequest(app.id);
      ctx.services.apps.recordRequest(app.id);
      other.apps.recordRequest(app.id);
      other.apps.recordRequest(app.id);
      other.apps.recordRequest(app.id);
      await Promise.all([ctx.services.apps.flushUsage(), other.apps.flushUsage()]);
      assert.deepEqual(await usageRows(app.id), [{ day: utcDay(), requests: 5 }]);
      assert.equal((await other.apps.getApp(systemActor, app.id)).requestsLast30Days, 5);
    });

    test("counts the last 30 days only, on the app page and the Integrations tab", async () => {
      const { app, ownerId } = await createApp(ctx.services);
      const now = Date.now();
      await ctx.database.db
        .insertInto("app_usage")
        .values([
          { app_id: app.id, day: utcDay(new Date(now - 30 * dayMs)), requests: 100 },
          { app_id: app.id, day: utcDay(new Date(now - 29 * dayMs)), requests: 7 },
        ])
        .execute();
      ctx.services.apps.recordRequest(app.id);
      assert.equal((await ctx.services.apps.getApp(systemActor, app.id)).requestsLast30Days, 8);

      const { project, ownerId: organizerId } = await createProject(ctx.services);
      await ctx.services.apps.authorize(
        { kind: "user", userId: organizerId },
        { appId: app.id, projectId: project.id },
      );
      await ctx.services.apps.flushUsage();
      const [integration] = await ctx.services.apps.listIntegrations(
        { kind: "user", userId: organizerId },
        project.id,
      );
      assert.equal(integration?.requestsLast30Days, 8);
      assert.ok(integration?.lastUsedAt);
      const [listed] = await ctx.services.apps.listForProject(
        { kind: "user", userId: ownerId as string },
        app.projectId,
      );
      assert.equal(listed?.requestsLast30Days, 8);
    });

    test("drops the counts of an app deleted before they were written", async () => {
      const { app } = await createApp(ctx.services);
      const other = createServices(ctx.database, ctx.config, ctx.services.logger);
      other.apps.recordRequest(app.id);
      ctx.services.apps.recordRequest(app.id);
      // Deleted through this process: its own counts go at once; the other process finds no app.
      await ctx.services.apps.deleteApp(systemActor, { id: app.id });
      await other.apps.flushUsage();
      await ctx.services.apps.flushUsage();
      assert.deepEqual(await usageRows(app.id), []);
    });

    test("writes the counts by itself a moment later", async () => {
      const { app } = await createApp(ctx.services);
      const recorder = new UsageRecorder(ctx.database.db, ctx.services.logger, 20);
      recorder.record(app.id);
      for (let i = 0; i < 50 && (await usageRows(app.id)).length === 0; i++) await sleep(20);
      assert.deepEqual(await usageRows(app.id), [{ day: utcDay(), requests: 1 }]);
      assert.equal(recorder.pendingRequests(app.id, utcDay()), 0);
    });

    test("writes the counts when the server shuts down", async () => {
      const server = await startTestServer(engine);
      try {
        const { app } = await createApp(server.app.services);
        server.app.services.apps.recordRequest(app.id);
        await server.app.close();
        const rows = await server.database.db
          .selectFrom("app_usage")
          .select("requests")
          .where("app_id", "=", app.id)
          .execute();
        assert.deepEqual(rows, [{ requests: 1 }]);
      } finally {
        await server.database.close();
      }
    });
  });
}
