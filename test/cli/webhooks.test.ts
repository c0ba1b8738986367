import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { runCliInProcess as eventgraph, onlyJson } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, userActor } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { ownDatabase } from "../helpers/throwaway-database.js";
import { startReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

for (const engine of testEngines()) {
  describe(`eventgraph apps webhook / deliveries / redeliver (${engine.name})`, () => {
    let server: TestServer;
    let receiver: WebhookReceiver;
    let env: Record<string, string>;
    let drop: () => Promise<void>;
    before(async () => {
      // The CLI's redelivery wakes no dispatcher: the first to poll claims it. In the run's shared
      // PostgreSQL database that was, now and then, another file's server, which refused the
      // loopback receiver and put the retry minutes away.
      const own = await ownDatabase(engine, "cli_webhooks");
      drop = own.drop;
      server = await startTestServer(own.engine, {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
        WEBHOOK_RETRY_DELAYS: "0.05",
      });
      receiver = await startReceiver();
      env = { DATABASE_URL: server.config.databaseUrl, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" };
    });
    after(async () => {
      await receiver.close();
      await server.close();
      await drop();
    });

    /** `eventgraph apps webhook` for `appId`, to the receiver, with `events` and `extra` arguments. */
    const setWebhook = (appId: string, events: string, ...extra: string[]) =>
      eventgraph(
        ["apps", "webhook", "--app", appId, "--url", receiver.url, "--events", events, ...extra],
        env,
      );

    test("refuses bad usage with exit 2 and a refused URL or unknown event with exit 1", async () => {
      const { app } = await createApp(server.services);
      const noEvents = await eventgraph(["apps", "webhook", "--app", app.id, "--url", receiver.url], env);
      assert.equal(noEvents.code, 2, noEvents.stderr);
      const badStatus = await eventgraph(["apps", "deliveries", "--app", app.id, "--status", "lost"], env);
      assert.equal(badStatus.code, 2);
      const privateUrl = await eventgraph(
        ["apps", "webhook", "--app", app.id, "--url", "https://127.0.0.1/x", "--events", "project.updated"],
        { DATABASE_URL: server.config.databaseUrl },
      );
      assert.equal(privateUrl.code, 1);
      assert.match(privateUrl.stderr, /private, loopback or link-local/);
      const unknown = await setWebhook(app.id, "attendee.exploded", "--json");
      assert.equal(unknown.code, 1);
      const stranger = await eventgraph(
        ["apps", "webhook", "--app", "no-such-app", "--url", receiver.url, "--events", "project.updated"],
        env,
      );
      assert.equal(stranger.code, 1);
    });

    test("sets the endpoint, shows the secret once, lists deliveries and redelivers one", async () => {
      const { app, projectId, ownerId } = await createApp(server.services, {
        permissions: ["attendees:read"],
      });
      const set = await setWebhook(app.id, "project.updated,checkin.created", "--json");
      assert.equal(set.code, 0, set.stderr);
      const first = onlyJson(set.stdout);
      assert.deepEqual(Object.keys(first).sort(), ["appId", "events", "secret", "url"]);
      assert.deepEqual(first.events, ["project.updated", "checkin.created"]);
      assert.match(String(first.secret), /^whsec_/);
      const again = onlyJson((await setWebhook(app.id, "project.updated", "--json")).stdout);
      assert.equal(again.secret, null, "an unchanged secret is not printed again");
      const rotated = onlyJson(
        (await eventgraph(["apps", "webhook", "--app", app.id, "--rotate-secret", "--json"], env)).stdout,
      );
      assert.match(String(rotated.secret), /^whsec_/);
      assert.notEqual(rotated.secret, first.secret);

      receiver.answer = () => 500;
      await server.services.projects.update(userActor(ownerId ?? ""), projectId, { name: "Via CLI" });
      await receiver.waitFor(2);
      let failed: Record<string, unknown>[] = [];
      for (let i = 0; i < 200 && failed.length === 0; i++) {
        const listed = await eventgraph(
          ["apps", "deliveries", "--app", app.id, "--status", "failed", "--json"],
          env,
        );
        failed = onlyJson(listed.stdout).deliveries as Record<string, unknown>[];
        if (failed.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(failed.length, 1);
      assert.deepEqual(Object.keys(failed[0] ?? {}).sort(), [
        "attempts",
        "createdAt",
        "deliveredAt",
        "id",
        "projectId",
        "responseStatus",
        "status",
        "type",
      ]);
      assert.equal(failed[0]?.status, "FAILED");
      assert.equal(failed[0]?.responseStatus, 500);
      assert.equal(failed[0]?.attempts, 2);

      receiver.answer = () => 200;
      const redelivered = await eventgraph(
        ["apps", "redeliver", "--delivery", String(failed[0]?.id), "--json"],
        env,
      );
      assert.equal(redelivered.code, 0, redelivered.stderr);
      // The CLI's write is seen by the running server on its next poll.
      const [last] = (await receiver.waitFor(3)).slice(-1);
      assert.ok(last);
      // Both the new and the rotated-out secret verify it during the 24 hours of overlap.
      new Webhook(String(rotated.secret)).verify(last.body, last.headers);
      new Webhook(String(first.secret)).verify(last.body, last.headers);
      const missing = await eventgraph(["apps", "redeliver", "--delivery", "nope", "--json"], env);
      assert.equal(missing.code, 1);
    });
  });
}
