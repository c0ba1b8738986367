import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot, widths } from "../helpers/browser.js";
import { createProject, createUser, testPassword, userActor } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

async function overflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describeInBrowser(
  "install flow and account page in Chromium at 390 px and 1280 px",
  { mailbox: true },
  (fx) => {
    // The app's own server: a real receiver of the organizer's browser after Authorize or Cancel.
    let receiver: Server;
    let receiverUrl = "";
    before(async () => {
      receiver = createServer((_request, response) => {
        response.writeHead(200, { "content-type": "text/html" }).end("<h1>Back in the app</h1>");
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      const address = receiver.address();
      if (!address || typeof address === "string") throw new Error("receiver has no port");
      receiverUrl = `http://127.0.0.1:${address.port}/eventgraph/callback`;
    });
    after(async () => {
      await new Promise((resolve) => receiver.close(resolve));
    });

    async function appWithRedirect() {
      const developer = await createUser(fx.server.services, { name: "Dana Developer" });
      const { project: home } = await createProject(fx.server.services, { ownerId: developer.id });
      const { app } = await fx.server.services.apps.createApp(userActor(developer.id), {
        projectId: home.id,
        name: "Badge Printer",
        description: "Prints name badges for every registered attendee, on any printer.",
        permissions: ["agenda:read", "attendees:read"],
        redirectUrl: receiverUrl,
        websiteUrl: "https://badges.example.test/a/rather/long/path/that/has/to/wrap/on/a/phone",
        privacyPolicyUrl: "https://badges.example.test/privacy",
      });
      return app;
    }

    for (const width of widths) {
      test(`an organizer logs in from the connect link and Authorize hands them back to the app with the state (${width} px)`, async () => {
        const app = await appWithRedirect();
        const { user: organizer, project } = await createOrganizer(fx.server.services, {
          name: "Olga Organizer",
          project: { name: "Phone Fest" },
        });
        const page = await fx.page(width);
        const state = `st-${width}-${Date.now()}`;

        await page.goto(`${fx.server.url}/connect/${app.id}?state=${state}`);
        await page.getByRole("heading", { name: "Badge Printer" }).waitFor();
        assert.ok(await page.getByText("Dana Developer").isVisible());
        assert.ok(await page.getByRole("link", { name: "https://badges.example.test/privacy" }).isVisible());
        assert.ok((await overflow(page)) <= 0, `the consent page fits ${width} px`);
        await page.getByRole("link", { name: "Log in to connect" }).click();
        await page.getByLabel("Email").fill(organizer.email);
        await page.getByLabel("Password").fill(testPassword);
        await page.getByRole("button", { name: "Log in" }).click();

        await page.getByRole("button", { name: "Authorize" }).waitFor();
        assert.ok(page.url().includes(`state=${state}`), "the state came back through log in");
        assert.ok((await overflow(page)) <= 0, `the consent form fits ${width} px`);
        await screenshot(page, `consent-with-developer-${width}`);
        await page.getByLabel("Project").selectOption({ label: `Phone Fest (${project.id})` });
        await page.getByRole("button", { name: "Authorize" }).click();
        await page.getByRole("heading", { name: "Back in the app" }).waitFor();
        const landed = new URL(page.url());
        assert.equal(`${landed.origin}${landed.pathname}`, receiverUrl);
        assert.equal(landed.searchParams.get("project_id"), project.id);
        assert.equal(landed.searchParams.get("state"), state);
        const [link] = await fx.server.services.apps.listIntegrations({ kind: "system" }, project.id);
        assert.deepEqual(link?.grantedPermissions, ["agenda:read", "attendees:read"]);

        // Cancel on a second visit hands back access_denied with the state, and links nothing new.
        await page.goto(`${fx.server.url}/connect/${app.id}?state=again`);
        await page.getByRole("link", { name: "Cancel", exact: true }).click();
        await page.getByRole("heading", { name: "Back in the app" }).waitFor();
        const cancelled = new URL(page.url());
        assert.equal(cancelled.searchParams.get("error"), "access_denied");
        assert.equal(cancelled.searchParams.get("state"), "again");
      });

      test(`the account page fits ${width} px: rename, see this device, end another session, change the password`, async () => {
        const user = await createUser(fx.server.services, { name: "Ada Account" });
        const otherPage = await fx.desktop(user);
        const page = await fx.page(width, user);

        // The header leads there at either width (on a phone the name gives way to "Account").
        const accountLink =
          width < 480
            ? page.getByRole("link", { name: "Account", exact: true })
            : page.getByRole("link", { name: "Ada Account" });
        await accountLink.click();
        await page.getByRole("heading", { name: "Your account" }).waitFor();
        assert.ok((await overflow(page)) <= 0, `the account page fits ${width} px`);
        await screenshot(page, `account-${width}`);

        const nameForm = page.getByRole("form", { name: "Change name" });
        await nameForm.getByLabel("Your name").fill("Ada Renamed");
        await nameForm.getByRole("button", { name: "Save name" }).click();
        await page.getByRole("status").filter({ hasText: "Your name was saved." }).waitFor();

        const sessions = page.getByRole("table", { name: "Active sessions" });
        assert.equal(await sessions.getByRole("row").count(), 3, "a header row and two sessions");
        assert.ok(await sessions.getByText("this device").isVisible());
        await sessions.getByRole("button", { name: "End session" }).click();
        await page.getByRole("status").filter({ hasText: "The session was ended." }).waitFor();
        await otherPage.goto(`${fx.server.url}/account`);
        await otherPage.getByRole("heading", { name: "Log in" }).waitFor();

        const passwordForm = page.getByRole("form", { name: "Change password" });
        await passwordForm.getByLabel("Current password").fill("not the password");
        await passwordForm.getByLabel("New password").fill("another good password");
        await passwordForm.getByRole("button", { name: "Change password" }).click();
        await page.getByText("Current password is wrong").waitFor();
        assert.ok((await overflow(page)) <= 0, `the form with an error fits ${width} px`);
        const again = page.getByRole("form", { name: "Change password" });
        await again.getByLabel("Current password").fill(testPassword);
        await again.getByLabel("New password").fill("another good password");
        await again.getByRole("button", { name: "Change password" }).click();
        await page.getByRole("status").filter({ hasText: "Your password was changed." }).waitFor();
      });
    }

    test("deleting the only owner's account is refused with the project's name, on a phone", async () => {
      const { user, project } = await createOrganizer(fx.server.services, {
        project: { name: "Solo Summit" },
      });
      const page = await fx.phone();
      page.on("dialog", (dialog) => void dialog.accept());
      await page.goto(`${fx.server.url}/login?next=/account`);
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(testPassword);
      await page.getByRole("button", { name: "Log in" }).click();
      const form = page.getByRole("form", { name: "Delete account" });
      await form.getByLabel("Current password").fill(testPassword);
      await form.getByRole("button", { name: "Delete my account" }).click();
      await page.getByText(`You are the only owner of “Solo Summit” (${project.id})`).waitFor();
      assert.ok((await overflow(page)) <= 0);
      assert.ok(await fx.server.services.users.findByEmail(user.email));
    });
  },
);
