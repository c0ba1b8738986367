import assert from "node:assert/strict";
import { after, test } from "node:test";
import { assertFits, describeInBrowser, screenshot } from "../helpers/browser.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";
import { startStripeServer } from "../helpers/stripe-server.js";

const stand = await startStripeServer();
after(() => stand.close());

// Issue 40, buyers cancelling: the organizer allows it until a deadline in Settings → Payments; a
// buyer pays a card order of two tickets, cancels one, then the order, from the order page; Stripe
// is asked for each refund, and each is credited. The phone runs without JavaScript.
for (const engine of testEngines()) {
  describeInBrowser(
    `a buyer cancels their own paid order in Chromium (${engine.name})`,
    { engine, env: { STRIPE_API_BASE: stand.url } },
    (fx) => {
      for (const width of [390, 1280]) {
        test(`allowed in Settings, cancelled from the order page, refunded (${width} px)`, async () => {
          stand.pointAt(fx.server.url);
          const user = await createUser(fx.server.services);
          const owner = userActor(user.id);
          const { project } = await createProject(fx.server.services, {
            ownerId: user.id,
            input: { name: "Cancel Conf", status: "PUBLISHED", timezone: "Europe/Berlin" },
          });
          await fx.server.services.stripeAccounts.save(owner, project.id, {
            secretKey: stand.secretKey,
            webhookSecret: stand.webhookSecret,
          });
          await createTicketType(fx.server.services, owner, project.id, {
            name: "Conference",
            priceMinor: 24900,
            paymentMode: "STRIPE",
          });
          const organizer = await fx.page(width, user);
          await organizer.goto(`${fx.server.url}/b/${project.id}/settings`);
          const form = organizer.getByRole("form", { name: "Payments" });
          await form.getByLabel("Seller details for invoices").fill("Cancel Conf GmbH\nBerlin");
          await form.getByLabel(/Buyers may cancel paid orders until/).fill("2099-12-31T18:00");
          await form.getByRole("button", { name: "Save payment settings" }).click();
          await organizer.getByText("Payment settings saved.").waitFor();
          assert.equal(
            await organizer.getByLabel(/Buyers may cancel paid orders until/).inputValue(),
            "2099-12-31T18:00",
          );
          await assertFits(organizer, "the payment settings");

          const page = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
          await page.goto(`${fx.server.url}/e/${project.id}`);
          await page.getByRole("link", { name: "Buy several tickets in one order" }).click();
          await page.getByLabel(/Conference/).fill("2");
          await page.getByRole("button", { name: "Continue" }).click();
          await page.getByLabel("Your name").fill("Bea Buyer");
          await page.getByLabel("Your email").fill(`bea-cancel-${width}@example.org`);
          for (const [i, name] of ["Ann", "Ben"].entries()) {
            const holder = page.locator("fieldset").nth(i);
            await holder.getByLabel("Name").fill(`${name} Attendee`);
            await holder.getByLabel("Email").fill(`${name.toLowerCase()}-cancel-${width}@example.org`);
          }
          await page.getByRole("button", { name: "Place order" }).click();
          await page.getByRole("heading", { name: "Pay 498.00 EUR" }).waitFor();
          await page.getByRole("button", { name: "Pay" }).click();
          await page.getByText("Paid", { exact: true }).waitFor();
          const block = page.getByRole("region", { name: "Cancel tickets" });
          await block.getByText(/2099/).waitFor();
          await assertFits(page, "the order page with its cancel block");
          await screenshot(page, `self-cancel-offered-${width}`);
          // A post without the box ticked cancels nothing; a wrong link finds no order.
          const link = page.url();
          const unticked = await fetch(`${link}/cancel`, {
            method: "POST",
            body: new URLSearchParams(),
            redirect: "manual",
          });
          assert.deepEqual(
            [unticked.status, unticked.headers.get("location")],
            [303, new URL(link).pathname],
          );
          const forged = await fetch(`${link.slice(0, -4)}AAAA/cancel`, {
            method: "POST",
            body: new URLSearchParams({ confirm: "yes" }),
            redirect: "manual",
          });
          assert.equal(forged.status, 404);
          await page.reload();
          await page.getByText("Paid", { exact: true }).waitFor();
          // Ben's ticket alone: its price back, Ann's ticket still valid.
          const ben = block.getByRole("form", { name: "Cancel Ben Attendee's ticket" });
          await ben.getByLabel("I want to cancel Ben Attendee's ticket").check();
          await ben.getByRole("button", { name: "Cancel this ticket and refund €249.00" }).click();
          await page.getByText("The ticket is cancelled and its price refunded, the way you paid.").waitFor();
          await page.getByText(/Ben Attendee .* · cancelled/).waitFor();
          await page.getByText("Paid", { exact: true }).waitFor();
          await page.getByText("Refunded: €249.00.").waitFor();
          // One active ticket left: only the whole order's form remains.
          assert.equal(await block.getByRole("form", { name: /ticket$/ }).count(), 0);
          await assertFits(page, "the order page after one ticket was cancelled");
          await screenshot(page, `self-cancel-ticket-${width}`);
          await block.getByLabel("I want to cancel all tickets of this order").check();
          await block.getByRole("button", { name: "Cancel the order and refund €249.00" }).click();
          await page.getByText("Your order is cancelled and its payment refunded.").waitFor();
          await page.getByText("Cancelled", { exact: true }).waitFor();
          await page.getByText("Refunded: €498.00.").waitFor();
          assert.equal(await page.getByRole("link", { name: /Credit note .* \(PDF\)/ }).count(), 2);
          assert.equal(await page.getByRole("region", { name: "Cancel tickets" }).count(), 0);
          assert.deepEqual(
            stand.refunds.slice(-2).map((r) => r.amount),
            [24900, 24900],
          );
          await assertFits(page, "the cancelled order page");
          await screenshot(page, `self-cancel-done-${width}`);
        });
      }
    },
  );
}
