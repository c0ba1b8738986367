import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, widths } from "../helpers/browser.js";

// Issue 41: a developer makes a test project in one step from the projects list, sees it marked
// TEST on every page, cannot publish it, and resets it with a confirmation, at 390 and 1280 px.

async function fitsWidth(page: Page, where: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${where} is ${overflow} px wider than the window`);
}

describeInBrowser("test projects in the dashboard (Chromium)", {}, (fx) => {
  for (const width of widths) {
    test(`creates, marks and resets a test project at ${width} px`, async () => {
      const page = await fx.page(width, fx.developer);
      // Offered on the projects list and on a real project's API tab (the developer's pages).
      const real = await fx.server.services.projects.create(fx.developer.id, { name: "Real event" });
      await page.goto(`${fx.server.url}/b/${real.id}/settings/api`);
      assert.ok(await page.getByRole("button", { name: "New test project" }).isVisible());
      await fitsWidth(page, "the API tab");
      await page.goto(`${fx.server.url}/`);
      await page.getByRole("button", { name: "New test project" }).click();
      // The token, shown once, over the projects list.
      const dialog = page.getByRole("dialog", { name: "Copy your API token now" });
      await dialog.waitFor();
      const token = await page.locator("#new-token").inputValue();
      assert.match(token, /^evg_/);
      await fitsWidth(page, "the token dialog");
      await dialog.getByRole("button", { name: "OK" }).click();
      // The dialog's OK is a GET form: the address may end in "?".
      await page.waitForURL(/\/b\/[A-Za-z0-9]{4}\??$/);
      const projectId = /\/b\/([A-Za-z0-9]{4})/.exec(page.url())?.[1] ?? "";

      // Marked on the project's pages, with no way to publish it.
      assert.ok(await page.locator(".project-title .badge", { hasText: "TEST" }).isVisible());
      assert.ok(await page.getByRole("note").filter({ hasText: "Test project." }).isVisible());
      assert.equal(await page.getByRole("button", { name: "Publish" }).count(), 0);
      await fitsWidth(page, "the test project's Overview");
      await page.goto(`${fx.server.url}/b/${projectId}/attendees`);
      assert.ok(await page.getByRole("note").filter({ hasText: "Test project." }).isVisible());
      await fitsWidth(page, "its Attendees page");
      await page.goto(`${fx.server.url}/`);
      const card = page.locator(".project-card", { hasText: projectId });
      assert.ok(await card.locator(".badge", { hasText: "TEST" }).isVisible());

      // A reset asks for the box to be ticked, then brings the demo data back.
      const { db } = fx.server.database;
      await db.deleteFrom("attendees").where("project_id", "=", projectId).execute();
      await page.goto(`${fx.server.url}/b/${projectId}`);
      page.once("dialog", (d) => void d.accept());
      await page.getByLabel("I want to replace this project's data").check();
      await page.getByRole("button", { name: "Reset", exact: true }).click();
      await page.getByText("The test project has its demo data again.").waitFor();
      const row = await db
        .selectFrom("attendees")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("project_id", "=", projectId)
        .executeTakeFirstOrThrow();
      assert.ok(Number(row.n) >= 1000);
    });
  }
});
