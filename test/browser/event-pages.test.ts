import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createProject, createUser } from "../helpers/factories.js";
import { logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";

const xss = `<img src=x onerror=alert(1)><script>alert(2)</script>`;

describeInBrowser("agenda, tickets, attendees and check-in pages in Chromium", {}, (fx) => {
  /** A verified organizer with a project, logged in in a fresh browser context. */
  async function organizerPage(): Promise<{ page: Page; projectId: string; dialogs: string[] }> {
    const { user, project } = await createOrganizer(fx.server.services, {
      name: "Ada Organizer",
      project: { name: "NodeConf EU", timezone: "Europe/Dublin", startsAt: "2026-10-05T08:00:00Z" },
    });
    const page = await fx.desktop(user);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    return { page, projectId: project.id, dialogs };
  }

  const flash = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();

  test("edits the agenda: track, room, speaker, session; escapes names; deletes the session", async () => {
    const { page, projectId, dialogs } = await organizerPage();
    await page.goto(`${fx.server.url}/b/${projectId}/agenda`);
    await page.getByText("No sessions yet").waitFor();

    await page.getByRole("button", { name: "Add track" }).click();
    await page.getByText("Must not be empty").waitFor();
    await page.getByLabel("Track name").fill("Backend");
    await page.getByRole("button", { name: "Add track" }).click();
    await flash(page, "Track “Backend” added.");
    await page.getByLabel("Room name").fill("Main Hall");
    await page.getByLabel("Capacity").fill("12.5");
    await page.getByRole("button", { name: "Add room" }).click();
    await page.getByText("Must be a whole number").waitFor();
    assert.equal(await page.getByLabel("Room name").inputValue(), "Main Hall");
    await page.getByLabel("Capacity").fill("400");
    await page.getByRole("button", { name: "Add room" }).click();
    await flash(page, "Room “Main Hall” added.");

    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Speakers" }).click();
    await page.getByText("No speakers yet").waitFor();
    await page.getByLabel("Name").fill(xss);
    await page.getByLabel("Company").fill("NearForm");
    await page.getByRole("button", { name: "Add speaker" }).click();
    await flash(page, "added.");
    await page.getByRole("cell", { name: xss, exact: true }).waitFor();
    await page.getByLabel("Name").fill("Matteo Collina");
    await page.getByLabel("Job title").fill("Chief Software Architect");
    await page.getByLabel("Company").fill("Platformatic");
    await page.getByRole("button", { name: "Add speaker" }).click();
    await flash(page, "Speaker “Matteo Collina” added.");
    await screenshot(page, "speakers");

    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Agenda" }).click();
    await page.getByRole("link", { name: "New session" }).click();
    await page.getByLabel("Title").fill(`Streams ${xss}`);
    await page.getByLabel("Starts").fill("2026-10-05T10:00");
    await page.getByLabel("Ends").fill("2026-10-05T09:30");
    await page.getByLabel("Room").selectOption({ label: "Main Hall" });
    await page.getByLabel("Track").selectOption({ label: "Backend" });
    await page.getByLabel("Matteo Collina").check();
    await page.getByRole("button", { name: "Create session" }).click();
    await page.getByText("Ends must be after Starts.").waitFor();
    // Kept on error: the title, the room and the checked speaker.
    assert.equal(await page.getByLabel("Title").inputValue(), `Streams ${xss}`);
    assert.equal(await page.getByLabel("Matteo Collina").isChecked(), true);
    await page.getByLabel("Ends").fill("2026-10-05T10:45");
    await page.getByLabel("Status").selectOption("PUBLISHED");
    await page.getByRole("button", { name: "Create session" }).click();
    await flash(page, "created.");
    const card = page.getByRole("listitem").filter({ hasText: "Streams" });
    await card.getByText("10:00–10:45 · Main Hall · Backend").waitFor();
    await card.getByRole("list", { name: "Speakers" }).getByText("Matteo Collina").waitFor();
    await card.getByText(`Streams ${xss}`).waitFor();

    const sessions = await fx.server.services.agenda.listSessions(
      await fx.server.services.access.require({ kind: "system" }, projectId),
      { statuses: ["PUBLISHED"] },
      { limit: 10, after: undefined, before: undefined, backward: false },
    );
    // 10:00 in Dublin in October (IST, UTC+1) is 09:00 UTC.
    assert.equal(sessions.items[0]?.startsAt, "2026-10-05T09:00:00.000Z");

    await card.getByRole("link", { name: `Streams ${xss}` }).click();
    await page.getByLabel("Title").fill("Node.js Streams in depth");
    await page.getByRole("button", { name: "Save session" }).click();
    await flash(page, "Session “Node.js Streams in depth” saved.");
    await screenshot(page, "agenda");
    await page.getByRole("link", { name: "Node.js Streams in depth" }).click();
    await page.getByRole("button", { name: "Delete session" }).click();
    await flash(page, "Session “Node.js Streams in depth” deleted.");
    await page.getByText("No sessions yet").waitFor();
    assert.deepEqual(dialogs, ["Delete the session “Node.js Streams in depth”? This cannot be undone."]);
  });

  test("registers attendees, searches, checks one in, undoes it and cancels a registration", async () => {
    const { page, projectId, dialogs } = await organizerPage();
    await page.goto(`${fx.server.url}/b/${projectId}/attendees`);
    await page.getByRole("link", { name: "ticket type" }).click();
    await page.getByText("No ticket types yet").waitFor();
    await page.getByLabel("Name").fill("Early bird");
    await page.getByLabel("Quantity").fill("2");
    await page.getByLabel("Price").fill("49.999");
    await page.getByRole("button", { name: "Add ticket type" }).click();
    await page.getByText("Must be an amount such as 49.00").waitFor();
    await page.getByLabel("Price").fill("49.50");
    await page.getByRole("button", { name: "Add ticket type" }).click();
    await flash(page, "Ticket type “Early bird” added.");
    const row = page.getByRole("row").filter({ hasText: "Early bird" });
    await row.getByRole("cell", { name: "€49.50" }).waitFor();

    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Attendees" }).click();
    await page.getByText("No attendees yet").waitFor();
    for (const [name, email] of [
      ["Grace Hopper", "grace@example.test"],
      ["Alan Turing", "alan@example.test"],
    ] as const) {
      await page.getByLabel("Name").fill(name);
      await page.getByLabel("Email", { exact: true }).fill(email);
      await page.getByRole("button", { name: "Register" }).click();
      await flash(page, `${name} is registered.`);
    }
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Email", { exact: true }).fill("ada@example.test");
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByText("Is sold out").waitFor();
    assert.equal(await page.getByLabel("Name").inputValue(), "Ada Lovelace");

    await page.getByLabel("Search attendees").fill("grace");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("cell", { name: /^Grace Hopper grace@/ }).waitFor();
    assert.equal(await page.getByRole("cell", { name: /^Alan Turing/ }).count(), 0);
    await screenshot(page, "attendees");

    await page.goto(`${fx.server.url}/b/${projectId}/tickets`);
    await page
      .getByRole("row")
      .filter({ hasText: "Early bird" })
      .getByRole("cell", { name: "2" })
      .first()
      .waitFor();
    await screenshot(page, "tickets");
    // A ticket type with registrations cannot go: the page says why and keeps it.
    await page.getByRole("button", { name: "Delete ticket type Early bird" }).click();
    await page.getByRole("alert").filter({ hasText: "registrations" }).waitFor();
    await page.getByRole("row").filter({ hasText: "Early bird" }).waitFor();

    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Check-in" }).click();
    await page.getByLabel("Find attendee").fill("Hopper");
    await page.getByRole("button", { name: "Find" }).click();
    // The page's script checks in without a reload and answers in the door's result box.
    await page.getByRole("button", { name: "Check in Grace Hopper" }).click();
    await flash(page, "Checked in");
    await page.reload();
    await page.getByText(/Checked in \d\d:\d\d/).waitFor();
    await screenshot(page, "check-in");
    await page.getByRole("button", { name: "Undo check-in of Grace Hopper" }).click();
    await flash(page, "The check-in of Grace Hopper was undone.");
    await page.getByRole("button", { name: "Check in Grace Hopper" }).waitFor();

    await page.goto(`${fx.server.url}/b/${projectId}/attendees`);
    await page.getByRole("button", { name: "Cancel registration of Alan Turing" }).click();
    await flash(page, "The registration of Alan Turing is cancelled.");
    assert.deepEqual(dialogs, [
      "Delete the ticket type “Early bird”?",
      "Cancel the registration of Alan Turing?",
    ]);
    // A cancelled registration is found, says so, and has no check-in button.
    await page.goto(`${fx.server.url}/b/${projectId}/check-in?q=alan`);
    await page.getByRole("listitem").filter({ hasText: "Alan Turing" }).getByText("cancelled").waitFor();
    assert.equal(await page.getByRole("button", { name: "Check in Alan Turing" }).count(), 0);
  });

  test("shows none of a project's pages to a logged-in stranger", async () => {
    const { project } = await createProject(fx.server.services);
    const stranger = await createUser(fx.server.services);
    const client = await logIn(fx.server.url, stranger.email);
    for (const section of ["agenda", "speakers", "tickets", "attendees", "check-in", "agenda/sessions/new"]) {
      assert.equal((await client.get(`/b/${project.id}/${section}`)).status, 404, section);
    }
    await client.get("/");
    assert.equal((await client.post(`/b/${project.id}/agenda/tracks`, { name: "Intruder" })).status, 404);
  });
});
