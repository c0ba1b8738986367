import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot } from "../helpers/browser.js";
import { createApp, createAttendee, createSession, createTicketType } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

/** Whether an element lies wholly inside the window horizontally (not clipped, not scrolled away). */
function insideWindow(page: Page, selector: string): Promise<boolean> {
  return page
    .locator(selector)
    .first()
    .evaluate((e) => {
      const box = e.getBoundingClientRect();
      let clip: Element | null = e.parentElement;
      // A scrolling ancestor (.table-wrap) hides what lies beyond its own right edge.
      for (; clip; clip = clip.parentElement) {
        const right = clip.getBoundingClientRect().right;
        if (getComputedStyle(clip).overflowX !== "visible" && box.right > right + 0.5) return false;
      }
      return box.left >= 0 && box.right <= window.innerWidth;
    });
}

// Issue 38, "Layout": what a new organizer saw clipped, stretched, unstyled or said twice.
describeInBrowser("layout fixes of issue 38 in Chromium", {}, (fx) => {
  for (const width of [390, 1280]) {
    test(`attendee table, new-project form, audit filters, labels and conflicts (${width} px)`, async () => {
      const { user, actor, project } = await createOrganizer(fx.server.services, {
        name: "Ada Organizer",
        project: {
          timezone: "UTC",
          startsAt: "2026-05-04T08:00:00.000Z",
          endsAt: "2026-05-05T18:00:00.000Z",
        },
      });
      const standard = await createTicketType(fx.server.services, actor, project.id, {
        name: "Early bird conference pass",
      });
      await createAttendee(fx.server.services, actor, project.id, standard.id, {
        name: "Maximiliane Wolkenstein-Rodenegg",
        email: "maximiliane.wolkenstein-rodenegg@very-long-company-name.example.org",
        company: "Internationale Gesellschaft für Veranstaltungen",
      });
      const hall = await fx.server.services.agenda.createRoom(actor, { projectId: project.id, name: "Hall" });
      const grace = await fx.server.services.agenda.createSpeaker(actor, {
        projectId: project.id,
        name: "Grace",
      });
      for (const [title, startsAt] of [
        ["Keynote", "2026-05-04T09:00:00.000Z"],
        ["Panel", "2026-05-04T09:30:00.000Z"],
      ] as const) {
        await createSession(fx.server.services, actor, project.id, {
          title,
          startsAt,
          roomId: hall.id,
          speakerIds: [grace.id],
        });
      }
      const { app } = await createApp(fx.server.services, { projectId: project.id, ownerId: user.id });

      const page = await fx.page(width, user, { viewport: { width, height: 860 } });

      // The attendee table: Edit and Cancel are on screen, not behind a scrolled edge.
      await page.goto(`${fx.server.url}/b/${project.id}/attendees`);
      if (width === 1280) {
        // Nothing of the table behind a scrolled edge: its wrapper has no horizontal overflow.
        const hidden = await page
          .locator(".table-wrap")
          .first()
          .evaluate((e) => e.scrollWidth - e.clientWidth);
        assert.ok(hidden <= 0, `${hidden} px of the attendee table are scrolled out of view at 1280 px`);
        assert.ok(await insideWindow(page, ".row-actions a"), "Edit is visible at 1280 px");
        assert.ok(await insideWindow(page, ".row-actions button"), "Cancel is visible at 1280 px");
      }
      await screenshot(page, `layout-attendees-${width}`);

      // The new-project form: Ends stays inside its column, City is as tall as any text input.
      await page.goto(`${fx.server.url}/projects/new`);
      await screenshot(page, `layout-new-project-${width}`);
      const box = (label: string) =>
        page
          .getByLabel(new RegExp(`^${label}`))
          .first()
          .evaluate((e) => {
            const r = e.getBoundingClientRect();
            const form = e.closest("form")?.getBoundingClientRect();
            return { right: r.right, height: r.height, formRight: form?.right ?? 0 };
          });
      const ends = await box("Ends");
      const starts = await box("Starts");
      assert.ok(
        ends.right <= ends.formRight + 0.5,
        `Ends overflows its form by ${ends.right - ends.formRight} px`,
      );
      assert.ok(starts.right <= ends.formRight + 0.5);
      assert.equal((await box("City")).height, (await box("Event name")).height, "City is not stretched");

      // The audit log's date filters look like the other inputs.
      await page.goto(`${fx.server.url}/b/${project.id}/settings/audit`);
      const from = page.getByLabel("From");
      const style = await from.evaluate((e) => ({
        border: getComputedStyle(e).borderTopStyle,
        radius: getComputedStyle(e).borderTopLeftRadius,
      }));
      assert.deepEqual(style, { border: "solid", radius: "8px" });

      // Labels say things once.
      await page.goto(`${fx.server.url}/b/${project.id}/settings/api/apps/${app.id}`);
      const createdBy = page
        .locator("dt", { hasText: "Created by" })
        .locator("xpath=following-sibling::dd[1]");
      assert.equal((await createdBy.innerText()).trim(), "Ada Organizer");
      await page.goto(`${fx.server.url}/b/${project.id}/settings/api/apps/${app.id}/webhooks`);
      const fragments = await page.locator("label", { hasText: "Payload fragments" }).innerText();
      assert.equal(fragments.match(/\(optional\)/g)?.length, 1, fragments);

      // Each agenda conflict once in the day's list (both sessions' cells stay marked).
      await page.goto(`${fx.server.url}/b/${project.id}/agenda/grid`);
      const listed = await page.locator("section.conflicts li").allInnerTexts();
      assert.equal(listed.length, 2, listed.join(" | "));
      assert.ok(listed.some((l) => /^“(Keynote|Panel)” and “(Keynote|Panel)” overlap in Hall\.$/.test(l)));
      assert.ok(
        listed.some((l) =>
          /^Grace speaks in “(Keynote|Panel)” and “(Keynote|Panel)” at the same time\.$/.test(l),
        ),
      );
      assert.match(await page.locator("#conflicts-heading").innerText(), /^2 conflicts on this day$/);
    });
  }
});
