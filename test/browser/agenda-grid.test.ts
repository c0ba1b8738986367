import assert from "node:assert/strict";
import { test } from "node:test";
import { describeInBrowser, widths } from "../helpers/browser.js";
import { createSession } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

// The agenda grid (rooms × time per day, filters, track colours, conflicts) and conflicts told on
// save, at a phone's width and a desktop's.
describeInBrowser("agenda grid and conflicts in Chromium at 390 px and 1280 px", {}, (fx) => {
  for (const width of widths) {
    test(`shows the day's sessions by room with clashes marked, filters, and warns on save (${width} px)`, async () => {
      const { server } = fx;
      const { user, actor, project } = await createOrganizer(server.services, {
        name: "Ada Organizer",
        project: {
          timezone: "UTC",
          startsAt: "2026-05-04T08:00:00.000Z",
          endsAt: "2026-05-05T18:00:00.000Z",
        },
      });
      const agenda = server.services.agenda;
      const web = await agenda.createTrack(actor, { projectId: project.id, name: "Web" });
      await agenda.updateTrack(actor, { id: web.id, name: "Web", color: "#1f77b4" });
      const hall = await agenda.createRoom(actor, { projectId: project.id, name: "Hall" });
      const lab = await agenda.createRoom(actor, { projectId: project.id, name: "Lab" });
      const grace = await agenda.createSpeaker(actor, { projectId: project.id, name: "Grace Hopper" });
      await agenda.createSpeaker(actor, { projectId: project.id, name: "Alan Turing" });
      const keynote = await createSession(server.services, actor, project.id, {
        title: "Keynote",
        startsAt: "2026-05-04T09:00:00.000Z",
        roomId: hall.id,
        trackId: web.id,
        speakerIds: [grace.id],
      });
      await createSession(server.services, actor, project.id, {
        title: "Panel",
        startsAt: "2026-05-04T09:30:00.000Z",
        roomId: hall.id,
      });
      await createSession(server.services, actor, project.id, {
        title: "Workshop",
        startsAt: "2026-05-04T11:00:00.000Z",
        roomId: lab.id,
      });
      await createSession(server.services, actor, project.id, {
        title: "Day two opening",
        startsAt: "2026-05-05T09:00:00.000Z",
        roomId: hall.id,
      });

      const page = await fx.page(width, user);

      const base = `${server.url}/b/${project.id}/agenda`;
      await page.goto(base);
      await page.getByRole("link", { name: "Grid view" }).click();
      await page.getByRole("heading", { name: "Agenda grid" }).waitFor();
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok((await overflow()) <= 0, `the grid page is wider than ${width} px`);

      // Day one by default: its sessions, not day two's; the rooms are the columns.
      const grid = page.locator("table.agenda-grid");
      assert.deepEqual(await grid.locator("thead th").allTextContents(), ["Time (UTC)", "Hall", "Lab"]);
      for (const title of ["Keynote", "Panel", "Workshop"])
        assert.ok(await grid.getByRole("link", { name: title }).isVisible());
      assert.equal(await grid.getByRole("link", { name: "Day two opening" }).count(), 0);
      // The clash is listed above the grid and both cells are marked.
      // Named once, from either session's side.
      assert.ok(
        await page
          .getByText(/^“(Keynote|Panel)” and “(Keynote|Panel)” overlap in Hall\.$/)
          .first()
          .isVisible(),
      );
      assert.equal(await grid.locator("td.grid-conflict").count(), 2);
      assert.equal(await grid.locator("td.grid-session:not(.grid-conflict)").count(), 1);
      // The track's colour.
      assert.equal(await grid.locator("td.grid-session rect").first().getAttribute("fill"), "#1F77B4");

      // Filters are a GET form: the Lab only, then day two.
      await page.getByLabel("Room").selectOption({ label: "Lab" });
      await page.getByRole("button", { name: "Show" }).click();
      await page.waitForURL(/room=/);
      assert.deepEqual(await grid.locator("thead th").allTextContents(), ["Time (UTC)", "Lab"]);
      assert.equal(await grid.getByRole("link", { name: "Keynote" }).count(), 0);
      await page.getByLabel("Room").selectOption({ label: "All rooms" });
      await page.getByLabel("Day").selectOption({ index: 1 });
      await page.getByRole("button", { name: "Show" }).click();
      await page.waitForURL(/day=2026-05-05/);
      assert.ok(await grid.getByRole("link", { name: "Day two opening" }).isVisible());
      assert.ok((await overflow()) <= 0);

      // A new session starts on the event's first day; saving a clash is allowed, and told.
      await page.goto(`${base}/sessions/new`);
      assert.equal(await page.getByLabel("Starts").inputValue(), "2026-05-04T08:00");
      await page.getByLabel("Title").fill("Second keynote");
      await page.getByLabel("Starts").fill("2026-05-04T09:15");
      await page.getByLabel("Ends").fill("2026-05-04T09:45");
      await page.getByLabel("Room").selectOption({ label: "Hall" });
      // The speaker picker narrows as one types, words in any order.
      await page.getByLabel("Find a speaker").fill("hopper grace");
      assert.equal(await page.getByLabel("Alan Turing").isVisible(), false);
      await page.getByLabel("Grace Hopper").check();
      await page.getByRole("button", { name: "Create session" }).click();
      await page.getByText("Session “Second keynote” created.").waitFor();
      assert.ok(
        await page
          .getByText("Grace Hopper speaks in “Second keynote” and “Keynote” at the same time.", {
            exact: false,
          })
          .isVisible(),
      );

      // A session's chosen speakers come first in its picker (Alan would sort before Grace).
      await page.goto(`${base}/sessions/${keynote.id}`);
      assert.equal(await page.locator("input[name=speakerIds]").first().getAttribute("value"), grace.id);
      assert.ok((await overflow()) <= 0);
    });
  }
});
