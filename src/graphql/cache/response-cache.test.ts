import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { areaBit } from "../../shared/data-areas.js";
import { callerView, responseCacheKey } from "./cache-key.js";

const publicView = callerView("2026-09-01", { kind: "public" });
const appView = (appId: string) => callerView("2026-09-01", { kind: "app", appId, permissions: [] });

import { ResponseCache } from "./response-cache.js";

const query = `query Q($id: ID!) { project(id: $id) { name } }`;
const keyFor = (projectId: string, view = publicView) =>
  responseCacheKey({ view, query, operationName: "Q", variables: { id: projectId } });
const body = (text: string) => Buffer.from(JSON.stringify({ data: { text } }));

describe("response cache", () => {
  test("misses what was never stored and serves the exact bytes that were", () => {
    const cache = new ResponseCache();
    assert.equal(cache.get(keyFor("AAAA")), undefined);
    assert.equal(cache.store(keyFor("AAAA"), body("a"), ["AAAA"], cache.begin()), true);
    assert.deepEqual(cache.get(keyFor("AAAA")), body("a"));
    const stats = {
      hits: 1,
      laneHits: 0,
      misses: 1,
      refused: 0,
      entries: 1,
      bytes: body("a").byteLength + keyFor("AAAA").length + 1024,
    };
    assert.deepEqual(cache.stats(), stats);
    // The hit lane's look counts nothing; what it serves counts as a hit of its own.
    assert.deepEqual(cache.peek(keyFor("AAAA"))?.body, body("a"));
    assert.equal(cache.peek(keyFor("BBBB")), undefined);
    assert.deepEqual(cache.stats(), stats);
    cache.countLaneHit();
    assert.deepEqual(cache.stats(), { ...stats, hits: 2, laneHits: 1 });
  });

  test("drops exactly the entries that read an invalidated project", () => {
    const cache = new ResponseCache();
    const mark = cache.begin();
    cache.store(keyFor("AAAA"), body("a"), ["AAAA"], mark);
    cache.store(keyFor("BBBB"), body("b"), ["BBBB"], mark);
    cache.store(keyFor("AAAA", appView("x")), body("ab"), ["AAAA", "BBBB"], mark);
    cache.store(keyFor("CCCC"), body("c"), ["CCCC"], mark);
    cache.invalidateProject("BBBB");
    assert.deepEqual(cache.get(keyFor("AAAA")), body("a"));
    assert.equal(cache.get(keyFor("BBBB")), undefined);
    assert.equal(cache.get(keyFor("AAAA", appView("x"))), undefined);
    assert.deepEqual(cache.get(keyFor("CCCC")), body("c"));
    assert.equal(cache.stats().entries, 2);
    cache.invalidateProject("AAAA");
    assert.equal(cache.get(keyFor("AAAA")), undefined);
    assert.equal(cache.stats().entries, 1);
  });

  test("evicts and refuses by data area: a check-in leaves agenda answers alone", () => {
    const cache = new ResponseCache();
    const agenda = areaBit.project | areaBit.agenda;
    const people = areaBit.project | areaBit.attendees | areaBit.checkins;
    const agendaKey = keyFor("AAAA");
    const peopleKey = keyFor(
      "AAAA",
      callerView("2026-09-01", { kind: "app", appId: "x", permissions: ["attendees:read"] }),
    );
    cache.store(agendaKey, body("agenda"), ["AAAA"], cache.begin(), { areas: agenda });
    cache.store(peopleKey, body("people"), ["AAAA"], cache.begin(), { areas: people });
    const mark = cache.begin();
    cache.invalidateProject("AAAA", areaBit.checkins);
    assert.deepEqual(cache.get(agendaKey), body("agenda"));
    assert.equal(cache.get(peopleKey), undefined);
    // Computed while the check-in landed: the agenda answer is stored, the attendee answer refused.
    assert.equal(cache.store(agendaKey, body("agenda 2"), ["AAAA"], mark, { areas: agenda }), true);
    assert.equal(cache.store(peopleKey, body("people 2"), ["AAAA"], mark, { areas: people }), false);
    cache.invalidateProject("AAAA");
    assert.equal(cache.get(agendaKey), undefined);
  });

  test("replacing an entry re-lists it under the areas the new response read", () => {
    const cache = new ResponseCache();
    const key = keyFor("AAAA");
    cache.store(key, body("1"), ["AAAA"], cache.begin(), { areas: areaBit.project | areaBit.checkins });
    cache.store(key, body("2"), ["AAAA"], cache.begin(), { areas: areaBit.project | areaBit.agenda });
    cache.invalidateProject("AAAA", areaBit.checkins);
    assert.deepEqual(cache.get(key), body("2"));
    cache.invalidateProject("AAAA", areaBit.agenda);
    assert.equal(cache.get(key), undefined);
    assert.equal(cache.stats().entries, 0);
  });

  test("refuses a response computed while its project changed, and accepts one started after", () => {
    const cache = new ResponseCache();
    const before = cache.begin();
    cache.invalidateProject("AAAA"); // a write commits while the first execution runs
    assert.equal(cache.store(keyFor("AAAA"), body("stale"), ["AAAA"], before), false);
    assert.equal(cache.get(keyFor("AAAA")), undefined);
    // A change to another project does not spoil it.
    const after = cache.begin();
    cache.invalidateProject("BBBB");
    assert.equal(cache.store(keyFor("AAAA"), body("fresh"), ["AAAA"], after), true);
    assert.deepEqual(cache.get(keyFor("AAAA")), body("fresh"));
    assert.equal(cache.stats().refused, 1);
  });

  test("refuses every response started before invalidateAll", () => {
    const cache = new ResponseCache();
    const mark = cache.begin();
    cache.store(keyFor("AAAA"), body("a"), ["AAAA"], mark);
    cache.invalidateAll();
    assert.equal(cache.get(keyFor("AAAA")), undefined);
    assert.equal(cache.store(keyFor("BBBB"), body("b"), ["BBBB"], mark), false);
    assert.equal(cache.store(keyFor("BBBB"), body("b"), ["BBBB"], cache.begin()), true);
  });

  test("serves and stores nothing while suspended, and starts empty when resumed", () => {
    const cache = new ResponseCache();
    cache.store(keyFor("AAAA"), body("a"), ["AAAA"], cache.begin());
    cache.suspend();
    const during = cache.begin();
    assert.equal(cache.get(keyFor("AAAA")), undefined);
    assert.equal(cache.store(keyFor("BBBB"), body("b"), ["BBBB"], during), false);
    cache.resume();
    assert.equal(cache.get(keyFor("AAAA")), undefined);
    // Computed during the outage, finished after it: it may have missed an invalidation.
    assert.equal(cache.store(keyFor("BBBB"), body("b"), ["BBBB"], during), false);
    assert.equal(cache.store(keyFor("BBBB"), body("b"), ["BBBB"], cache.begin()), true);
  });

  test("stays within its byte budget by evicting the least recently used entries", () => {
    const entryBytes = 1000;
    const perEntry = entryBytes + keyFor("X000").length + 1024;
    const cache = new ResponseCache({ maxBytes: perEntry * 3, maxEntryBytes: perEntry * 3 });
    const mark = cache.begin();
    for (const id of ["X000", "X001", "X002"]) cache.store(keyFor(id), Buffer.alloc(entryBytes), [id], mark);
    assert.ok(cache.get(keyFor("X000"))); // X000 is now the most recently used
    cache.store(keyFor("X003"), Buffer.alloc(entryBytes), ["X003"], mark);
    assert.deepEqual(
      ["X000", "X001", "X002", "X003"].map((id) => cache.get(keyFor(id)) !== undefined),
      [true, false, true, true],
    );
    assert.deepEqual([cache.stats().entries, cache.stats().bytes], [3, perEntry * 3]);
    // An evicted entry leaves no tag behind: invalidating its project touches nothing else.
    cache.invalidateProject("X001");
    assert.equal(cache.stats().entries, 3);
  });

  test("past its admission threshold, stores an answer only when its key is asked for a second time", () => {
    const entryBytes = 1000;
    const perEntry = entryBytes + keyFor("X000").length + 1024;
    const cache = new ResponseCache({
      maxBytes: perEntry * 10,
      maxEntryBytes: perEntry,
      admitOnSecondRequestAbove: perEntry * 2,
    });
    const mark = cache.begin();
    // Below the threshold (and at it) every answer is stored at once.
    for (const id of ["X000", "X001", "X002"]) {
      assert.equal(cache.store(keyFor(id), Buffer.alloc(entryBytes), [id], mark), true);
    }
    // Past it, one-off answers are not stored, and nothing already cached is pushed out.
    for (const id of ["X003", "X004", "X005"]) {
      assert.equal(cache.store(keyFor(id), Buffer.alloc(entryBytes), [id], mark), false);
    }
    assert.deepEqual([cache.stats().entries, cache.stats().bytes], [3, perEntry * 3]);
    // The second request for a key is stored.
    assert.equal(cache.store(keyFor("X004"), Buffer.alloc(entryBytes), ["X004"], mark), true);
    assert.ok(cache.get(keyFor("X004")));
    assert.equal(cache.get(keyFor("X003")), undefined);
  });

  test("without an admission threshold, stores every answer at once up to its byte budget", () => {
    const entryBytes = 1000;
    const perEntry = entryBytes + keyFor("X000").length + 1024;
    const cache = new ResponseCache({ maxBytes: perEntry * 4, maxEntryBytes: perEntry });
    const mark = cache.begin();
    for (const id of ["X000", "X001", "X002", "X003"]) {
      assert.equal(cache.store(keyFor(id), Buffer.alloc(entryBytes), [id], mark), true);
    }
    assert.equal(cache.stats().entries, 4);
  });

  test("does not store a body larger than one entry may be", () => {
    const cache = new ResponseCache({ maxBytes: 100_000, maxEntryBytes: 2000 });
    assert.equal(cache.store(keyFor("AAAA"), Buffer.alloc(3000), ["AAAA"], cache.begin()), false);
    assert.equal(cache.stats().entries, 0);
  });

  test("replacing an entry re-tags it with the projects the new response read", () => {
    const cache = new ResponseCache();
    cache.store(keyFor("AAAA"), body("1"), ["AAAA", "BBBB"], cache.begin());
    cache.store(keyFor("AAAA"), body("2"), ["AAAA"], cache.begin());
    cache.invalidateProject("BBBB");
    assert.deepEqual(cache.get(keyFor("AAAA")), body("2"));
    cache.invalidateProject("AAAA");
    assert.equal(cache.get(keyFor("AAAA")), undefined);
  });

  test("reads another process's writes counter once per event-loop turn, and again in the next", async () => {
    let counter = 7;
    let reads = 0;
    const cache = new ResponseCache({
      externalWrites: () => {
        reads += 1;
        return counter;
      },
    });
    const first = cache.epoch();
    counter += 1;
    assert.equal(cache.epoch(), first, "a commit elsewhere during the turn is concurrent with its requests");
    assert.equal(reads, 1);
    await new Promise((resolve) => setImmediate(resolve));
    assert.notEqual(cache.epoch(), first, "the next turn sees it");
    assert.equal(reads, 2);
    await new Promise((resolve) => setImmediate(resolve));
    const unchanged = cache.epoch();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(cache.epoch(), unchanged, "the epoch moves only when the counter does");
  });

  test("a settings change moves the credentials epoch only; another process's write moves both", async () => {
    let counter = 1;
    const cache = new ResponseCache({ externalWrites: () => counter });
    const epoch = cache.epoch();
    const credentials = cache.credentialsEpoch();
    cache.invalidateProject("AAAA", areaBit.agenda);
    assert.equal(cache.credentialsEpoch(), credentials, "an agenda edit leaves remembered tokens alone");
    cache.invalidateProject("AAAA", areaBit.project);
    assert.equal(cache.epoch(), epoch, "other projects' cached answers need no version check");
    const afterSettings = cache.credentialsEpoch();
    assert.notEqual(afterSettings, credentials);
    counter += 1;
    await new Promise((resolve) => setImmediate(resolve));
    assert.notEqual(cache.epoch(), epoch);
    assert.notEqual(cache.credentialsEpoch(), afterSettings);
    assert.equal(new ResponseCache().credentialsEpoch(), undefined, "no push channel: nothing is remembered");
  });

  test("expires an entry stored with a time to live", async () => {
    const cache = new ResponseCache();
    cache.store(keyFor("AAAA"), body("a"), ["AAAA"], cache.begin(), { ttlMs: 20 });
    assert.ok(cache.get(keyFor("AAAA")));
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(cache.get(keyFor("AAAA")), undefined);
  });

  test("stays safe when it forgets old project changes: it refuses rather than serve stale data", () => {
    const cache = new ResponseCache({ maxTrackedProjects: 2 });
    const mark = cache.begin();
    cache.invalidateProject("P001");
    cache.invalidateProject("P002");
    cache.invalidateProject("P003"); // P001's change is forgotten
    assert.equal(cache.store(keyFor("P001"), body("stale"), ["P001"], mark), false);
    assert.equal(cache.store(keyFor("P001"), body("fresh"), ["P001"], cache.begin()), true);
  });
});
