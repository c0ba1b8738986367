import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, desktopWidth, screenshot } from "../helpers/browser.js";
import { testPassword, uniqueEmail } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { lastEmailLink } from "../helpers/mail-log.js";

describeInBrowser("developer and organizer story in Chromium", {}, (fx) => {
  async function pageWithClipboard(): Promise<Page> {
    const context = await fx.context(desktopWidth);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: fx.server.url });
    const page = await context.newPage();
    // Confirmations (revoke, delete) are accepted, as a person clicking OK would.
    page.on("dialog", (dialog) => void dialog.accept());
    return page;
  }

  async function signUp(page: Page, name: string, email: string): Promise<void> {
    await page.getByLabel("Your name").fill(name);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(testPassword);
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.getByRole("status").filter({ hasText: "Welcome to Eventgraph" }).waitFor();
  }

  async function createProject(page: Page, name: string): Promise<string> {
    await page.goto(`${fx.server.url}/projects/new`);
    await page.getByLabel("Event name").fill(name);
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByRole("heading", { name }).waitFor();
    const projectId = /\/b\/([A-Za-z0-9]{4})$/.exec(page.url())?.[1];
    assert.ok(projectId, page.url());
    return projectId;
  }

  const projectQuery = (id: string) => `query { project(id: "${id}") { name } }`;

  test("a developer creates an app, another organizer connects it, then revokes it", async () => {
    // The developer signs up, verifies the email from the logged link and creates a project.
    const dev = await pageWithClipboard();
    const devEmail = uniqueEmail("developer");
    await dev.goto(`${fx.server.url}/signup`);
    await signUp(dev, "Dana Developer", devEmail);
    await dev.goto(lastEmailLink(fx.server.logs.text, devEmail, "verify-email"));
    await dev.getByRole("status").filter({ hasText: "your email address is verified" }).waitFor();
    const homeId = await createProject(dev, "Dev Days");

    // API tab: empty at first, then the Add app form with permissions explained.
    await dev.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Settings" }).click();
    await dev.getByRole("tablist", { name: "Project settings" }).getByRole("tab", { name: "API" }).click();
    const apiPanel = dev.getByRole("tabpanel", { name: "API" });
    await apiPanel.getByText("No apps yet").waitFor();
    await apiPanel.getByText("Request as few permissions as possible").waitFor();
    await dev.getByRole("button", { name: "Create app" }).click();
    await dev.getByText("Must not be empty").waitFor();
    await dev.getByLabel("App name").fill("Schedule Sync");
    await dev.getByRole("textbox", { name: "Description" }).fill("Shows your agenda on our screens.");
    await dev.getByLabel("Read the agenda").check();
    await screenshot(dev, "api-tab-add-app");
    await dev.getByRole("button", { name: "Create app" }).click();

    // The token, once, in a dialog with a copy button and OK.
    const dialog = dev.getByRole("dialog", { name: "Copy your API token now" });
    await dialog.waitFor();
    const token = await dialog.getByLabel("API token").inputValue();
    assert.match(token, /^evg_[A-Za-z0-9]{32,}/);
    await dialog.getByRole("button", { name: "Copy" }).click();
    assert.equal(await dev.evaluate(() => navigator.clipboard.readText()), token);
    await screenshot(dev, "api-token-dialog");
    await dialog.getByRole("button", { name: "OK" }).click();
    await dev.getByRole("tabpanel", { name: "Settings" }).waitFor();
    assert.equal(await dev.getByRole("dialog").count(), 0);
    assert.ok(!(await dev.content()).includes(token), "the token is gone after OK");
    await dev.reload();
    await dev.getByRole("tabpanel", { name: "Settings" }).waitFor();
    assert.ok(!(await dev.content()).includes(token), "and after a reload");
    await dev
      .getByText(`evg_…${token.slice(-4)}`)
      .first()
      .waitFor();
    await screenshot(dev, "app-settings");
    await dev.goto(`${fx.server.url}/b/${homeId}/settings/api`);
    await dev.getByRole("link", { name: "Schedule Sync" }).waitFor();
    assert.ok(!(await dev.content()).includes(token), "nor on the API tab");
    await screenshot(dev, "api-tab");

    // The token reads the home project through the API.
    const home = await gql(fx.server.url, projectQuery(homeId), { token });
    assert.deepEqual(home.body.data, { project: { name: "Dev Days" } });

    // Linked projects: the connect link, copied.
    await dev.getByRole("link", { name: "Schedule Sync" }).click();
    await dev.getByRole("tab", { name: "Linked projects" }).click();
    await dev.getByText("No linked projects yet").waitFor();
    const connectLink = await dev.getByRole("textbox", { name: "Connect link" }).inputValue();
    assert.equal(connectLink, `${fx.server.url}/connect/${/apps\/([^/]+)\//.exec(dev.url())?.[1]}`);
    await dev
      .getByRole("tabpanel", { name: "Linked projects" })
      .getByRole("button", { name: "Copy" })
      .click();
    assert.equal(await dev.evaluate(() => navigator.clipboard.readText()), connectLink);
    await screenshot(dev, "app-linked-projects-empty");
    // The developer previews their own link.
    await dev.getByRole("link", { name: "Open it" }).click();
    await dev.getByText("This is your app.").waitFor();

    // A second organizer opens the link logged out, signs up and comes back to it.
    const org = await pageWithClipboard();
    await org.goto(connectLink);
    await org.getByRole("heading", { name: "Schedule Sync" }).waitFor();
    await org.getByText("Read the agenda").waitFor();
    await org.getByText("Read all sessions, speakers, tracks and rooms, including drafts.").waitFor();
    await screenshot(org, "connect-logged-out");
    await org.getByRole("link", { name: "Sign up" }).last().click();
    const orgEmail = uniqueEmail("organizer");
    await signUp(org, "Olga Organizer", orgEmail);
    assert.equal(org.url(), connectLink);
    // Creating a project needs a verified address (as by the logged link, which would leave this page).
    const organizer = (await fx.server.services.users.findByEmail(orgEmail)) ?? assert.fail("no user");
    await fx.server.services.users.markEmailVerified(organizer.id);
    await org.getByText("No project to connect").waitFor();
    const partnerId = await createProject(org, "Partner Summit");
    await org.goto(connectLink);
    await org.getByLabel("Project").selectOption(partnerId);
    await screenshot(org, "connect-page");
    await org.getByRole("button", { name: "Authorize" }).click();

    // The app is on the project's Integrations tab and its token reads the project.
    await org
      .getByRole("status")
      .filter({ hasText: "“Schedule Sync” is connected to Partner Summit." })
      .waitFor();
    assert.match(org.url(), new RegExp(`/b/${partnerId}/settings/integrations$`));
    const card = org.getByRole("listitem", { name: "Schedule Sync" });
    await card.getByText("Read the agenda").waitFor();
    // The request to the home project above counts: usage is per app.
    await card.getByText("1 request in the last 30 days").waitFor();
    await screenshot(org, "integrations");
    const linked = await gql(fx.server.url, projectQuery(partnerId), { token });
    assert.deepEqual(linked.body.data, { project: { name: "Partner Summit" } });

    // The developer sees who linked which project.
    await dev.goto(`${fx.server.url}/b/${homeId}/settings/api`);
    await dev.getByRole("link", { name: "Schedule Sync" }).click();
    await dev.getByRole("tab", { name: "Linked projects" }).click();
    const row = dev.getByRole("row").filter({ hasText: "Partner Summit" });
    await row.getByText("Olga Organizer").waitFor();
    await row.getByText("active").waitFor();
    await screenshot(dev, "app-linked-projects-active");

    // The organizer revokes; the token no longer reads the project.
    await card.getByRole("button", { name: "Revoke access" }).click();
    await org.getByRole("status").filter({ hasText: "Access revoked" }).waitFor();
    await org.getByText("No connected apps").waitFor();
    const revoked = await gql(fx.server.url, projectQuery(partnerId), { token });
    assert.equal(revoked.body.data.project, null);
    assert.equal(revoked.body.errors[0].extensions.code, "NOT_FOUND");
  });
});
