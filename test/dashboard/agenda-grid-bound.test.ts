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
});
