import assert from "node:assert/strict";
import { test } from "node:test";
import { describeInBrowser } from "../helpers/browser.js";
import { uniqueEmail } from "../helpers/factories.js";

// What a first user trips over on a server without SMTP: where the verification link is, what
// "unverified" blocks, the time zone of their first project, whole-sentence field errors, a favicon.
describeInBrowser("a first user's small things in Chromium", {}, (fx) => {
  test("says where the link is without SMTP, defaults the zone to the browser's, and names fields in errors", async () => {
    const page = await fx.phone(undefined, { timezoneId: "Asia/Tokyo" });
    const email = uniqueEmail("first");
    await page.goto(`${fx.server.url}/signup`);
    await page.getByLabel("Your name").fill("First User");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery staple");
    await page.getByRole("button", { name: "Sign up" }).click();

    const banner = page.locator(".verify-banner");
    await banner.getByText("the link is in the server log").waitFor();
    await banner.getByText(`eventgraph users verify --email ${email}`).waitFor();
    await banner.getByText("other organizers cannot connect your apps").waitFor();
    assert.equal(
      await banner.getByText("We sent you a link").count(),
      0,
      "no promise of an email that was never sent",
    );

    const icon = await page.locator('link[rel="icon"]').getAttribute("href");
    const favicon = await fetch(`${fx.server.url}${icon}`);
    assert.equal(favicon.status, 200);
    assert.equal(favicon.headers.get("content-type"), "image/svg+xml");

    // A project needs a verified address; here the operator verifies it, as the banner says.
    const user = (await fx.server.services.users.findByEmail(email)) ?? assert.fail("no user");
    await fx.server.services.users.markEmailVerified(user.id);
    await page.goto(`${fx.server.url}/projects/new`);
    assert.equal(await page.getByLabel("Time zone").inputValue(), "Asia/Tokyo");
    await page.getByLabel("Event name").fill("Zone Days");
    await page.getByLabel("Starts").fill("2026-12-02T09:00");
    await page.getByLabel("Ends").fill("2026-12-01T09:00");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByText("Ends must not be before Starts.").waitFor();
    // Sent back with an error, the form keeps the zone that was submitted.
    assert.equal(await page.getByLabel("Time zone").inputValue(), "Asia/Tokyo");
  });
});
