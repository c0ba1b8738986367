import assert from "node:assert/strict";
import { test } from "node:test";
import { describeInBrowser } from "../helpers/browser.js";
import { createApp, createAttendee, createSession, createTicketType } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";

// Every dashboard page at a small phone's width, a common phone's and a desktop's: the page's
// heading shows, nothing is wider than the window, tables become cards on a phone (no sideways
// scrolling inside them either), Log out and every section tab can be reached, and the main
// form's submit button can be reached.
describeInBrowser("every dashboard page at 360, 390 and 1280 px in Chromium", {}, (fx) => {
  for (const width of [360, 390, 1280]) {
    test(`lays out every dashboard page within ${width} px`, async () => {
      const { user, actor, project } = await createOrganizer(fx.server.services, {
        name: "Ada Organizer",
        // Published, so its sold-out ticket type takes a waiting list.
        project: { timezone: "UTC", status: "PUBLISHED" },
      });
      const track = await fx.server.services.agenda.createTrack(actor, {
        projectId: project.id,
        name: "Web",
      });
      const room = await fx.server.services.agenda.createRoom(actor, {
        projectId: project.id,
        name: "Main hall",
      });
      const session = await createSession(fx.server.services, actor, project.id, {
        title: "A rather long session title that has to wrap on a phone screen",
        trackId: track.id,
        roomId: room.id,
      });
      const ticketType = await createTicketType(fx.server.services, actor, project.id);
      const attendee = await createAttendee(fx.server.services, actor, project.id, ticketType.id, {
        name: "Grace Hopper",
        company: "US Navy",
      });

      // A sold-out ticket type with someone waiting, and a registration question, so the Waiting
      // list and Questions pages show their tables.
      const seat = await createTicketType(fx.server.services, actor, project.id, {
        name: "Workshop seat with a long name",
        quantity: 1,
      });
      await createAttendee(fx.server.services, actor, project.id, seat.id);
      await fx.server.services.waitingList.join(
        {
          projectId: project.id,
          ticketTypeId: seat.id,
          name: "Katherine Johnson",
          email: `katherine-${width}@example.org`,
        },
        "198.51.100.7",
      );
      await fx.server.services.questions.createQuestion(actor, {
        projectId: project.id,
        label: "Any dietary needs we should know about before the conference dinner?",
        kind: "SHORT_TEXT",
      });

      const { app } = await createApp(fx.server.services, {
        projectId: project.id,
        ownerId: user.id,
        name: "Door App",
      });

      const page = await fx.page(width, user);

      const base = `/b/${project.id}`;
      const pages: [string, string, string | null][] = [
        ["/", "Projects", null],
        ["/projects/new", "New project", "Create project"],
        [base, project.name, null],
        [`${base}/agenda`, "Sessions", "Add track"],
        [`${base}/agenda/sessions/new`, "New session", "Create session"],
        [`${base}/agenda/sessions/${session.id}`, "Edit session", "Save session"],
        [`${base}/agenda/tracks/${track.id}`, "Edit track", "Save track"],
        [`${base}/agenda/rooms/${room.id}`, "Edit room", "Save room"],
        [`${base}/speakers`, "Speakers", "Add speaker"],
        [`${base}/tickets`, "Ticket types", "Add ticket type"],
        [`${base}/tickets/${ticketType.id}`, "Edit ticket type", "Save ticket type"],
        [`${base}/waiting-list`, "Waiting list", "Save"],
        [`${base}/questions`, "Registration questions", "Add question"],
        [`${base}/attendees`, "Attendees", "Register"],
        [`${base}/attendees/${attendee.id}`, "Edit attendee", "Save attendee"],
        [`${base}/attendees/${attendee.id}/erase`, "personal data?", "Erase personal data"],
        [`${base}/check-in?q=grace`, "Check-in", "Check in Grace Hopper"],
        [`${base}/orders`, "Orders", null],
        [`${base}/orders/statement`, "Import bank statement", "Import statement"],
        [`${base}/codes`, "Discount codes", "Add code"],
        ["/account", "Your account", "Delete my account"],
        [`${base}/settings`, "Settings", null],
        [`${base}/settings/api`, "Settings", null],
        [`${base}/settings/integrations`, "Settings", null],
        [`${base}/settings/members`, "Settings", null],
        [`${base}/settings/languages`, "Languages of the event page", "Save languages"],
        [`${base}/settings/api/apps/${app.id}`, "Door App", null],
        [`${base}/settings/api/apps/${app.id}/linked-projects`, "Door App", null],
        [`${base}/settings/api/apps/${app.id}/oauth`, "Door App", "Save and create client secret"],
        [`/connect/${app.id}`, "Door App", null],
      ];
      for (const [path, heading, button] of pages) {
        const response = await page.goto(`${fx.server.url}${path}`);
        assert.equal(response?.status(), 200, path);
        assert.ok(
          await page.getByRole("heading", { name: heading }).first().isVisible(),
          `${path}: heading ${heading}`,
        );
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        // The message names what sticks out, so a failure says where to look.
        const culprits = await page.evaluate(() =>
          [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
            .slice(-3)
            .map(
              (e) =>
                `${e.tagName.toLowerCase()}.${e.className} (${Math.round(e.getBoundingClientRect().right)} px)`,
            ),
        );
        assert.ok(
          overflow <= 0,
          `${path} is ${overflow} px wider than the ${width} px window: ${culprits.join(", ")}`,
        );
        const logOut = page.getByRole("button", { name: "Log out" });
        await logOut.scrollIntoViewIfNeeded();
        assert.ok(await logOut.isVisible(), `${path}: Log out`);
        if (path.startsWith(base)) {
          const tab = page
            .getByRole("navigation", { name: "Project" })
            .getByRole("link", { name: "Settings" });
          await tab.scrollIntoViewIfNeeded();
          assert.ok(await tab.isVisible(), `${path}: the Settings tab`);
        }
        if (width < 640) {
          // A table on a phone is a stack of cards: nothing in it scrolls sideways.
          const wide = await page.evaluate(
            () =>
              [...document.querySelectorAll(".table-wrap")].filter((w) => w.scrollWidth > w.clientWidth)
                .length,
          );
          assert.equal(wide, 0, `${path}: a table scrolls sideways at ${width} px`);
        }
        if (button) {
          const submit = page.getByRole("button", { name: button, exact: true });
          await submit.scrollIntoViewIfNeeded();
          assert.ok(await submit.isVisible(), `${path}: ${button}`);
        }
      }
    });
  }
});
