import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../helpers/browser.js";
import { testEngines } from "../helpers/engines.js";
import {
  createAttendee,
  createProject,
  createSession,
  createTicketType,
  createUser,
  testPassword,
  userActor,
} from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const sqlite = testEngines().find((e) => e.name === "sqlite") ?? assert.fail("SQLite engine missing");

// The agenda, speaker, ticket, attendee and check-in pages, each at a phone's width and a desktop's: the page's
// heading shows, nothing is wider than the window (tables scroll inside their own box), and the
// main form's submit button can be reached.
describe("agenda, speaker, ticket, attendee and check-in pages at 390 px and 1280 px in Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    server = await startTestServer(sqlite);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser.close();
    await server.close();
  });

  for (const width of [390, 1280]) {
    test(`lays out every agenda, speaker, ticket, attendee and check-in page within ${width} px`, async () => {
      const user = await createUser(server.services, { name: "Ada Organizer" });
      const actor = userActor(user.id);
      const { project } = await createProject(server.services, {
        ownerId: user.id,
        input: { timezone: "UTC" },
      });
      const track = await server.services.agenda.createTrack(actor, { projectId: project.id, name: "Web" });
      const room = await server.services.agenda.createRoom(actor, {
        projectId: project.id,
        name: "Main hall",
      });
      const session = await createSession(server.services, actor, project.id, {
        title: "A rather long session title that has to wrap on a phone screen",
        trackId: track.id,
        roomId: room.id,
      });
      const ticketType = await createTicketType(server.services, actor, project.id);
      const attendee = await createAttendee(server.services, actor, project.id, ticketType.id, {
        name: "Grace Hopper",
        company: "US Navy",
      });

      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${server.url}/login`);
      await page.getByLabel("Email").fill(user.email);
      await page.getByLabel("Password").fill(testPassword);
      await page.getByRole("button", { name: "Log in" }).click();
      await page.getByRole("heading", { name: "Projects" }).waitFor();

      const base = `/b/${project.id}`;
      const pages: [string, string, string][] = [
        [`${base}/agenda`, "Sessions", "Add track"],
        [`${base}/agenda/sessions/new`, "New session", "Create session"],
        [`${base}/agenda/sessions/${session.id}`, "Edit session", "Save session"],
        [`${base}/agenda/tracks/${track.id}`, "Edit track", "Save track"],
        [`${base}/agenda/rooms/${room.id}`, "Edit room", "Save room"],
        [`${base}/speakers`, "Speakers", "Add speaker"],
        [`${base}/tickets`, "Ticket types", "Add ticket type"],
        [`${base}/tickets/${ticketType.id}`, "Edit ticket type", "Save ticket type"],
        [`${base}/attendees`, "Attendees", "Register"],
        [`${base}/attendees/${attendee.id}`, "Edit attendee", "Save attendee"],
        [`${base}/check-in?q=grace`, "Check-in", "Check in Grace Hopper"],
        ["/account", "Your account", "Delete my account"],
      ];
      for (const [path, heading, button] of pages) {
        const response = await page.goto(`${server.url}${path}`);
        assert.equal(response?.status(), 200, path);
        assert.ok(
          await page.getByRole("heading", { name: heading, exact: true }).isVisible(),
          `${path}: heading`,
        );
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow} px wider than the ${width} px window`);
        const submit = page.getByRole("button", { name: button, exact: true });
        await submit.scrollIntoViewIfNeeded();
        assert.ok(await submit.isVisible(), `${path}: ${button}`);
      }
      await context.close();
    });
  }
});
