import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { encodeQR } from "@paulmillr/qr";
import type { Page } from "playwright-core";
import { describeInBrowser, launchBrowser, widths } from "../helpers/browser.js";
import { createAttendee, createProject, createTicketType, userActor } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";
import { temporaryFolder } from "../helpers/temporary.js";

/**
 * A Y4M video (what Chromium's fake camera plays) of a ticket's QR code on white, 8 px a module:
 * the camera test scans a real image through getUserMedia and the page's decoder.
 */
function qrVideo(text: string): string {
  const width = 640;
  const height = 480;
  const grid = encodeQR(text, "raw", { ecc: "medium", border: 4 });
  const scale = 8;
  const left = Math.floor((width - grid.length * scale) / 2);
  const top = Math.floor((height - grid.length * scale) / 2);
  const luma = Buffer.alloc(width * height, 255);
  grid.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (!dark) return;
      for (let dy = 0; dy < scale; dy++) {
        luma.fill(
          0,
          (top + y * scale + dy) * width + left + x * scale,
          (top + y * scale + dy) * width + left + (x + 1) * scale,
        );
      }
    });
  });
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128);
  const frame = Buffer.concat([Buffer.from("FRAME\n"), luma, chroma]);
  const file = join(temporaryFolder("eventgraph-door-"), "qr.y4m");
  writeFileSync(
    file,
    Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), frame, frame]),
  );
  return file;
}

describeInBrowser("check-in at the door in Chromium", {}, (fx) => {
  /** An organizer, a project in Tokyo time with two ticket types, and four attendees. */
  async function doorScene() {
    const { user, actor, project } = await createOrganizer(fx.server.services, {
      name: "Door Keeper",
      project: { timezone: "Asia/Tokyo" },
    });
    const standard = await createTicketType(fx.server.services, actor, project.id, { name: "Standard" });
    const vip = await createTicketType(fx.server.services, actor, project.id, { name: "VIP" });
    const grace = await createAttendee(fx.server.services, actor, project.id, standard.id, {
      name: "Grace Hopper",
    });
    const ivan = await createAttendee(fx.server.services, actor, project.id, vip.id, { name: "Ivan Sato" });
    const alan = await createAttendee(fx.server.services, actor, project.id, standard.id, {
      name: "Alan Turing",
    });
    await fx.server.services.attendees.cancelAttendee(actor, { id: alan.id });
    const { project: elsewhere } = await createProject(fx.server.services, { ownerId: user.id });
    const otherType = await createTicketType(fx.server.services, actor, elsewhere.id);
    const stranger = await createAttendee(fx.server.services, actor, elsewhere.id, otherType.id);
    return { user, project, grace, ivan, alan, stranger };
  }

  const result = (page: Page) => page.locator("[data-door-result]");
  async function typeCode(page: Page, code: string) {
    await page.getByLabel("Ticket code", { exact: true }).fill(code);
    await page.getByRole("button", { name: "Check in code" }).click();
  }

  for (const width of widths) {
    test(`checks a typed code in at once and says why another is refused, without a reload (${width} px)`, async () => {
      const scene = await doorScene();
      const page = await fx.page(width, scene.user);
      await page.goto(`${fx.server.url}/b/${scene.project.id}/check-in`);
      assert.equal(
        await page.evaluate(() => document.activeElement?.id),
        "search-q",
        "search focused on load",
      );
      await page.getByText("0 / 2").first().waitFor();
      // A marker on window survives only if the page is never reloaded.
      await page.evaluate(() => Object.assign(window, { doorMarker: 1 }));

      // Typed in lower case without dashes, as someone reads it off a crumpled printout.
      await typeCode(page, scene.grace.ticketCode.toLowerCase().replaceAll("-", " "));
      await result(page).getByText("Checked in", { exact: true }).waitFor();
      await result(page).getByText("Grace Hopper · Standard").waitFor();
      assert.match((await result(page).getAttribute("class")) ?? "", /door-result-ok/);
      await page.locator("[data-door-total]").getByText("1 / 2").waitFor();
      assert.equal(
        await page.evaluate(() => document.activeElement?.id),
        "door-code",
        "code field focused again",
      );

      await typeCode(page, scene.grace.ticketCode);
      await result(page)
        .getByText(/^Already checked in at \d\d:\d\d GMT\+9$/)
        .waitFor();
      assert.match((await result(page).getAttribute("class")) ?? "", /door-result-bad/);
      await typeCode(page, scene.alan.ticketCode);
      await result(page).getByText("Registration cancelled").waitFor();
      await typeCode(page, scene.stranger.ticketCode);
      await result(page).getByText("Ticket for another event").waitFor();
      await typeCode(page, "not a ticket");
      await result(page).getByText("Unknown ticket code").waitFor();
      assert.equal(await page.evaluate(() => (window as unknown as { doorMarker?: number }).doorMarker), 1);

      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the check-in page is ${overflow} px wider than ${width} px`);
      const active = await fx.server.services.checkins.activeByAttendeeIds([scene.grace.id, scene.alan.id]);
      assert.deepEqual([...active.keys()], [scene.grace.id]);
    });
  }

  test("finds a name typed in any order and checks the person in from the list without a reload", async () => {
    const scene = await doorScene();
    const page = await fx.phone(scene.user);
    await page.goto(`${fx.server.url}/b/${scene.project.id}/check-in`);
    await page.getByLabel("Find attendee").fill("sato ivan");
    await page.getByRole("button", { name: "Find" }).click();
    const card = page.getByRole("listitem").filter({ hasText: "Ivan Sato" });
    await card.getByText("VIP").waitFor();
    await card.getByText("registered").waitFor();
    await page.evaluate(() => Object.assign(window, { doorMarker: 1 }));
    await page.getByRole("button", { name: "Check in Ivan Sato" }).click();
    await result(page).getByText("Ivan Sato · VIP").waitFor();
    await card.getByText("Checked in").waitFor();
    assert.equal(await page.evaluate(() => (window as unknown as { doorMarker?: number }).doorMarker), 1);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "search-q");
  });

  test("checks in by code and by name without JavaScript, through ordinary form posts", async () => {
    const scene = await doorScene();
    const page = await fx.phone(scene.user, { javaScriptEnabled: false });
    await page.goto(`${fx.server.url}/b/${scene.project.id}/check-in`);
    await typeCode(page, scene.grace.ticketCode);
    await page.getByRole("status").filter({ hasText: "Checked in: Grace Hopper · Standard" }).waitFor();
    await page.getByText("1 / 2").first().waitFor();
    await page.getByLabel("Find attendee").fill("ivan");
    await page.getByRole("button", { name: "Find" }).click();
    await page.getByRole("button", { name: "Check in Ivan Sato" }).click();
    await page.getByRole("status").filter({ hasText: "Ivan Sato is checked in." }).waitFor();
    assert.equal(
      await page.getByRole("button", { name: "Scan" }).isVisible(),
      false,
      "no camera button without script",
    );
  });

  test("keeps scans made offline on the device and syncs them when the network returns, listing conflicts", async () => {
    const scene = await doorScene();
    // Someone at another door checks Ivan in while this phone is offline.
    const page = await fx.phone(scene.user);
    const context = page.context();
    await page.goto(`${fx.server.url}/b/${scene.project.id}/check-in`);
    await context.setOffline(true);
    await typeCode(page, scene.grace.ticketCode);
    await result(page).getByText("Saved on this device").waitFor();
    await typeCode(page, scene.ivan.ticketCode);
    await result(page)
      .getByText(/2 scans wait/)
      .waitFor();
    await fx.server.services.checkins.checkIn(userActor(scene.user.id), { attendeeId: scene.ivan.id });
    assert.equal((await fx.server.services.checkins.activeByAttendeeIds([scene.grace.id])).size, 0);
    const stored = await page.evaluate(
      (key) => localStorage.getItem(key),
      `eventgraph:door-queue:${scene.project.id}`,
    );
    assert.equal(JSON.parse(stored ?? "[]").length, 2);

    await context.setOffline(false);
    await page
      .locator("[data-door-conflicts]")
      .getByText(/Already checked in at .*Ivan Sato · VIP/)
      .waitFor();
    const left = await page.evaluate(
      (key) => localStorage.getItem(key),
      `eventgraph:door-queue:${scene.project.id}`,
    );
    assert.deepEqual(JSON.parse(left ?? "[]"), [], "the queue is empty once synced");
    assert.equal((await fx.server.services.checkins.activeByAttendeeIds([scene.grace.id])).size, 1);
    await page.locator("[data-door-total]").getByText("2 / 2").waitFor();
    // The conflict list survives a reload until someone clears it.
    await page.reload();
    await page
      .locator("[data-door-conflicts]")
      .getByText(/Ivan Sato/)
      .waitFor();
    await page.getByRole("button", { name: "Clear the list" }).click();
    assert.equal(await page.locator("[data-door-conflicts] li").count(), 0);
  });

  test("scans a ticket's QR code with the camera (the bundled decoder reads the frames)", async () => {
    const scene = await doorScene();
    const camera = await launchBrowser([
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-video-capture=${qrVideo(scene.grace.ticketCode)}`,
    ]);
    try {
      const context = await camera.newContext({ viewport: { width: 390, height: 800 } });
      await context.grantPermissions(["camera"], { origin: fx.server.url });
      const page = await context.newPage();
      await fx.logIn(page, scene.user);
      await page.goto(`${fx.server.url}/b/${scene.project.id}/check-in`);
      await page.getByRole("button", { name: "Scan" }).click();
      await result(page).getByText("Grace Hopper · Standard").waitFor({ timeout: 20_000 });
      await result(page).getByText("Checked in", { exact: true }).waitFor();
      // The same code stays in front of the camera: no second check-in, no "already" flashing up.
      await page.waitForTimeout(1_000);
      await result(page).getByText("Checked in", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Stop camera" }).click();
      assert.equal((await fx.server.services.checkins.activeByAttendeeIds([scene.grace.id])).size, 1);
      await context.close();
    } finally {
      await camera.close();
    }
  });
});
