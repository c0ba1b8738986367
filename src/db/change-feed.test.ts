import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { watchConnections } from "../../test/helpers/connection-watch.js";
import { delayingProxy } from "../../test/helpers/delaying-proxy.js";
import { testEngines } from "../../test/helpers/engines.js";
import { ownDatabase } from "../../test/helpers/throwaway-database.js";
import { ChangeFeed, changeFeedApplicationName, channel } from "./change-feed.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");

/** Resolves once `feed` listens (its epoch is defined). */
async function listening(feed: ChangeFeed): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (feed.epoch() === undefined) {
    assert.ok(Date.now() < deadline, "the feed did not start listening");
    await sleep(10);
  }
}

/** Another process with a change feed that listens; prints "listening" once it does. */
/** Waits (up to 10 s) until no change feed listens on the database any more. */
async function noListenerLeft(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await client.query<{ n: string }>(
        "select count(*) as n from pg_stat_activity where datname = current_database() and starts_with(application_name, $1)",
        [changeFeedApplicationName],
      );
      if (Number(rows[0]?.n) === 0) return;
      await sleep(100);
    }
  } finally {
    await client.end();
  }
}

function listenerProcess(url: string): Promise<ChildProcess> {
  const script = `
    const { ChangeFeed } = await import(${JSON.stringify(new URL("./change-feed.js", import.meta.url).href)});
    const feed = new ChangeFeed(${JSON.stringify(url)});
    feed.subscribe(() => {});
    const wait = setInterval(() => {
      if (feed.epoch() === undefined) return;
      clearInterval(wait);
      console.log("listening");
    }, 10);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`the listener exited with ${code}`)));
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) resolve(child);
    });
  });
}

// A write that takes access away (a token rotated, an app unlinked) waits for this fence after its
// commit, so that no server process answers the next request from what it remembered before.
describe("the change feed's fence (heardEverywhere)", {
  skip: postgres ? false : "needs DATABASE_URL_POSTGRES",
}, () => {
  // A database of its own: the fence waits for every feed of its database, and other files' servers
  // listen on the shared one.
  let url = "";
  let drop = async () => {};
  before(async () => {
    if (!postgres) return;
    const own = await ownDatabase(postgres, "fence");
    url = own.engine.newDatabaseUrl();
    drop = own.drop;
  });
  after(() => drop());

  test("resolves only after every listening feed has delivered what was sent before it", async () => {
    // The feed hears the database 100 ms late, as a listener on a loaded machine may.
    const slow = await delayingProxy(url, 100);
    const feed = new ChangeFeed(slow.url);
    const writer = new ChangeFeed(url);
    const notifier = new pg.Client({ connectionString: url });
    await notifier.connect();
    const heard: string[] = [];
    feed.subscribe((projectId) => heard.push(projectId));
    try {
      await listening(feed);
      for (let round = 0; round < 3; round += 1) {
        const projectId = randomUUID();
        await notifier.query("select pg_notify($1, $2)", [channel, `${projectId}:1`]);
        await writer.heardEverywhere();
        assert.ok(heard.includes(projectId), `round ${round}: the change was not delivered before the fence`);
      }
    } finally {
      await notifier.end();
      await feed.close();
      await writer.close();
      slow.close();
    }
  });

  test("waits for a stopped process until it answers, and gives up on it after the timeout", async () => {
    const writer = new ChangeFeed(url, undefined, 30_000);
    const impatient = new ChangeFeed(url, undefined, 200);
    const child = await listenerProcess(url);
    try {
      child.kill("SIGSTOP");
      let done = false;
      const fence = writer.heardEverywhere().then(() => {
        done = true;
      });
      await sleep(300);
      assert.equal(done, false, "the fence passed a listener that cannot have heard");
      child.kill("SIGCONT");
      await fence;
      // Stopped for good: the writer goes on after its timeout rather than hanging.
      child.kill("SIGSTOP");
      await impatient.heardEverywhere();
    } finally {
      child.kill("SIGKILL");
      await writer.close();
      await impatient.close();
      // The killed listener's backend ends a moment later: the next test must not find it listening.
      await noListenerLeft(url);
    }
  });

  test("does not wait for the feeds of another database", async () => {
    const writer = new ChangeFeed(url, undefined, 30_000);
    const elsewhere = new ChangeFeed(postgres?.newDatabaseUrl() ?? "");
    elsewhere.subscribe(() => {});
    try {
      await listening(elsewhere);
      // Nothing listens on this database, so there is no one to wait for.
      const outcome = await Promise.race([
        writer.heardEverywhere().then(() => "went on"),
        sleep(10_000).then(() => "waited"),
      ]);
      assert.equal(outcome, "went on");
    } finally {
      await elsewhere.close();
      await writer.close();
    }
  });

  test("a thousand writes at once share fences: one connection at a time, and each caller is answered", async () => {
    const feed = new ChangeFeed(url);
    feed.subscribe(() => {});
    const writer = new ChangeFeed(url);
    let most = Number.POSITIVE_INFINITY;
    try {
      await listening(feed);
      const connections = await watchConnections(url, `eventgraph-fence-${process.pid}`);
      try {
        await Promise.all(Array.from({ length: 1_000 }, () => writer.heardEverywhere()));
        // Callers after the first fence was sent share the second.
        await Promise.all(Array.from({ length: 10 }, () => writer.heardEverywhere()));
      } finally {
        most = await connections.stop();
      }
    } finally {
      await feed.close();
      await writer.close();
    }
    assert.ok(most <= 1, `${most} fence connections were open at once`);
  });
});
