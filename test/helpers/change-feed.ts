import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { channel } from "../../src/db/change-feed.js";
import type { Services } from "../../src/services.js";
import type { AreaMask } from "../../src/shared/data-areas.js";

/**
 * Resolves once the next change of `projectId` committed by another process has reached this
 * server. PostgreSQL pushes other processes' commits through the change feed, a fraction of a
 * millisecond later (src/db/change-feed.ts); SQLite reads data_version on the next request, so
 * nothing needs to arrive. Call it before the write, await it after.
 */
export function changeArrives(services: Services, projectId: string): Promise<void> {
  const feed = services.database.changeFeed;
  if (!feed) return Promise.resolve();
  return new Promise((resolve) => {
    const off = feed.subscribe((id) => {
      if (id !== projectId) return;
      off();
      resolve();
    });
  });
}

/**
 * Waits until the server knows of every write committed so far by any process (PostgreSQL: its feed
 * listens, and a marker sent now has arrived; notifications arrive in commit order, so every earlier
 * one has too). Without the marker, a late notification of a test's own setup evicted or re-checked
 * what the test had just cached. The marker goes on a connection of its own: the feed leaves out
 * what the server's own connections send.
 */
export async function feedListens(services: Services): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (services.database.externalWrites() === undefined) {
    assert.ok(Date.now() < deadline, "the change feed did not start listening");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await markerArrives(services);
}

/**
 * Sends a marker naming the data areas `areas` (a mask; 0 names every area) on a connection of its
 * own and waits until this server's feed brings it back: every notification committed before it
 * has then arrived too. Without a feed (SQLite) there is nothing to wait for.
 */
export async function markerArrives(services: Services, areas: AreaMask = 0): Promise<void> {
  const feed = services.database.changeFeed;
  if (!feed) return;
  const marker = `caught-up-${randomUUID()}`;
  const arrived = new Promise<void>((resolve) => {
    const off = feed.subscribe((id) => {
      if (id !== marker) return;
      off();
      resolve();
    });
  });
  const client = new pg.Client({ connectionString: services.config.databaseUrl });
  await client.connect();
  try {
    await client.query("select pg_notify($1, $2)", [channel, `${marker}:${areas}`]);
  } finally {
    await client.end();
  }
  await arrived;
}
