import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { parse } from "csv-parse/sync";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createAttendee, createProject, createTicketType, userActor } from "../helpers/factories.js";
import { Mailbox } from "../helpers/mailbox.js";

async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

// Issue 43, the waiting list: a visitor joins the line of a sold-out ticket on the event page (the
// phone without JavaScript), a seat frees, the offer arrives at a real SMTP server, the visitor
// takes the held seat from its link; the organizer sees the list and its states.
describeInBrowser("the waiting list in Chromium", { mailbox: true }, (fx) => {
  for (const width of [390, 1280]) {
    test(`join on the event page, receive the offer, take the seat (${width} px)`, async () => {
      const services = fx.server.services;
      const owner = userActor(fx.organizer.id);
      const { project } = await createProject(services, {
        ownerId: fx.organizer.id,
        input: { name: `Waitlist Conf ${width}`, status: "PUBLISHED", timezone: "Europe/Berlin" },
      });
      const type = await createTicketType(services, owner, project.id, {
        name: "Workshop",
        priceMinor: 0,
        quantity: 1,
      });
      const holder = await createAttendee(services, owner, project.id, type.id);
      const email = `wendy-${width}@example.org`;

      const visitor = await fx.page(width, undefined, { javaScriptEnabled: width !== 390 });
      await visitor.goto(`${fx.server.url}/e/${project.id}`);
      await visitor.getByText("Sold out").waitFor();
      assert.equal(await visitor.getByRole("link", { name: "Register for Workshop" }).count(), 0);
      await visitor.getByRole("link", { name: "Join the waiting list for Workshop" }).click();
      const form = visitor.getByRole("form", { name: "Waiting list" });
      assert.equal(await form.getByLabel("Ticket").inputValue(), type.id);
      await form.getByLabel("Name").fill("Wendy Waiting");
      await form.getByLabel("Email").fill(email);
      await assertFits(visitor, "the waiting list form");
      await screenshot(visitor, `waiting-list-join-${width}`);
      await form.getByRole("button", { name: "Join the waiting list" }).click();
      await visitor.getByRole("heading", { name: "You are on the waiting list" }).waitFor();

      // The seat frees; the worker's round (every process runs it periodically) offers it.
      await services.attendees.cancelAttendee(owner, { id: holder.id });
      assert.equal(await services.waitingList.serve(), 1);
      const offer = await fx.mailbox.latest(email);
      assert.match(offer.subject, /A seat for Waitlist Conf .* is held for you/);
      await visitor.goto(`${fx.server.url}${Mailbox.linkIn(offer, fx.server.url)}`);
      await visitor.getByRole("heading", { name: "A seat is held for you" }).waitFor();
      await visitor
        .getByText(/Workshop/)
        .first()
        .waitFor();
      await assertFits(visitor, "the offer page");
      await screenshot(visitor, `waiting-list-offer-${width}`);
      await visitor.getByRole("button", { name: "Take the seat" }).click();
      await visitor.getByRole("heading", { name: "You are registered" }).waitFor();
      await fx.mailbox.latest(email, /Your ticket for Waitlist Conf/);

      const organizer = await fx.page(width, fx.organizer);
      await organizer.goto(`${fx.server.url}/b/${project.id}/tickets`);
      await organizer.getByRole("link", { name: "Waiting list" }).click();
      const row = organizer.getByRole("row", { name: /Wendy Waiting/ });
      await row.getByText("Accepted").waitFor();
      await assertFits(organizer, "the dashboard's waiting list");
      await screenshot(organizer, `waiting-list-dashboard-${width}`);
      // The page's CSV is the CLI's export: here the one entry, its seat taken.
      const csvLink = organizer.getByRole("link", { name: "Download CSV" });
      const box = await csvLink.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= width, `Download CSV within ${width} px`);
      const [download] = await Promise.all([organizer.waitForEvent("download"), csvLink.click()]);
      assert.match(
        download.suggestedFilename(),
        new RegExp(`^waiting-list-${project.id}-\\d{4}-\\d\\d-\\d\\d\\.csv$`),
      );
      const exported = parse(await readFile((await download.path()) ?? assert.fail("no download")), {
        columns: true,
      }) as Record<string, string>[];
      assert.deepEqual(
        exported.map((r) => [r.place, r.ticket_type, r.name, r.email, r.state]),
        [["", "Workshop", "Wendy Waiting", email, "ACCEPTED"]],
      );
    });
  }

  test("the organizer offers a seat by hand and removes someone", async () => {
    const services = fx.server.services;
    const owner = userActor(fx.organizer.id);
    const { project } = await createProject(services, {
      ownerId: fx.organizer.id,
      input: { name: "Hand Conf", status: "PUBLISHED" },
    });
    const type = await createTicketType(services, owner, project.id, {
      name: "Seat",
      priceMinor: 0,
      quantity: 1,
    });
    const holder = await createAttendee(services, owner, project.id, type.id);
    for (const name of ["Ann", "Ben"]) {
      await services.waitingList.join(
        {
          projectId: project.id,
          ticketTypeId: type.id,
          name,
          email: `${name.toLowerCase()}-hand@example.org`,
        },
        "198.51.100.4",
      );
    }
    // The Tickets tab says why none remain while two people wait, at both widths.
    for (const width of [390, 1280]) {
      const tickets = await fx.page(width, fx.organizer);
      await tickets.goto(`${fx.server.url}/b/${project.id}/tickets`);
      const line = tickets.getByRole("row", { name: /Seat/ });
      await line.getByText("2 waiting").waitFor();
      assert.match((await line.innerText()).replace(/\s+/g, " "), /€0\.00 1 1 0 2 waiting/);
      await assertFits(tickets, "the Tickets tab");
      await screenshot(tickets, `tickets-waiting-${width}`);
    }
    const page = await fx.page(1280, fx.organizer);
    await page.goto(`${fx.server.url}/b/${project.id}/waiting-list`);
    // No seat is free: an offer by hand would oversell, and is refused with the reason.
    await page.getByRole("button", { name: "Send offer to Ben" }).click();
    await page.getByText(/No seat is free/).waitFor();
    await page.goto(`${fx.server.url}/b/${project.id}/waiting-list`);
    page.once("dialog", (dialog) => dialog.accept());
    await page.getByRole("button", { name: "Remove Ann" }).click();
    await page.getByText("Ann was removed from the waiting list.").waitFor();
    await page.getByRole("row", { name: /Ann/ }).getByText("Removed").waitFor();
    // The seat frees: the round (this server's periodic worker, or this call) offers it to Ben.
    await services.attendees.cancelAttendee(owner, { id: holder.id });
    await services.waitingList.serve();
    await page.reload();
    await page.getByRole("row", { name: /Ben/ }).getByText("Offered").waitFor();
    await fx.mailbox.latest("ben-hand@example.org");
  });
});
