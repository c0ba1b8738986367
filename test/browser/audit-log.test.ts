import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, widths } from "../helpers/browser.js";
import { userActor } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

async function noOverflow(page: Page, what: string, width: number): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the ${width} px window`);
}

// An owner changes the event, reads it back in Settings → Audit log, filters and exports it, then
// deletes the project through the typed confirmation: at a phone's width and a desktop's.
describeInBrowser("Settings → Audit log and project deletion in Chromium at 390 px and 1280 px", {}, (fx) => {
  for (const width of widths) {
    test(`an owner reads, filters and exports the log, then deletes the project, within ${width} px`, async () => {
      const { user: owner, project } = await createOrganizer(fx.server.services, {
        name: "Olga Owner",
        project: { name: "Browser Con", timezone: "UTC" },
      });
      // A long, unbroken value must wrap inside the table, not widen the page.
      await fx.server.services.agenda.createRoom(userActor(owner.id), {
        projectId: project.id,
        name: `Hall-${"x".repeat(110)}`,
      });
      const page = await fx.page(width, owner, { acceptDownloads: true });

      await page.goto(`${fx.server.url}/b/${project.id}/settings`);
      await page.getByLabel("Event name").fill("Browser Conf");
      await page.getByRole("button", { name: "Save changes" }).click();
      await page.getByText("Changes saved.").waitFor();

      await page.getByRole("tab", { name: "Audit log" }).click();
      await page.getByRole("heading", { name: "Audit log", exact: true }).waitFor();
      const table = page.getByRole("table", { name: "Audit log" });
      assert.ok(await table.getByText("project.updated").isVisible());
      // The settings form sends every field; the entry shows the one that moved, as before → after.
      const change = table.locator(".audit-changes li").filter({ hasText: "Browser Conf" });
      assert.equal(await change.count(), 1, "the new name is shown once");
      assert.ok(await change.locator("del").isVisible(), "the old name is shown");
      assert.ok(
        await change.locator("ins", { hasText: "Browser Conf" }).isVisible(),
        "the new name is shown",
      );
      const updated = table.getByRole("row").filter({ hasText: "project.updated" });
      assert.equal(await updated.locator(".audit-changes li").count(), 1, "only the name changed");
      assert.ok(await table.getByText(owner.email).first().isVisible());
      await noOverflow(page, "the audit log", width);

      await page.getByLabel("Action").fill("room.");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.getByText("1 entry").waitFor();
      assert.equal(await table.getByText("project.updated").count(), 0);
      await noOverflow(page, "the filtered audit log", width);

      const download = page.waitForEvent("download");
      await page.getByRole("link", { name: "Export CSV" }).click();
      const csv = await download;
      const path = await csv.path();
      const { readFileSync } = await import("node:fs");
      const text = readFileSync(path, "utf8");
      assert.match(text.split("\n")[0] ?? "", /^time,actor_kind,actor,/);
      assert.equal(text.trimEnd().split("\n").length, 2, "the header and the one filtered entry");

      // Deleting: a wrong confirmation is refused with the reason, the right one deletes.
      await page.goto(`${fx.server.url}/b/${project.id}/settings`);
      const confirm = page.getByLabel(`Type the project id ${project.id} or its name to confirm`);
      await confirm.scrollIntoViewIfNeeded();
      await noOverflow(page, "the General tab with the delete panel", width);
      await confirm.fill("delete it");
      await page.getByRole("button", { name: "Delete this project" }).click();
      await page.getByText("That is neither the project's id nor its exact name.").waitFor();
      assert.ok(await fx.server.services.projects.get(userActor(owner.id), project.id));
      await page.getByLabel(`Type the project id ${project.id} or its name to confirm`).fill(project.id);
      await page.getByRole("button", { name: "Delete this project" }).click();
      await page.getByText("Project “Browser Conf” was deleted.").waitFor();
      await noOverflow(page, "the projects list after deleting", width);
      await assert.rejects(fx.server.services.projects.get(userActor(owner.id), project.id), {
        code: "NOT_FOUND",
      });
    });
  }
});
