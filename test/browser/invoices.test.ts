import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";
import { pdfText } from "../helpers/pdf-text.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

/** The bytes behind a link on the page, fetched with the page's own cookies (the browser's session). */
async function download(page: Page, name: RegExp | string): Promise<Uint8Array> {
  const href = await page.getByRole("link", { name }).getAttribute("href");
  assert.ok(href, "the link has an address");
  const response = await page.request.get(new URL(href, page.url()).toString());
  assert.equal(response.status(), 200);
  return new Uint8Array(await response.body());
}

// Issue 40, taxes and invoices: the organizer sets the tax and the seller, a buyer orders with
// billing details and sees the tax, the organizer marks the order paid, finds it by search, opens
// its page (lines with tax, invoice, history) and downloads the invoice; the buyer downloads it too.
describeInBrowser("invoices in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`tax on the checkout, the order's page and its invoice PDF (${width} px)`, async () => {
      const user = await createUser(fx.server.services);
      const owner = userActor(user.id);
      const { project } = await createProject(fx.server.services, {
        ownerId: user.id,
        input: { name: "Invoice Conf", status: "PUBLISHED", timezone: "Europe/Berlin" },
      });
      const organizer = await fx.page(width, user);
      await organizer.goto(`${fx.server.url}/b/${project.id}/settings`);
      const payments = organizer.getByRole("form", { name: "Payments" });
      await payments.getByLabel("Bank details").fill("Invoice Conf e.V.\nIBAN DE02 1203 0000 0000 2020 51");
      await payments.getByLabel(/Hold seats for/).fill("4320");
      await payments.getByLabel("Tax rate (%)").fill("19");
      await payments
        .getByLabel("Seller details for invoices")
        .fill("Invoice Conf e.V.\nHauptstraße 1, Berlin");
      await payments.getByLabel("Invoice number prefix").fill("IC-2026-");
      await payments.getByRole("button", { name: "Save payment settings" }).click();
      await organizer.getByText("Payment settings saved.").waitFor();
      await createTicketType(fx.server.services, owner, project.id, {
        name: "Conference",
        priceMinor: 11_900,
        paymentMode: "BANK_TRANSFER",
      });

      const page = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
      await page.goto(`${fx.server.url}/e/${project.id}/order`);
      await page.getByLabel(/Conference/).fill("2");
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByText("(includes €38.00 tax)").waitFor();
      await page.getByLabel("Your name").fill("Bea Buyer");
      await page.getByLabel("Your email").fill(`bea-inv-${width}@example.org`);
      await page.getByLabel("Billing address (optional)").fill("Buyer GmbH\nMarktplatz 2, München");
      await page.getByLabel("VAT id (optional)").fill("DE987654321");
      const holders = page.locator("fieldset");
      for (const i of [0, 1]) {
        await holders.nth(i).getByLabel("Name").fill(`Guest ${i}`);
        await holders.nth(i).getByLabel("Email").fill(`guest-${i}-inv-${width}@example.org`);
      }
      await assertFits(page, "the order form");
      await page.getByRole("button", { name: "Place order" }).click();
      const heading = await page.getByRole("heading", { name: /^Order / }).innerText();
      const code = heading.replace(/^Order /, "").trim();
      await page.getByText("(includes €38.00 tax)").waitFor();

      // The organizer finds the order by a ticket holder's email, marks it paid, opens its page.
      await organizer.goto(`${fx.server.url}/b/${project.id}/orders`);
      await organizer.getByRole("searchbox", { name: "Search orders" }).fill(`guest-1-inv-${width}`);
      await organizer.getByRole("button", { name: "Search" }).click();
      const card = organizer.getByRole("listitem", { name: `Order ${code}` });
      await card.getByRole("button", { name: "Mark paid" }).click();
      await organizer.getByText(`Order ${code} is paid.`).waitFor();
      await organizer.goto(`${fx.server.url}/b/${project.id}/orders?q=nobody-at-all`);
      await organizer.getByText("No order matches this search.").waitFor();
      await organizer.goto(`${fx.server.url}/b/${project.id}/orders?q=${encodeURIComponent(code)}`);
      await organizer.getByRole("link", { name: code }).click();
      await organizer.getByRole("heading", { name: new RegExp(`^Order ${code}`) }).waitFor();
      const lines = organizer.getByRole("table", { name: "Tickets ordered" });
      for (const cell of ["19%", "€200.00", "€38.00", "€238.00"])
        await lines.getByText(cell).first().waitFor();
      await organizer.getByText("order.paid").first().waitFor();
      await organizer.getByText("invoice.issued").first().waitFor();
      await assertFits(organizer, "the order's page");
      await screenshot(organizer, `order-detail-${width}`);
      const organizerPdf = await pdfText(await download(organizer, "Invoice IC-2026-0001"));
      for (const expected of [
        "Invoice IC-2026-0001",
        "Hauptstraße 1, Berlin",
        "Marktplatz 2, München",
        "€238.00",
      ]) {
        assert.ok(organizerPdf.includes(expected), `the invoice shows ${expected}:\n${organizerPdf}`);
      }
      await organizer.getByRole("button", { name: "Resend confirmation" }).click();
      await organizer.getByText(`The confirmation of ${code} is on its way`).waitFor();
      const csv = await organizer.request.get(`${fx.server.url}/b/${project.id}/orders/export.csv`);
      const csvText = await csv.text();
      assert.match(csvText, /^code,state,buyer_name,/);
      assert.ok(csvText.includes(`${code},PAID,Bea Buyer`) && csvText.includes("IC-2026-0001"), csvText);

      // The buyer's page links the same invoice behind the buyer's own link.
      await page.reload();
      await page.getByText("Paid", { exact: true }).waitFor();
      await assertFits(page, "the buyer's order page");
      const buyerPdf = await pdfText(await download(page, /Invoice IC-2026-0001/));
      assert.ok(buyerPdf.includes("Invoice IC-2026-0001"), buyerPdf);
    });
  }
});
