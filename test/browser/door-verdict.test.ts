import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createAttendee, createTicketType } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

/** Whether the verdict box is wholly inside the window. */
function verdictInView(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const box = document.querySelector("[data-door-result]")?.getBoundingClientRect();
    return box !== undefined && box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
  });
}

// Issue 38, "At the door": after each check-in the verdict stays in view and focus goes back to
// where the next code comes from; the ticket-code field is a large input.
describeInBrowser("the door's verdict and code field in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`keeps the verdict in view and the focus where the next code comes from (${width} px)`, async () => {
      const { user, actor, project } = await createOrganizer(fx.server.services);
      const standard = await createTicketType(fx.server.services, actor, project.id, { name: "Standard" });
      // Enough namesakes that the search results reach far below the verdict on a phone.
      const people = [];
      for (let i = 0; i < 12; i++) {
        people.push(
          await createAttendee(fx.server.services, actor, project.id, standard.id, {
            name: `Grace Hopper ${i}`,
          }),
        );
      }
      const page = await fx.page(width, user, { viewport: { width, height: 640 } });
      await page.goto(`${fx.server.url}/b/${project.id}/check-in`);

      const field = page.getByLabel("Ticket code", { exact: true });
      const size = await field.evaluate((e) => ({
        height: e.getBoundingClientRect().height,
        font: Number.parseFloat(getComputedStyle(e).fontSize),
        border: getComputedStyle(e).borderTopStyle,
      }));
      assert.ok(size.height >= 44, `the code field is ${size.height} px tall`);
      assert.ok(size.font >= 20, `the code field's text is ${size.font} px`);
      assert.equal(size.border, "solid", "the code field is styled like the other inputs");

      // A typed code: the verdict shows and stays in view, the code field has the focus again.
      await field.fill(people[0]?.ticketCode ?? "");
      await field.press("Enter");
      await page.locator("[data-door-result]").getByText("Checked in", { exact: true }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), "door-code");
      assert.ok(await verdictInView(page), "the verdict is on screen after a typed code");
      await screenshot(page, `door-verdict-code-${width}`);

      // A name search, then "Check in" on a card far down: the verdict comes back into view and
      // the search is ready for the next name.
      await page.getByLabel("Find attendee").fill("grace hopper");
      await page.getByRole("button", { name: "Find", exact: true }).click();
      const last = page.getByRole("button", { name: "Check in Grace Hopper 11" });
      await last.scrollIntoViewIfNeeded();
      assert.equal(await verdictInView(page), false, "the card is far below the verdict");
      await last.click();
      await page.locator("[data-door-result]").getByText("Grace Hopper 11 · Standard").waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.id), "search-q");
      assert.ok(await verdictInView(page), "the verdict is on screen after a card's check-in");
      // It stays there (no late focus or scroll moves it).
      await page.waitForTimeout(300);
      assert.ok(await verdictInView(page), "the verdict is still on screen");
      await screenshot(page, `door-verdict-card-${width}`);
    });
  }
});
