import assert from "node:assert/strict";
import { after, test } from "node:test";
import { assertFits, describeInBrowser, screenshot } from "../helpers/browser.js";
import { cardOrder, links, sessionOf } from "../helpers/card-orders.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";
import { startStripeServer } from "../helpers/stripe-server.js";

const stand = await startStripeServer();
after(() => stand.close());

// Issue 40's leftovers in a browser: the organizer cancels a paid card order from the Orders tab
// (Stripe failing first: the order stays paid and the banner says so; then refunded and cancelled),
// and a project entering prices net says "plus tax" beside them on the event page and step 1.
for (const engine of testEngines()) {
  describeInBrowser(
    `cancelling paid orders and net prices in Chromium (${engine.name})`,
    { engine, env: { STRIPE_API_BASE: stand.url } },
    (fx) => {
      async function organizerProject(name: string) {
        const user = await createUser(fx.server.services);
        const owner = userActor(user.id);
        const { project } = await createProject(fx.server.services, {
          ownerId: user.id,
          input: { name, status: "PUBLISHED", timezone: "Europe/Berlin" },
        });
        return { user, owner, project };
      }

      for (const width of [390, 1280]) {
        test(`the organizer cancels a paid card order: Stripe down changes nothing, then it is refunded (${width} px)`, async () => {
          stand.pointAt(fx.server.url);
          const { user, owner, project } = await organizerProject("Refund Conf");
          await fx.server.services.stripeAccounts.save(owner, project.id, {
            secretKey: stand.secretKey,
            webhookSecret: stand.webhookSecret,
          });
          const pass = await createTicketType(fx.server.services, owner, project.id, {
            name: "Conference",
            priceMinor: 24900,
            paymentMode: "STRIPE",
          });
          const order = await cardOrder(fx.server.services, project.id, [pass.id, pass.id]);
          await stand.pay(sessionOf(stand, await fx.server.services.stripe.checkoutUrl(order, links)).id);

          const page = await fx.page(width, user);
          page.on("dialog", (dialog) => void dialog.accept());
          await page.goto(`${fx.server.url}/b/${project.id}/orders`);
          const cancelForm = page.getByRole("form", { name: `Cancel ${order.code}` });
          stand.failNext(2, 500);
          await cancelForm.getByRole("button", { name: "Cancel order" }).click();
          await page
            .getByText(`Order ${order.code} not cancelled: Stripe did not answer`, { exact: false })
            .waitFor();
          const panel = page.getByRole("listitem", { name: `Order ${order.code}` });
          await panel.getByText("Paid", { exact: true }).waitFor();
          await panel.getByText(/waiting for Stripe/).waitFor();
          assert.equal(await panel.getByText(/· cancelled/).count(), 0, "no ticket cancelled");
          await assertFits(page, "the Orders tab after Stripe failed");
          await screenshot(page, `paid-cancel-stripe-down-${width}`);

          await page
            .getByRole("form", { name: `Cancel ${order.code}` })
            .getByRole("button")
            .click();
          await page
            .getByText(`Order ${order.code} is cancelled, €498.00 refunded in all; its seats are free.`)
            .waitFor();
          await panel.getByText("Cancelled", { exact: true }).waitFor();
          assert.equal(await panel.getByText(/· cancelled/).count(), 2);
          const intent = [...stand.sessions.values()].find((s) => s.metadata.eventgraph_order === order.id);
          assert.deepEqual(
            stand.refunds.filter((r) => r.payment_intent === intent?.payment_intent).map((r) => r.amount),
            [49800],
          );
          await assertFits(page, "the Orders tab after the cancel");
          await screenshot(page, `paid-cancel-done-${width}`);
        });

        test(`net prices say plus tax on the event page and the ticket choice (${width} px)`, async () => {
          const { owner, project } = await organizerProject("Net Conf");
          await fx.server.services.orders.updateSettings(owner, project.id, {
            holdMinutes: 60,
            bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
            taxRateBasisPoints: 1_900,
            pricesNet: true,
          });
          await createTicketType(fx.server.services, owner, project.id, {
            name: "Business pass",
            priceMinor: 10_000,
            paymentMode: "BANK_TRANSFER",
          });
          const page = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
          await page.goto(`${fx.server.url}/e/${project.id}`);
          await page.getByText("€100.00 plus tax, pay by bank transfer").waitFor();
          await assertFits(page, "the event page with a net price");
          await page.getByRole("link", { name: "Buy several tickets in one order" }).click();
          await page.getByLabel("Business pass · €100.00 plus tax").fill("2");
          await assertFits(page, "step 1 with a net price");
          await screenshot(page, `net-price-choose-${width}`);
          await page.getByRole("button", { name: "Continue" }).click();
          await page.getByText("Total €238.00 (includes €38.00 tax)", { exact: false }).waitFor();
        });
      }
    },
  );
}
