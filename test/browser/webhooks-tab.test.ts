import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Webhook } from "standardwebhooks";
import { describeInBrowser, screenshot, widths } from "../helpers/browser.js";
import { createApp } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";
import { startReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.js";

describeInBrowser(
  "the app's Webhooks tab in Chromium at 390 px and 1280 px",
  { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", WEBHOOK_RETRY_DELAYS: "0.05" } },
  (fx) => {
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await startReceiver();
    });
    after(() => receiver.close());

    for (const width of widths) {
      test(`sets up an endpoint, shows the secret once, sends a test event and redelivers a failure at ${width} px`, async () => {
        const { user, project } = await createOrganizer(fx.server.services);
        const { app, projectId } = await createApp(fx.server.services, {
          projectId: project.id,
          ownerId: user.id,
          permissions: ["agenda:read"],
        });
        const page = await fx.page(width, user);
        await page.goto(`${fx.server.url}/b/${projectId}/settings/api/apps/${app.id}`);
        await page.getByRole("tab", { name: "Webhooks" }).click();
        await page.getByRole("heading", { name: "Endpoint" }).waitFor();

        // A refused address is a form error, and nothing is saved (private addresses are allowed in tests).
        await page.getByLabel("Endpoint URL").fill("ftp://example.com/hooks");
        await page.getByLabel("project.updated").check();
        await page.getByRole("button", { name: "Save endpoint" }).click();
        await page.getByText("must start with https://").waitFor();

        await page.getByLabel("Endpoint URL").fill(receiver.url);
        await page.getByLabel("session.created").check();
        await page.getByRole("button", { name: "Save endpoint" }).click();
        const secret = await page.getByLabel("Signing secret", { exact: true }).inputValue();
        assert.match(secret, /^whsec_/);
        // The shared secret dialog wraps the secret in a textarea: the whole of it shows on a phone.
        await screenshot(page, `webhook-secret-${width}`);
        assert.equal(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0);
        await page.getByRole("button", { name: "OK" }).click();
        assert.equal(
          await page.getByLabel("Signing secret", { exact: true }).count(),
          0,
          "the secret is shown once",
        );

        const before = receiver.received.length;
        await page.getByRole("button", { name: "Send test event" }).click();
        const [ping] = (await receiver.waitFor(before + 1)).slice(-1);
        assert.equal(ping?.json.type, "ping");
        new Webhook(secret).verify(ping?.body ?? "", ping?.headers ?? {});

        receiver.answer = () => 500;
        await page.getByRole("button", { name: "Send test event" }).click();
        await receiver.waitFor(before + 3);
        for (let i = 0; i < 50; i++) {
          const [latest] = await fx.server.services.webhooks.deliveries({ kind: "system" }, app.id, {
            limit: 1,
          });
          if (latest?.status === "FAILED") break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await page.getByRole("link", { name: "Failed" }).click();
        await page.getByText("failed", { exact: true }).first().waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the Webhooks tab is ${overflow} px wider than the ${width} px window`);
        receiver.answer = () => 200;
        await page.getByRole("button", { name: "Redeliver", exact: true }).first().click();
        await page.getByText("Queued for redelivery.").waitFor();
        await receiver.waitFor(before + 4);
        await page.getByRole("button", { name: "Redeliver all failed" }).scrollIntoViewIfNeeded();
        assert.ok(await page.getByRole("button", { name: "Redeliver all failed" }).isVisible());
      });
    }
  },
);
