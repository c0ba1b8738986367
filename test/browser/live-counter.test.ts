import assert from "node:assert/strict";
import { test } from "node:test";
import { describeInBrowser, widths } from "../helpers/browser.js";
import { createAttendee, createTicketType } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

// Issue #44: a phone at the door sees the count rise when another phone checks someone in, at once
// rather than at the next 20 s poll; the Overview's figure follows too. Without script both pages
// show what they were rendered with.
describeInBrowser("the door's live counter in Chromium", {}, (fx) => {
  async function doorScene() {
    const { user, actor, project } = await createOrganizer(fx.server.services, { name: "Door Keeper" });
    const standard = await createTicketType(fx.server.services, actor, project.id, { name: "Standard" });
    const grace = await createAttendee(fx.server.services, actor, project.id, standard.id, {
      name: "Grace Hopper",
    });
    const ivan = await createAttendee(fx.server.services, actor, project.id, standard.id, {
      name: "Ivan Sato",
    });
    return { user, actor, project, grace, ivan };
  }

  /** Waits until `count` pages follow the project's counts (their streams listen on the server). */
  async function following(projectId: string, count: number) {
    const deadline = Date.now() + 10_000;
    while (fx.server.services.live.listening(projectId) < count) {
      assert.ok(Date.now() < deadline, "the pages' live streams did not open");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  for (const width of widths) {
    test(`two door pages see each other's check-ins within a second (${width} px)`, async () => {
      const scene = await doorScene();
      const first = await fx.page(width, scene.user);
      const second = await fx.page(width, scene.user);
      const door = `${fx.server.url}/b/${scene.project.id}/check-in`;
      await Promise.all([first.goto(door), second.goto(door)]);
      await following(scene.project.id, 2);
      for (const page of [first, second])
        await page.locator("[data-door-total]").getByText("0 / 2").waitFor();

      await first.getByLabel("Ticket code", { exact: true }).fill(scene.grace.ticketCode);
      await first.getByRole("button", { name: "Check in code" }).click();
      await second.locator("[data-door-total]").getByText("1 / 2").waitFor({ timeout: 1_000 });

      // A check-in from anywhere else (an app, the API): both phones follow.
      await fx.server.services.checkins.checkIn(scene.actor, { attendeeId: scene.ivan.id });
      for (const page of [first, second]) {
        await page.locator("[data-door-total]").getByText("2 / 2").waitFor({ timeout: 1_000 });
      }
    });

    test(`the Overview's checked-in figure follows the door (${width} px)`, async () => {
      const scene = await doorScene();
      const page = await fx.page(width, scene.user);
      await page.goto(`${fx.server.url}/b/${scene.project.id}`);
      const figure = page.locator("[data-live-counts]");
      await figure.getByText("(0 of 2)").waitFor();
      await following(scene.project.id, 1);
      await fx.server.services.checkins.checkIn(scene.actor, { attendeeId: scene.grace.id });
      await figure.getByText("(1 of 2)").waitFor({ timeout: 1_000 });
      await figure.getByText("50%").waitFor();
    });
  }

  test("without script the door page shows the counts it was rendered with, and opens no stream", async () => {
    const scene = await doorScene();
    const page = await fx.page(widths[0], scene.user, { javaScriptEnabled: false });
    await page.goto(`${fx.server.url}/b/${scene.project.id}/check-in`);
    await page.locator("[data-door-total]").getByText("0 / 2").waitFor();
    assert.equal(fx.server.services.live.listening(scene.project.id), 0);
  });
});
