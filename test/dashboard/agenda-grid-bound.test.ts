import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sqliteEngine } from "../helpers/engines.js";
import { createSession, userActor } from "../helpers/factories.js";
import { logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Issue 39: the agenda grid of 3,000 sessions held the event loop for 1.2–2.2 s. The page reads the
// agenda through the services both engines share; what is bounded is the rendering: SQLite alone.

describe("the agenda grid shows a bounded number of sessions", () => {
  const server = serverPerSuite(sqliteEngine);

  test("a day of 320 sessions shows the first 300 and says how to see the rest", async () => {
    const { user: owner, project } = await createOrganizer(server.services, { project: { timezone: "UTC" } });
    const actor = userActor(owner.id);
    for (let i = 0; i < 320; i++) {
      const startsAt = new Date(Date.UTC(2026, 9, 5, 8) + (i % 120) * 5 * 60_000).toISOString();
      await createSession(server.services, actor, project.id, { title: `Talk ${i}`, startsAt });
    }
    const client = await logIn(server.url, owner.email);
    const page = await client.get(`/b/${project.id}/agenda/grid`);
    assert.equal(page.status, 200);
    const cells = page.body.match(/agenda\/sessions\/[0-9a-f-]{36}"/g) ?? [];
    assert.equal(new Set(cells).size, 300);
    assert.match(
      page.body,
      /This day has 320 sessions matching these filters; the grid shows the\s+first 300/,
    );
  });

  // Issue 39: a page reads ten rooms of one day; a clash with a session on another page of rooms
  // (the same speaker) or on another day must still show, and every room and day must be reachable.
  test("pages through rooms ten at a time, every day reachable, clashes across pages marked", async () => {
    const { user: owner, project } = await createOrganizer(server.services, {
      project: { timezone: "Europe/Berlin" },
    });
    const actor = userActor(owner.id);
    const rooms = [];
    for (let i = 1; i <= 12; i++) {
      rooms.push(
        await server.services.agenda.createRoom(actor, {
          projectId: project.id,
          name: `Room ${String(i).padStart(2, "0")}`,
        }),
      );
    }
    const ada = await server.services.agenda.createSpeaker(actor, { projectId: project.id, name: "Ada" });
    const first = rooms[0]?.id ?? "";
    const last = rooms[11]?.id ?? "";
    await createSession(server.services, actor, project.id, {
      title: "Opening",
      startsAt: "2026-10-05T08:00:00.000Z",
      roomId: first,
      speakerIds: [ada.id],
    });
    await createSession(server.services, actor, project.id, {
      title: "Workshop",
      startsAt: "2026-10-05T08:15:00.000Z",
      roomId: last,
      speakerIds: [ada.id],
    });
    await createSession(server.services, actor, project.id, {
      title: "Unplaced",
      startsAt: "2026-10-05T09:00:00.000Z",
    });
    await createSession(server.services, actor, project.id, {
      title: "Day two",
      startsAt: "2026-10-06T08:00:00.000Z",
      roomId: first,
    });
    const client = await logIn(server.url, owner.email);

    const page1 = await client.get(`/b/${project.id}/agenda/grid`);
    assert.equal(page1.status, 200);
    const heads = (body: string) =>
      [...body.matchAll(/<th scope="col"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);
    assert.deepEqual(
      heads(page1.body).slice(1),
      rooms.slice(0, 10).map((r) => r.name),
    );
    assert.match(page1.body, /Opening/);
    assert.doesNotMatch(page1.body, /Workshop<\/a>|Unplaced|Day two/);
    assert.match(page1.body, /Ada speaks in “Opening” and “Workshop”/);
    const next = page1.body.match(/href="([^"]*after=[^"]*)"[^>]*>\s*Next 10 rooms/)?.[1];
    assert.ok(next, "a link to the next rooms");

    const page2 = await client.get(next.replaceAll("&amp;", "&"));
    assert.deepEqual(heads(page2.body).slice(1), [...rooms.slice(10).map((r) => r.name), "No room"]);
    assert.match(page2.body, /Workshop/);
    assert.match(page2.body, /Unplaced/);
    assert.match(page2.body, /grid-session grid-conflict/, "the clash with a room of the first page");
    assert.doesNotMatch(page2.body, /Next 10 rooms/);
    assert.match(page2.body, /First rooms/);

    const garbage = await client.get(`/b/${project.id}/agenda/grid?after=%00nonsense&day=${"9".repeat(500)}`);
    assert.equal(garbage.status, 400, "a cursor that is not one is refused, not a server error");
    const day2 = await client.get(`/b/${project.id}/agenda/grid?day=2026-10-06`);
    assert.match(day2.body, /Day two/);
    assert.doesNotMatch(day2.body, /Opening/);
  });
});
