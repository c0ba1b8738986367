import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { publicActor } from "../../src/modules/access/actor.js";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// Issue 43: a buyer follows a code link (/e/<id>?code=…), sees the discounted price and pays it;
// another types an access code in the field and gets the hidden speaker ticket. The phone runs
// without script: the code field is a plain GET form.
describeInBrowser("registering with a discount or access code in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`a code link, a mistyped code, an access code (${width} px)`, async () => {
      const user = await createUser(fx.server.services);
      const owner = userActor(user.id);
      const { project } = await createProject(fx.server.services, {
        ownerId: user.id,
        input: { name: "Code Conf", status: "PUBLISHED", timezone: "Europe/Berlin" },
      });
      await fx.server.services.orders.updateSettings(owner, project.id, {
        holdMinutes: 60,
        bankDetails: "Code Conf e.V.\nIBAN DE02 1203 0000 0000 2020 51",
      });
      await createTicketType(fx.server.services, owner, project.id, {
        name: "Conference",
        priceMinor: 20000,
        paymentMode: "BANK_TRANSFER",
      });
      const speaker = await createTicketType(fx.server.services, owner, project.id, {
        name: "Speaker",
        priceMinor: 0,
        hidden: true,
      });
      const codes = fx.server.services.discountCodes;
      await codes.createDiscountCode(owner, {
        projectId: project.id,
        code: "Team25",
        kind: "PERCENTAGE",
        percentOff: 25,
      });
      await codes.createDiscountCode(owner, {
        projectId: project.id,
        code: "SPEAKERS",
        kind: "ACCESS",
        ticketTypeIds: [speaker.id],
      });

      const page = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
      await page.goto(`${fx.server.url}/e/${project.id}`);
      assert.equal(await page.getByText("Speaker", { exact: true }).count(), 0);
      await page.goto(`${fx.server.url}/e/${project.id}?code=team25`);
      await page.getByText("Code Team25 applied: 25% off.").waitFor();
      // A code for every ticket type unlocks no hidden one.
      assert.equal(await page.getByLabel(/Speaker/).count(), 0);
      await page.getByLabel(/Conference/).fill("1");
      await assertFits(page, "the ticket choice with a code");
      await screenshot(page, `code-choose-${width}`);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByText("€150.00", { exact: true }).waitFor();
      await page.getByLabel("Your name").fill("Bea Buyer");
      await page.getByLabel("Your email").fill(`bea-${width}@example.org`);
      await page.locator("fieldset").nth(0).getByLabel("Name").fill("Bea Buyer");
      await page.locator("fieldset").nth(0).getByLabel("Email").fill(`bea-${width}@example.org`);
      await page.getByRole("button", { name: "Place order" }).click();
      await page.getByRole("heading", { name: /^Order / }).waitFor();
      await page.getByText("Team25: −€50.00").waitFor();
      await page.getByText("Transfer €150.00").waitFor();
      await assertFits(page, "the order page with a discount");

      // A mistyped code says so; the access code shows the hidden ticket, free, and places the order.
      await page.goto(`${fx.server.url}/e/${project.id}/order`);
      await page.getByLabel("Discount or access code").fill("SPEAKRES");
      await page.getByRole("button", { name: "Apply code" }).click();
      await page.getByText("This code is not valid for this event.").waitFor();
      await page.getByLabel("Discount or access code").fill("speakers");
      await page.getByRole("button", { name: "Apply code" }).click();
      await page.getByText("Code SPEAKERS applied: unlocks tickets.").waitFor();
      await page.getByLabel(/Speaker/).fill("1");
      await screenshot(page, `code-access-${width}`);
      await page.getByRole("button", { name: "Continue" }).click();
      await page.getByLabel("Your name").fill("Sam Speaker");
      await page.getByLabel("Your email").fill(`sam-${width}@example.org`);
      await page.locator("fieldset").nth(0).getByLabel("Name").fill("Sam Speaker");
      await page.locator("fieldset").nth(0).getByLabel("Email").fill(`sam-${width}@example.org`);
      await page.getByRole("button", { name: "Place order" }).click();
      await page.getByRole("heading", { name: /^Order / }).waitFor();
      await page.getByText("Paid", { exact: true }).waitFor();
      await page.getByText("SPEAKERS: −€0.00").waitFor();
    });
  }
});

// The organizer's side: a code added by hand, a batch of 200 single-use codes generated and
// downloaded as CSV, and each code's uses on the page after a buyer used one.
describeInBrowser("managing discount codes in the dashboard in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`adds a code, generates 200, sees the uses, downloads the CSV (${width} px)`, async () => {
      const user = await createUser(fx.server.services);
      const owner = userActor(user.id);
      const { project } = await createProject(fx.server.services, {
        ownerId: user.id,
        input: { name: "Dash Conf", status: "PUBLISHED", timezone: "UTC" },
      });
      const free = await createTicketType(fx.server.services, owner, project.id, {
        name: "Community",
        priceMinor: 0,
      });
      const page = await fx.page(width, user);
      await page.goto(`${fx.server.url}/b/${project.id}/tickets`);
      await page.getByRole("link", { name: "Discount codes" }).click();
      const add = page.getByRole("form", { name: "Add code" });
      await add.getByLabel("Code").fill("Friends");
      await add.getByLabel("Off each ticket").fill("250");
      await add.getByRole("button", { name: "Add code" }).click();
      await page.getByText(/Off each ticket must be/).waitFor();
      await add.getByLabel("Off each ticket").fill("20");
      await add.getByLabel("Uses in all").fill("5");
      await add.getByRole("button", { name: "Add code" }).click();
      await page.getByText("Code Friends added.").waitFor();

      const generate = page.getByRole("form", { name: "Generate codes" });
      await generate.getByLabel("How many").fill("200");
      await generate.getByLabel("Prefix").fill("VIP-");
      await generate.getByLabel("Batch name").fill("Sponsor A");
      await generate.getByLabel("Kind").selectOption("FIXED_AMOUNT");
      await generate.getByLabel("Off each ticket").fill("10.00");
      await generate.getByRole("button", { name: "Generate codes" }).click();
      await page.getByText("200 codes generated in the batch “Sponsor A”.").waitFor();
      await page.getByText("200 codes in this batch").waitFor();
      const download = page.waitForEvent("download");
      await page.getByRole("link", { name: "Download CSV" }).click();
      const csv = await (await download).createReadStream();
      let text = "";
      for await (const chunk of csv) text += String(chunk);
      const rows = text.trim().split("\r\n");
      assert.equal(rows.length, 201);
      assert.match(rows[1] ?? "", /^VIP-[0-9A-Z]{10},FIXED_AMOUNT,,1000,1,0,/);

      await fx.server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Fay Friend",
        buyerEmail: `fay-${width}@example.org`,
        tickets: [{ ticketTypeId: free.id, name: "Fay Friend", email: `fay-${width}@example.org` }],
        discountCode: "FRIENDS",
      });
      await page.goto(`${fx.server.url}/b/${project.id}/codes`);
      await page
        .getByRole("row", { name: /Friends/ })
        .getByText("1 of 5")
        .waitFor();
      await assertFits(page, "the codes page");
      await screenshot(page, `codes-page-${width}`);
    });
  }
});
