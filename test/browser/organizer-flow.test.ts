import assert from "node:assert/strict";
import { test } from "node:test";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { testPassword, uniqueEmail } from "../helpers/factories.js";
import { lastEmailLink } from "../helpers/mail-log.js";

describeInBrowser("organizer flow in Chromium", {}, (fx) => {
  test("signs up, verifies the email, creates a project and edits its General settings", async () => {
    const page = await fx.desktop();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const email = uniqueEmail("flow");

    await page.goto(`${fx.server.url}/signup`);
    await screenshot(page, "signup");
    await page.getByLabel("Your name").fill("Grace Organizer");
    await page.getByLabel("Email").fill("not-an-email");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Sign up" }).click();
    // Server-side messages next to the fields; the name is kept, the password is not echoed.
    await page.getByText("Must be a valid email address").waitFor();
    await page.getByText("Must be at least 10 characters").waitFor();
    assert.equal(await page.getByLabel("Your name").inputValue(), "Grace Organizer");
    assert.equal(await page.getByLabel("Password").inputValue(), "");

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(testPassword);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("status").filter({ hasText: "Welcome to Eventgraph" }).waitFor();
    await page.getByText("Please verify your email address").waitFor();
    await page.getByText("No projects yet").waitFor();
    await screenshot(page, "projects-empty");

    await page.goto(lastEmailLink(fx.server.logs.text, email, "verify-email"));
    await page.getByRole("status").filter({ hasText: "your email address is verified" }).waitFor();
    assert.equal(await page.getByText("Please verify your email address").count(), 0);

    await page.getByRole("link", { name: "New project" }).first().click();
    await page.getByLabel("Event name").fill("<b>JSConf</b> Berlin");
    await page.getByLabel("Time zone").selectOption("Europe/Berlin");
    await page.getByLabel("Starts").fill("2026-06-01T09:00");
    await page.getByLabel("Ends").fill("2026-05-31T18:00");
    await page.getByLabel("Venue name").fill("Festsaal Kreuzberg");
    await page.getByLabel("City").fill("Berlin");
    await page.getByLabel("Country code").fill("de");
    await page.getByLabel("Website").fill("ftp://example.org");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByText("Must be an http(s) URL").waitFor();
    await screenshot(page, "new-project-errors");
    await page.getByLabel("Website").fill("https://jsconf.example.org");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByText("Ends must not be before Starts.").waitFor();
    assert.equal(await page.getByLabel("City").inputValue(), "Berlin");
    await page.getByLabel("Ends").fill("2026-06-02T18:00");
    await page.getByRole("button", { name: "Create project" }).click();

    await page.getByRole("heading", { name: "<b>JSConf</b> Berlin" }).waitFor();
    const projectId = /\/b\/([A-Za-z0-9]{4})$/.exec(page.url())?.[1];
    assert.ok(projectId, page.url());
    const project = await fx.server.services.projects.get({ kind: "system" }, projectId);
    // 09:00 in Berlin in June is 07:00 UTC.
    assert.equal(project.startsAt, "2026-06-01T07:00:00.000Z");
    assert.deepEqual(project.venue, {
      name: "Festsaal Kreuzberg",
      address: null,
      city: "Berlin",
      country: "DE",
    });
    await screenshot(page, "project-overview");

    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Settings" }).click();
    const tabs = page.getByRole("tablist", { name: "Project settings" });
    assert.equal(await tabs.getByRole("tab", { name: "General" }).getAttribute("aria-selected"), "true");
    await page.getByRole("tabpanel", { name: "General" }).waitFor();
    assert.equal(await page.getByLabel("Starts").inputValue(), "2026-06-01T09:00");
    await page.getByLabel("Event name").fill("");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Must not be empty").waitFor();
    await page.getByLabel("Event name").fill("JSConf Berlin 2026");
    await page.getByLabel("Description").fill("Two days of JavaScript.");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("status").filter({ hasText: "Changes saved." }).waitFor();
    await page.getByRole("heading", { name: "JSConf Berlin 2026" }).waitFor();
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByRole("status").filter({ hasText: "The project is published." }).waitFor();
    assert.equal((await fx.server.services.projects.get({ kind: "system" }, projectId)).status, "PUBLISHED");
    await screenshot(page, "settings-general");

    await tabs.getByRole("tab", { name: "API" }).click();
    await page.getByRole("tabpanel", { name: "API" }).waitFor();
    await tabs.getByRole("tab", { name: "Integrations" }).click();
    await page.getByRole("tabpanel", { name: "Integrations" }).waitFor();

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("heading", { name: "Log in" }).waitFor();
    await page.goto(`${fx.server.url}/b/${projectId}`);
    // Logged out: the project asks for a login and comes back after it.
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(testPassword);
    await screenshot(page, "login");
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "JSConf Berlin 2026" }).waitFor();
    assert.match(page.url(), new RegExp(`/b/${projectId}$`));
    assert.deepEqual(dialogs, []);
  });
});
