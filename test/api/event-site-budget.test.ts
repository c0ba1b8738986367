import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { addressKey } from "../../src/shared/client-address.js";
import { sqliteEngine } from "../helpers/engines.js";
import { createPublishedProject, createSession } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// Issue 39: `/e/<id>?utm=<random>` rendered afresh each time (0.6 s of event loop for a large
// programme, a 1.1 MB page stored per render), and the site had no per-address limit. The pages
// read the database through the same services on both engines; what is tested here is the site's
// keying, paging and budget, so SQLite alone.

describe("the public event site: cache keys, paging and a per-address budget", () => {
  let server: TestServer;
  let projectId: string;
  before(async () => {
    server = await startTestServer(sqliteEngine);
    const { project, owner } = await createPublishedProject(server.services);
    projectId = project.id;
    for (let i = 0; i < 160; i++) {
      const startsAt = new Date(Date.UTC(2026, 9, 5, 8) + i * 3_600_000).toISOString();
      await createSession(server.services, owner, projectId, {
        title: `Talk ${i}`,
        startsAt,
        status: "PUBLISHED",
      });
    }
  });
  after(() => server.close());

  test("a query string that changes nothing is served from the cache", async () => {
    for (const path of [`/e/${projectId}`, `/e/${projectId}/agenda.ics`]) {
      const first = await fetch(`${server.url}${path}?utm=a`);
      await first.arrayBuffer();
      for (const query of ["?utm=b", "?v=123", ""]) {
        const again = await fetch(`${server.url}${path}${query}`);
        await again.arrayBuffer();
        assert.equal(again.headers.get("x-cache"), "hit", `${path}${query}`);
      }
    }
  });

  test("a long programme is paged: 150 sessions a page, a 404 past the last or for garbage", async () => {
    const first = await (await fetch(`${server.url}/e/${projectId}`)).text();
    assert.equal(first.match(/<h4>Talk \d+<\/h4>/g)?.length, 150);
    assert.match(first, /Page 1 of 2/);
    assert.match(first, new RegExp(`href="/e/${projectId}\\?page=2"`));
    const second = await (await fetch(`${server.url}/e/${projectId}?page=2`)).text();
    assert.equal(second.match(/<h4>Talk \d+<\/h4>/g)?.length, 10);
    assert.match(second, /<h4>Talk 159<\/h4>/);
    for (const page of ["3", "0", "abc", "1e3", "-1"]) {
      assert.equal((await fetch(`${server.url}/e/${projectId}?page=${page}`)).status, 404, page);
    }
    // The calendar feed is not paged: a subscription holds the whole programme.
    const calendar = await (await fetch(`${server.url}/e/${projectId}/agenda.ics`)).text();
    assert.equal(calendar.match(/BEGIN:VEVENT/g)?.length, 160);
  });

  test("renders of uncached pages are limited per address: 60 a minute, then 429", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 70; i++) {
      const response = await fetch(`${server.url}/e/${projectId}/speakers/nobody-${i}`);
      await response.arrayBuffer();
      statuses.push(response.status);
      if (response.status === 429) assert.equal(response.headers.get("retry-after"), "60");
    }
    assert.ok(
      statuses.slice(0, 50).every((s) => s === 404),
      statuses.join(),
    );
    assert.equal(statuses.at(-1), 429);
    // A cached page still answers: only renders were spent.
    assert.equal((await fetch(`${server.url}/e/${projectId}`)).status, 200);
  });

  test("an IPv6 /64 counts as one address; IPv4 and IPv4-mapped per address", () => {
    assert.equal(addressKey("2001:db8:1:2:aaaa::1"), addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"));
    assert.notEqual(addressKey("2001:db8:1:2::1"), addressKey("2001:db8:1:3::1"));
    assert.equal(addressKey("::ffff:192.0.2.1"), "192.0.2.1");
    assert.notEqual(addressKey("192.0.2.1"), addressKey("192.0.2.2"));
  });
});
