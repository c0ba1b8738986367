import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import {
  createAttendee,
  createProject,
  createTicketType,
  createUser,
  userActor,
} from "../helpers/factories.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

/** The current minute in UTC as a datetime-local value: a time already due when the form is sent. */
function thisMinute(): string {
  return new Date().toISOString().slice(0, 16);
}

// Issue 43: the organizer writes a message to the speakers, previews it with one speaker's details,
// schedules it, and the speaker receives it at a real SMTP server; the list counts it as sent.
describeInBrowser("messages to attendees in Chromium", { mailbox: true }, (fx) => {
  for (const width of [390, 1280]) {
    test(`writes, previews, schedules and delivers a message (${width} px)`, async () => {
      const user = await createUser(fx.server.services);
      const owner = userActor(user.id);
      const { project } = await createProject(fx.server.services, {
        ownerId: user.id,
        input: { name: "Mail Conf", status: "PUBLISHED", timezone: "UTC" },
      });
      const standard = await createTicketType(fx.server.services, owner, project.id, { name: "Conference" });
      const speaker = await createTicketType(fx.server.services, owner, project.id, { name: "Speaker" });
      const sam = await createAttendee(fx.server.services, owner, project.id, speaker.id, {
        name: "Sam <b>Speaker</b>",
        email: `sam-${width}@example.org`,
      });
      const ann = await createAttendee(fx.server.services, owner, project.id, standard.id, {
        name: "Ann Attendee",
        email: `ann-${width}@example.org`,
      });

      const page = await fx.page(width, user);
      await page.goto(`${fx.server.url}/b/${project.id}/attendees`);
      await page.getByRole("link", { name: "Messages" }).click();
      await page.getByText("No messages yet").waitFor();
      const form = page.getByRole("form", { name: "Write a message" });
      await form.getByLabel("Subject").fill("Speaker briefing for {{name}}");
      await form.getByLabel("Message").fill("Hello {{name}},\nyour code is {{ticketCode}}.");
      await form.getByLabel("Ticket type").selectOption({ label: "Speaker" });
      await form.getByRole("button", { name: "Preview" }).click();
      await page.getByText("Reaches 1 attendee").waitFor();
      // The name is shown as the text it is: no markup from an attendee's details.
      await page.getByText("Subject: Speaker briefing for Sam <b>Speaker</b>").waitFor();
      assert.equal(await page.locator(".message-preview b").count(), 0);
      await assertFits(page, "the preview");
      await screenshot(page, `message-preview-${width}`);

      await form.getByLabel("Send").selectOption({ label: "At a time" });
      await form.getByLabel("Time").fill(thisMinute());
      await form.getByRole("button", { name: "Send" }).click();
      await page.getByText(/Message to 1 attendees queued/).waitFor();

      const mail = await fx.mailbox.latest(sam.email);
      assert.equal(mail.subject, "Speaker briefing for Sam <b>Speaker</b>");
      assert.match(mail.text, /Hello Sam <b>Speaker<\/b>,\r?\nyour code is [\w-]+\./);
      assert.equal(
        fx.mailbox.to(ann.email).filter((m) => m.subject.startsWith("Speaker briefing")).length,
        0,
        "only the speakers",
      );
      // The worker records the result just after the SMTP server answered. (The counts are read cell
      // by cell: the row's text runs them together with the phone layout's labels.)
      const row = page.getByRole("row", { name: /Speaker briefing/ });
      const counts = () => row.locator("td.num").allTextContents();
      for (let i = 0; i < 50 && (await counts()).join() !== "1,0,0,0"; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await page.reload();
      }
      assert.deepEqual(await counts(), ["1", "0", "0", "0"]);
      await assertFits(page, "the list of messages");
      await screenshot(page, `messages-${width}`);

      // The message is kept with its recipients: Sam sent, the body as written.
      await page.getByRole("link", { name: "Speaker briefing for {{name}}" }).click();
      // A located row, not a role: on a phone the table's rows are laid out as cards.
      const samRow = page.locator("tr", { hasText: "Sam <b>Speaker</b>" });
      await samRow.getByText("Sent", { exact: true }).waitFor();
      await page.getByText("your code is {{ticketCode}}.").waitFor();
      await assertFits(page, "a message's recipients");
    });
  }
});
