import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createAttendee, createTicketType } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// Issue 38, "Money shown as money" and the event page's link: the Overview tells paid from still
// to be paid and links the public page beside Publish; an invoice ticket's form shows the price and
// asks whom to invoice, and the organizer sees the answer on the attendee's page.
describeInBrowser("money on the Overview and the invoice form in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`paid apart from due, the event page beside Publish, the invoice form (${width} px)`, async () => {
      const { user, actor, project } = await createOrganizer(fx.server.services, {
        project: { name: "Money Con", status: "PUBLISHED" },
      });
      const door = await createTicketType(fx.server.services, actor, project.id, {
        name: "Door",
        priceMinor: 5000,
        paymentMode: "AT_DOOR",
      });
      const invoice = await createTicketType(fx.server.services, actor, project.id, {
        name: "Company",
        priceMinor: 30000,
        paymentMode: "INVOICE",
      });
      const inside = await createAttendee(fx.server.services, actor, project.id, door.id);
      await createAttendee(fx.server.services, actor, project.id, door.id);
      await createAttendee(fx.server.services, actor, project.id, invoice.id);
      await fx.server.services.checkins.checkIn(actor, { attendeeId: inside.id });

      const page = await fx.page(width, user, { viewport: { width, height: 860 } });

      await page.goto(`${fx.server.url}/b/${project.id}`);
      const stat = (name: string) =>
        page.locator(".stat").filter({ has: page.getByText(name, { exact: true }) });
      assert.equal((await stat("Paid").locator("dd").innerText()).trim(), "€50.00");
      assert.match(
        await stat("Still to be paid").locator("dd").innerText(),
        /€350\.00\s+1 at the door · 1 by invoice/,
      );
      const status = page.getByRole("form", { name: "Status" });
      await status.getByRole("button", { name: "Unpublish" }).waitFor();
      const link = status.getByRole("link", { name: "View event page" });
      assert.equal(await link.getAttribute("href"), `/e/${project.id}`);
      await assertFits(page, "the Overview");
      await screenshot(page, `overview-money-${width}`);

      await link.click();
      await page
        .getByRole("link", { name: /Register/ })
        .first()
        .click();
      const choice = page.getByLabel("Ticket");
      const labels = await choice.locator("option").allInnerTexts();
      assert.deepEqual(labels, ["Door · €50.00, paid at the door", "Company · €300.00, paid by invoice"]);
      await choice.selectOption({ label: "Company · €300.00, paid by invoice" });
      await page.getByLabel("Name").fill("Ada Buyer");
      await page.getByLabel("Email").fill(`buyer-${width}@example.org`);
      await page.getByRole("button", { name: "Register" }).click();
      await page.getByText("This field is required.").waitFor();
      await page
        .getByLabel(/Billing details/)
        .fill("Analytical Engines Ltd\n1 Byron Street, London\nVAT GB123");
      await assertFits(page, "the registration form");
      await screenshot(page, `invoice-form-${width}`);
      await page.getByRole("button", { name: "Register" }).click();
      await page.getByRole("heading", { name: "Check your inbox" }).waitFor();

      const buyer = await fx.server.services.attendees.registeredByEmail(
        fx.server.database.db,
        project.id,
        `buyer-${width}@example.org`,
      );
      assert.ok(buyer);
      await page.goto(`${fx.server.url}/b/${project.id}/attendees/${buyer.id}`);
      const billing = page.getByRole("region", { name: "Billing details" });
      await billing.getByText("Analytical Engines Ltd").waitFor();
      assert.match(await billing.innerText(), /1 Byron Street, London\s+VAT GB123/);
    });
  }
});
