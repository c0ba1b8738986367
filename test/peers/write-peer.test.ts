import assert from "node:assert/strict";
import { test } from "node:test";
import { prepareDataset } from "../../bench/datasets.js";
import { startCheckInPeer, startEventgraph, unthrottled } from "../../bench/processes.js";
import { checkInScenario, comparableData, headersOf, registeredAttendeeIds } from "../../bench/scenarios.js";
import { openDatabase } from "../../src/db/database.js";
import { testEngines } from "../helpers/engines.js";

// The write peer (bench/peers/checkin-peer.ts) is what `npm run bench` holds Eventgraph's check-ins
// against: it must run the same writes, answer the same data, and write only to its own copy.

async function checkInEntries(url: string): Promise<number> {
  const database = openDatabase(url);
  try {
    const row = await database.db
      .selectFrom("audit_events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("action", "in", ["checkin.created", "checkin.undone"])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await database.close();
  }
}

for (const engine of testEngines()) {
  test(`${engine.name}: the write peer checks in and undoes on its own copy, answering as Eventgraph does`, async () => {
    const dataset = await prepareDataset(
      { engine: engine.name, scale: 1 },
      process.env.DATABASE_URL_POSTGRES ?? "",
    );
    const stops: (() => Promise<void>)[] = [];
    try {
      const copy = await dataset.copy();
      const before = await checkInEntries(dataset.databaseUrl);
      const eventgraph = await startEventgraph({
        ...unthrottled,
        DATABASE_URL: dataset.databaseUrl,
        LOG_LEVEL: "warn",
      });
      stops.push(() => eventgraph.stop());
      const peer = await startCheckInPeer(copy);
      stops.push(() => peer.stop());
      const ids = await registeredAttendeeIds(eventgraph.url, dataset.projectId, dataset.token, 1);
      const scenario = checkInScenario(ids.slice(0, 6));
      // A pass of check-ins (some of these attendees are in already: a repeat answers the check-in
      // there is), then a pass of undos.
      for (let n = 0; n < 12; n++) {
        const post = async (url: string) => {
          const response = await fetch(`${url}/api/graphql`, {
            method: "POST",
            headers: headersOf(scenario, dataset),
            body: scenario.body(n),
          });
          assert.equal(response.status, 200);
          return comparableData(await response.text(), scenario);
        };
        const expected = await post(eventgraph.url);
        assert.match(expected, n < 6 ? /"checkedInAt":"<time>"/ : /"undoneAt":"<time>"/);
        assert.equal(await post(peer.url), expected, `request ${n}`);
      }
      // Each side wrote its audit entries to its own database, as many as the other.
      const ours = (await checkInEntries(dataset.databaseUrl)) - before;
      const theirs = (await checkInEntries(copy)) - before;
      assert.ok(ours >= 6, `Eventgraph wrote ${ours} entries`);
      assert.equal(theirs, ours);
    } finally {
      for (const stop of stops.reverse()) await stop();
      await dataset.dispose();
    }
  });
}
