import assert from "node:assert/strict";
import { test } from "node:test";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot, widths } from "../helpers/browser.js";
import { seedEvent } from "../helpers/event-site-seed.js";
import { Mailbox } from "../helpers/mailbox.js";

/** Runs axe-core in the page (through the debugging protocol, so the page's CSP does not apply). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    (globalThis as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ["violations"] }),
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

describeInBrowser("the public event site in Chromium", { mailbox: true }, (fx) => {
  for (const width of widths) {
    test(`the event and speaker pages fit ${width} px, run no script and pass axe`, async () => {
      const { project, speaker } = await seedEvent(fx.server);
      const page = await fx.page(width);
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      for (const path of [
        `/e/${project.id}`,
        `/e/${project.id}/speakers/${speaker.id}`,
        `/e/${project.id}/register`,
      ]) {
        const response = await page.goto(`${fx.server.url}${path}`);
        assert.equal(response?.status(), 200, path);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow} px wider than the ${width} px window`);
        assert.deepEqual(await axeViolations(page), [], path);
      }
      await page.goto(`${fx.server.url}/e/${project.id}`);
      assert.ok(await page.getByRole("heading", { level: 1, name: /Harbour Conf/ }).isVisible());
      assert.ok(await page.getByText("(Europe/Dublin time)").isVisible());
      assert.ok(await page.getByRole("heading", { name: "Monday, 5 October 2026" }).isVisible());
      assert.ok(await page.getByText("09:30").first().isVisible(), "08:30 UTC is 09:30 in Dublin");
      assert.equal(await page.getByRole("link", { name: /Register for Corporate pass/ }).count(), 0);
      const map = await page.getByRole("link", { name: /Map/ }).getAttribute("href");
      assert.equal(
        map,
        "https://www.openstreetmap.org/search?query=Harbour%20Hall%2C%201%20Quay%20Street%2C%20Galway%2C%20IE",
      );
      await screenshot(page, `event-page-${width}`);
      assert.deepEqual(dialogs, []);
    });
  }

  test("a visitor registers, gets the email with the ticket, and cancels through its link", async () => {
    const { project, actor, free } = await seedEvent(fx.server);
    const page = await fx.phone();
    await page.goto(`${fx.server.url}/e/${project.id}`);
    await page.getByRole("link", { name: "Register for Community pass" }).click();
    assert.equal(await page.getByLabel("Ticket").inputValue(), free.id);
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Email").fill("ada@example.test");
    await page.getByLabel("Company").fill("Analytical Engines");
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    // The browser's back button and a second click: still one registration.
    await page.goBack();
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    const access = await fx.server.services.access.require(actor, project.id);
    const list = await fx.server.services.attendees.listAttendees(
      access,
      {},
      { limit: 10, after: undefined, before: undefined, backward: false },
    );
    assert.deepEqual(
      list.items.map((a) => [a.name, a.company]),
      [["Ada Lovelace", "Analytical Engines"]],
    );

    const mail = await fx.mailbox.latest("ada@example.test");
    assert.match(mail.text, /you are registered for Harbour Conf/);
    const code = /Ticket code: ([0-9A-Z-]{19})/.exec(mail.text)?.[1];
    assert.ok(code, mail.text);
    const [qr] = mail.attachments;
    assert.equal(qr?.filename, `ticket-${code}.svg`);
    assert.equal(qr?.contentType, "image/svg+xml");
    assert.match(qr?.content ?? "", /^<svg [^>]*role="img"/);
    assert.equal(fx.mailbox.to("ada@example.test").length, 1, "a repeated submit sends no second email");
    const link = Mailbox.linkIn(mail, fx.server.url);
    assert.match(link, new RegExp(`^/e/${project.id}/registration/[A-Za-z0-9_-]{43}$`));
    const manage = await page.goto(`${fx.server.url}${link}`);
    assert.equal(manage?.headers()["referrer-policy"], "no-referrer");
    assert.ok(await page.getByText("Ada Lovelace", { exact: true }).isVisible());
    assert.ok(await page.getByText("Community pass", { exact: true }).isVisible());
    assert.ok(await page.getByText(code).isVisible());
    assert.ok(await page.getByRole("img", { name: "Ticket QR code of Ada Lovelace" }).isVisible());
    assert.deepEqual(await axeViolations(page), []);
    await page.getByRole("button", { name: "Cancel my registration" }).click();
    await page.getByText("This registration is cancelled.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Cancel my registration" }).count(), 0);
    const after = await fx.server.services.attendees.listAttendees(
      access,
      { status: "CANCELLED" },
      { limit: 10, after: undefined, before: undefined, backward: false },
    );
    assert.equal(after.items.length, 1);
  });

  test("the organizer closes registration in Settings → General and the page follows", async () => {
    const { project, user } = await seedEvent(fx.server);
    const page = await fx.desktop(user);
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${fx.server.url}/b/${project.id}/settings`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the settings page is ${overflow} px wider than a 390 px phone`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel("Registration open").uncheck();
    await page.getByLabel("Company on the registration form").selectOption("HIDDEN");
    await page.getByRole("button", { name: "Save page settings" }).click();
    await page.getByText("Event page settings saved.").waitFor();
    await page.goto(`${fx.server.url}/e/${project.id}`);
    assert.ok(await page.getByText("Registration on this page is closed.").isVisible());
    assert.equal(await page.getByRole("link", { name: /^Register/ }).count(), 0);
    await page.goto(`${fx.server.url}/b/${project.id}/settings`);
    await page.getByLabel("Show the event page").uncheck();
    await page.getByRole("button", { name: "Save page settings" }).click();
    await page.getByText("Event page settings saved; the page is off.").waitFor();
    assert.equal((await fetch(`${fx.server.url}/e/${project.id}`)).status, 404);
  });
});
