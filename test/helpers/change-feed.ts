import assert from "node:assert/strict";
import type { Services } from "../../src/services.js";

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

/** Waits until the server knows of every other process's write (PostgreSQL: its feed listens). */
export async function feedListens(services: Services): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (services.database.externalWrites() === undefined) {
    assert.ok(Date.now() < deadline, "the change feed did not start listening");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
