import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// Issue 40's first slice: a buyer orders two tickets of two types on the event page and pays by
// bank transfer; the page works without script (the phone runs with JavaScript off); the organizer
// marks the order paid and the buyer's page says so. A sold-out type says so.
describeInBrowser("buying tickets by bank transfer in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`two tickets of two types, the reference, and paid (${width} px)`, async () => {
      const user = await createUser(fx.server.services);
      const owner = userActor(user.id);
      const { project } = await createProject(fx.server.services, {
        ownerId: user.id,
        input: { name: "Checkout Conf", status: "PUBLISHED", timezone: "Europe/Berlin" },
      });
      // The organizer turns bank transfers on in Settings → General → Payments.
      const organizer = await fx.page(width, user);
      await organizer.goto(`${fx.server.url}/b/${project.id}/settings`);
      const payments = organizer.getByRole("form", { name: "Payments" });
      await payments.getByLabel("Bank details").fill("Checkout Conf e.V.\nIBAN DE02 1203 0000 0000 2020 51");
      await payments.getByLabel(/Hold seats for/).fill("2");
      await payments.getByRole("button", { name: "Save payment settings" }).click();
      await organizer.getByText(/must be at least 5 minutes/).waitFor();
      // A refused save keeps what was stored: the details are typed again.
      await payments.getByLabel("Bank details").fill("Checkout Conf e.V.\nIBAN DE02 1203 0000 0000 2020 51");
      await payments.getByLabel(/Hold seats for/).fill("4320");
      await payments.getByRole("button", { name: "Save payment settings" }).click();
      await organizer.getByText("Payment settings saved.").waitFor();
      await assertFits(organizer, "the payment settings");
      await createTicketType(fx.server.services, owner, project.id, {
        name: "Conference",
        priceMinor: 24900,
        paymentMode: "BANK_TRANSFER",
      });
      await createTicketType(fx.server.services, owner, project.id, {
        name: "Workshop",
        priceMinor: 9900,
        paymentMode: "BANK_TRANSFER",
      });
      await createTicketType(fx.server.services, owner, project.id, {
        name: "Speakers dinner",
        priceMinor: 5000,
        quantity: 0,
        paymentMode: "BANK_TRANSFER",
      });

      const page = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
      await page.goto(`${fx.server.url}/e/${project.id}`);
      await page.getByRole("link", { name: "Buy several tickets in one order" }).click();
      await page.getByText("Sold out").waitFor();
      // Garbage quantities are refused with a sentence, not a crash.
      await page.goto(
        `${fx.server.url}/e/${project.id}/order?${encodeURIComponent("q.x")}=1&q.${"a".repeat(3)}=-4`,
      );
      await page.getByText("Choose at least one ticket.").waitFor();
      await page.getByLabel(/Conference/).fill("1");
      await page.getByLabel(/Workshop/).fill("1");
      await assertFits(page, "the ticket choice");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByText("€348.00").waitFor();
      await page.getByLabel("Your name").fill("Bea Buyer");
      await page.getByLabel("Your email").fill(`bea-${width}@example.org`);
      const holders = page.locator("fieldset");
      await holders.nth(0).getByLabel("Name").fill("Ann Attendee");
      await holders.nth(0).getByLabel("Email").fill(`ann-${width}@example.org`);
      await holders.nth(1).getByLabel("Name").fill("Ben Attendee");
      // The same email twice: one active ticket per email and event.
      await holders.nth(1).getByLabel("Email").fill(`ann-${width}@example.org`);
      await page.getByRole("button", { name: "Place order" }).click();
      await page.getByText(/already has a ticket/i).waitFor();
      await page.locator("fieldset").nth(1).getByLabel("Email").fill(`ben-${width}@example.org`);
      await assertFits(page, "the order form");
      await screenshot(page, `checkout-form-${width}`);
      await page.getByRole("button", { name: "Place order" }).click();

      await page.getByRole("heading", { name: /^Order / }).waitFor();
      const heading = await page.getByRole("heading", { name: /^Order / }).innerText();
      const code = heading.replace(/^Order /, "").trim();
      assert.match(code, new RegExp(`^${project.id}-[0-9A-Z]{6}$`));
      await page.getByText("Awaiting payment").waitFor();
      assert.equal(await page.locator("code.ticket-code").innerText(), code);
      await page.getByText("IBAN DE02 1203 0000 0000 2020 51").waitFor();
      await page.getByText("Transfer €348.00").waitFor();
      await assertFits(page, "the order page");
      await screenshot(page, `checkout-order-${width}`);

      // The organizer finds it in the Orders tab and marks it paid.
      await organizer.goto(`${fx.server.url}/b/${project.id}/orders?state=PENDING`);
      const card = organizer.getByRole("listitem", { name: `Order ${code}` });
      await card.getByText("€348.00").waitFor();
      await card.getByText("Ann Attendee").waitFor();
      await assertFits(organizer, "the Orders tab");
      await screenshot(organizer, `orders-tab-${width}`);
      await card.getByRole("button", { name: "Mark paid" }).click();
      await organizer.getByText(`Order ${code} is paid.`).waitFor();
      await organizer.goto(`${fx.server.url}/b/${project.id}/orders?state=PENDING`);
      await organizer.getByText("No orders").waitFor();
      await page.reload();
      await page.getByText("Paid", { exact: true }).waitFor();
      assert.equal(await page.getByText("Pay by bank transfer").count(), 0);
    });
  }
});
