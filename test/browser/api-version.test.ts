import assert from "node:assert/strict";
import { test } from "node:test";
import { describeInBrowser, screenshot, widths } from "../helpers/browser.js";
import { createApp } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

describeInBrowser("an app's API version on its Settings tab, in Chromium at 390 px and 1280 px", {}, (fx) => {
  for (const width of widths) {
    test(`pins an app to another API version, which its next request is answered in, at ${width} px`, async () => {
      const { user, project } = await createOrganizer(fx.server.services);
      const { app, token } = await createApp(fx.server.services, {
        projectId: project.id,
        ownerId: user.id,
        permissions: ["tickets:read"],
      });
      const versionOf = async () => {
        const response = await fetch(`${fx.server.url}/api/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: "{ __typename }" }),
        });
        return response.headers.get("eventgraph-version");
      };
      assert.equal(await versionOf(), "2026-12-01");
      const page = await fx.page(width, user);
      await page.goto(`${fx.server.url}/b/${project.id}/settings/api/apps/${app.id}`);
      const select = page.getByRole("combobox", { name: "API version" });
      assert.equal(await select.inputValue(), "2026-12-01");
      await select.selectOption("2026-09-01");
      await page.getByRole("button", { name: "Save version" }).click();
      await page.getByText("Requests without a version header are now answered in 2026-09-01.").waitFor();
      assert.equal(await page.getByRole("combobox", { name: "API version" }).inputValue(), "2026-09-01");
      assert.equal(await versionOf(), "2026-09-01");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the Settings tab is ${overflow} px wider than the ${width} px window`);
      await page.getByRole("heading", { name: "API version" }).scrollIntoViewIfNeeded();
      await screenshot(page, `app-api-version-${width}`);
      await page.close();
    });
  }
});
