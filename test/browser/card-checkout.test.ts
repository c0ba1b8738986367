import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";
import { startStripeServer } from "../helpers/stripe-server.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// The stand-in runs for the whole file: the server is told where it is (STRIPE_API_BASE) when it starts.
const stand = await startStripeServer();
after(() => stand.close());

// Issue 40, card payment: the organizer saves Stripe keys in Settings → Payments (shown again only
// as a hint); a buyer orders two tickets of two types, is sent to Stripe's hosted page (the local
// stand-in's), comes back before paying (the page says the order awaits payment and offers to
// pay), pays, and lands on a paid order; the organizer refunds part, then the rest, from the
// Orders tab. The phone runs without JavaScript, as far as Stripe's page.
for (const engine of testEngines()) {
  describeInBrowser(
    `paying by card through Stripe Checkout in Chromium (${engine.name})`,
    { engine, env: { STRIPE_API_BASE: stand.url } },
    (fx) => {
      for (const width of [390, 1280]) {
        test(`two tickets by card, back, paid, refunded in two steps (${width} px)`, async () => {
          stand.pointAt(fx.server.url);
          const user = await createUser(fx.server.services);
          const owner = userActor(user.id);
          const { project } = await createProject(fx.server.services, {
            ownerId: user.id,
            input: { name: "Card Conf", status: "PUBLISHED", timezone: "Europe/Berlin" },
          });
          const organizer = await fx.page(width, user);
          organizer.on("dialog", (dialog) => void dialog.accept());
          await organizer.goto(`${fx.server.url}/b/${project.id}/settings`);
          const keys = organizer.getByRole("form", { name: "Stripe keys" });
          await keys.getByLabel("Secret key").fill("pk_test_publishable");
          await keys.getByLabel("Webhook signing secret").fill(stand.webhookSecret);
          await keys.getByRole("button", { name: "Save Stripe keys" }).click();
          await organizer.getByText(/Stripe keys not saved: secretKey must be a secret key/).waitFor();
          await keys.getByLabel("Secret key").fill(stand.secretKey);
          await keys.getByLabel("Webhook signing secret").fill(stand.webhookSecret);
          await keys.getByRole("button", { name: "Save Stripe keys" }).click();
          await organizer.getByText("Stripe keys saved.").waitFor();
          await organizer.getByText(`Stripe keys saved: sk_test_…${stand.secretKey.slice(-4)}.`).waitFor();
          assert.ok(!(await organizer.content()).includes(stand.secretKey), "the key is never shown again");
          await organizer.getByText(`${fx.server.url}/payments/stripe/${project.id}`).waitFor();
          await assertFits(organizer, "the payment settings");
          await createTicketType(fx.server.services, owner, project.id, {
            name: "Conference",
            priceMinor: 24900,
            paymentMode: "STRIPE",
          });
          await createTicketType(fx.server.services, owner, project.id, {
            name: "Workshop",
            priceMinor: 9900,
            paymentMode: "STRIPE",
          });

          const page = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
          await page.goto(`${fx.server.url}/e/${project.id}`);
          await page.getByText("€249.00, pay by card").waitFor();
          await page.getByRole("link", { name: "Buy several tickets in one order" }).click();
          await page.getByLabel(/Conference/).fill("1");
          await page.getByLabel(/Workshop/).fill("1");
          await page.getByRole("button", { name: "Continue" }).click();
          await page.getByLabel("Your name").fill("Bea Buyer");
          await page.getByLabel("Your email").fill(`bea-card-${width}@example.org`);
          const holders = page.locator("fieldset");
          await holders.nth(0).getByLabel("Name").fill("Ann Attendee");
          await holders.nth(0).getByLabel("Email").fill(`ann-card-${width}@example.org`);
          await holders.nth(1).getByLabel("Name").fill("Ben Attendee");
          await holders.nth(1).getByLabel("Email").fill(`ben-card-${width}@example.org`);
          await page.getByRole("button", { name: "Place order" }).click();

          // Stripe's hosted page: the amount the server computed, in the order's currency.
          await page.getByRole("heading", { name: "Pay 348.00 EUR" }).waitFor();
          assert.ok(page.url().startsWith(stand.url));
          await page.getByRole("link", { name: "Back" }).click();
          await page.getByRole("heading", { name: /^Order / }).waitFor();
          await page.getByText("Awaiting payment").waitFor();
          await assertFits(page, "the order page awaiting payment");
          await screenshot(page, `card-order-pending-${width}`);
          await page.getByRole("button", { name: "Pay €348.00 by card" }).click();
          await page.getByRole("heading", { name: "Pay 348.00 EUR" }).waitFor();
          assert.equal(stand.sessions.size > 0, true);
          await page.getByRole("button", { name: "Pay" }).click();
          await page.getByRole("heading", { name: /^Order / }).waitFor();
          await page.getByText("Paid", { exact: true }).waitFor();
          assert.equal(await page.getByRole("button", { name: /by card/ }).count(), 0);
          const code = (await page.getByRole("heading", { name: /^Order / }).innerText()).replace(
            /^Order /,
            "",
          );

          await organizer.goto(`${fx.server.url}/b/${project.id}/orders?state=PAID`);
          const card = organizer.getByRole("listitem", { name: `Order ${code}` });
          await card.getByText("Card (Stripe)").waitFor();
          await card.getByLabel("Refund amount (EUR)").fill("99");
          await card.getByRole("button", { name: "Refund" }).click();
          await organizer.getByText(`Order ${code}: €99.00 refunded in all.`).waitFor();
          await assertFits(organizer, "the Orders tab with a refund");
          await screenshot(organizer, `card-order-refund-${width}`);
          await organizer
            .getByRole("listitem", { name: `Order ${code}` })
            .getByRole("button", { name: "Refund" })
            .click();
          await organizer.getByText(`Order ${code}: €348.00 refunded in all.`).waitFor();
          const refunded = stand.refunds.slice(-2).map((r) => r.amount);
          assert.deepEqual(refunded, [9900, 24900]);
          await page.reload();
          await page.getByText("Refunded", { exact: true }).waitFor();
        });
      }
    },
  );
}
