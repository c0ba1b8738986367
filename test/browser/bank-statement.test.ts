import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { publicActor } from "../../src/modules/access/actor.js";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createTicketType, createUser, uniqueEmail, userActor } from "../helpers/factories.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

/** Chooses `csv` as the upload's file and submits the form, optionally as a check only. */
async function upload(page: Page, name: string, csv: string, checkOnly = false): Promise<void> {
  const form = page.getByRole("form", { name: "Upload bank statement" }).first();
  await form.getByLabel("Bank statement (CSV)").setInputFiles({
    name,
    mimeType: "text/csv",
    buffer: Buffer.from(csv),
  });
  if (checkOnly) await form.getByLabel("Only check: mark nothing paid").check();
  await form.getByRole("button", { name: "Import statement" }).click();
}

// Issue 40: the organizer imports the bank's CSV statement from the Orders tab (what the CLI's
// `orders import-statement` does), sees per row what it did, and importing it again pays nothing twice.
for (const engine of testEngines()) {
  describeInBrowser(`bank-statement import in Chromium (${engine.name})`, { engine }, (fx) => {
    for (const width of [390, 1280]) {
      test(`a statement marks matched orders paid and lists every row (${width} px)`, async () => {
        const user = await createUser(fx.server.services);
        const owner = userActor(user.id);
        const { project } = await createProject(fx.server.services, {
          ownerId: user.id,
          input: { name: "Statement Conf", status: "PUBLISHED" },
        });
        await fx.server.services.orders.updateSettings(owner, project.id, {
          holdMinutes: 4_320,
          bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
        });
        const pass = await createTicketType(fx.server.services, owner, project.id, {
          name: "Pass",
          priceMinor: 24_900,
          paymentMode: "BANK_TRANSFER",
        });
        const place = async () =>
          (
            await fx.server.services.orders.placeOrder(publicActor, {
              projectId: project.id,
              buyerName: "Bea Buyer",
              buyerEmail: uniqueEmail("buyer"),
              tickets: [{ ticketTypeId: pass.id, name: "Guest", email: uniqueEmail("ticket") }],
            })
          ).order;
        const [first, second, short] = [await place(), await place(), await place()];
        const statement = [
          "Date;Purpose;Amount",
          `2026-11-28;Ticket ${first.code.toLowerCase()};EUR 249,00`,
          `2026-11-28;${second.code};249,00`,
          `2026-11-28;${short.code};200,00`,
          "2026-11-28;Rent November;-1.200,00",
        ].join("\n");
        const page = await fx.page(width, user);

        // Garbage first: a file without an Amount column is refused and nothing is paid.
        await page.goto(`${fx.server.url}/b/${project.id}/orders`);
        await page.getByRole("link", { name: "Import bank statement" }).click();
        await upload(page, "garbage.csv", "Date,Text\n2026-11-28,hello");
        await page.getByText("The file has no Amount column").waitFor();

        // A check changes nothing.
        await upload(page, "statement.csv", statement, true);
        await page.getByText("2 orders would be marked paid. Nothing changed.").waitFor();
        const pending = await fx.server.services.orders.ordersByIds([first.id, second.id]);
        assert.deepEqual(
          [...pending.values()].map((o) => o.state),
          ["PENDING", "PENDING"],
        );

        await upload(page, "statement.csv", statement);
        await page.getByText("Imported statement.csv: 2 orders marked paid.").waitFor();
        const table = page.getByRole("table", { name: "Rows of the statement" });
        await table.getByRole("row", { name: new RegExp(`${first.code}.*Matched`) }).waitFor();
        await table.getByRole("row", { name: /Amount differs/ }).waitFor();
        await table.getByRole("row", { name: /Unmatched/ }).waitFor();
        await assertFits(page, "the statement's result");
        await screenshot(page, `bank-statement-${engine.name}-${width}`);
        const paid = await fx.server.services.orders.ordersByIds([first.id, second.id, short.id]);
        assert.deepEqual(
          [first, second, short].map((o) => paid.get(o.id)?.state),
          ["PAID", "PAID", "PENDING"],
        );

        // The same statement again: both already paid, nothing marked twice.
        await upload(page, "statement.csv", statement);
        await page.getByText("Imported statement.csv: 0 orders marked paid.").waitFor();
        assert.equal(await table.getByRole("row", { name: /Already paid/ }).count(), 2);
      });
    }
  });
}
