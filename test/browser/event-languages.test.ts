import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// Issue 43: the organizer offers the event in German and translates its name and a ticket; a visitor
// reads the page in German (by the browser's language, and by the switcher), registers, and receives
// the ticket email in German at a real SMTP server.
describeInBrowser("the event page in German in Chromium", { mailbox: true }, (fx) => {
  for (const width of [390, 1280]) {
    test(`offers German, reads it by Accept-Language and by the switcher, registers and mails in German (${width} px)`, async () => {
      const user = await createUser(fx.server.services);
      const { project } = await createProject(fx.server.services, {
        ownerId: user.id,
        input: {
          name: "Harbour Conf",
          description: "Two days by the sea.",
          status: "PUBLISHED",
          timezone: "Europe/Berlin",
          startsAt: "2026-05-04T07:00:00.000Z",
        },
      });
      await createTicketType(fx.server.services, userActor(user.id), project.id, {
        name: "Community pass",
        priceMinor: 0,
      });

      // The organizer: Settings › General › Languages, add German, then translate.
      const organizer = await fx.page(width, user);
      await organizer.goto(`${fx.server.url}/b/${project.id}/settings`);
      await organizer.getByRole("link", { name: "Languages and translations" }).click();
      const form = organizer.getByRole("form", { name: "Languages of the event page" });
      await form.getByLabel("Deutsch").check();
      await form.getByRole("button", { name: "Save languages" }).click();
      await organizer.getByText("Languages saved: English, Deutsch.").waitFor();
      const german = organizer.getByRole("group", { name: "Texts in Deutsch" });
      await german.getByLabel("Event name").fill("Hafenkonferenz");
      await german.getByLabel("Ticket “Community pass”").fill("Gemeinschaftsticket");
      await form.getByRole("button", { name: "Save languages" }).click();
      await organizer.getByText("Languages saved: English, Deutsch.").waitFor();
      assert.equal(await german.getByLabel("Event name").inputValue(), "Hafenkonferenz");
      await assertFits(organizer, "the languages page");
      await screenshot(organizer, `event-languages-settings-${width}`);

      // A visitor whose browser asks for German.
      const visitor = await fx.page(width, undefined, { locale: "de-DE" });
      await visitor.goto(`${fx.server.url}/e/${project.id}`);
      await visitor.getByRole("heading", { level: 1, name: "Hafenkonferenz" }).waitFor();
      assert.equal(await visitor.getAttribute("html", "lang"), "de");
      assert.ok(await visitor.getByText("Two days by the sea.").isVisible(), "untranslated text falls back");
      assert.ok(await visitor.getByText("Kostenlos").isVisible());
      await assertFits(visitor, "the German event page");
      await screenshot(visitor, `event-page-german-${width}`);

      // A visitor whose browser asks for English switches to German with the links (no script).
      const other = await fx.page(width, undefined, { locale: "en-GB", javaScriptEnabled: false });
      await other.goto(`${fx.server.url}/e/${project.id}`);
      await other.getByRole("heading", { level: 1, name: "Harbour Conf" }).waitFor();
      await other
        .getByRole("navigation", { name: "Language" })
        .getByRole("link", { name: "Deutsch" })
        .click();
      await other.getByRole("heading", { level: 1, name: "Hafenkonferenz" }).waitFor();
      await other.getByRole("link", { name: "Anmelden für Gemeinschaftsticket" }).click();
      await other.getByRole("heading", { name: "Anmeldung für Hafenkonferenz" }).waitFor();
      const email = `greta-${width}@example.org`;
      await other.getByLabel("Name", { exact: true }).fill("Greta Gast");
      await other.getByLabel("E-Mail").fill(email);
      await assertFits(other, "the German registration form");
      await screenshot(other, `event-register-german-${width}`);
      await other.getByRole("button", { name: "Anmelden" }).click();
      await other.getByRole("heading", { name: "Sehen Sie in Ihr Postfach" }).waitFor();

      const mail = await fx.mailbox.latest(email);
      assert.equal(mail.subject, "Ihre Anmeldung für Hafenkonferenz");
      assert.match(mail.text, /^Hallo Greta Gast,/);
      assert.match(mail.text, /Ticket: Gemeinschaftsticket/);
      assert.match(mail.text, /Zeigen Sie am Eingang den Ticket-Code/);
    });
  }
});
