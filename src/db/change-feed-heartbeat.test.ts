import assert from "node:assert/strict";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { testEngines } from "../../test/helpers/engines.js";
import { ChangeFeed } from "./change-feed.js";

const postgres = testEngines().find((engine) => engine.name === "postgres");

/**
 * A TCP proxy to the database whose connections so far can be made to go silent without closing
 * (`silence`), as when the database's host is lost or a firewall drops an idle flow: nothing
 * passes any more either way, and no error or end reaches either side. New connections pass.
 */
async function silenceableProxy(databaseUrl: string) {
  const url = new URL(databaseUrl);
  const open = new Set<{ silent: boolean; sockets: Socket[] }>();
  const server = createServer((client) => {
    const upstream = connect(Number(url.port || 5432), url.hostname);
    const flow = { silent: false, sockets: [client, upstream] };
    open.add(flow);
    for (const socket of flow.sockets) {
      socket.on("error", () => {});
      socket.on("close", () => {
        client.destroy();
        upstream.destroy();
        open.delete(flow);
      });
    }
    client.on("data", (chunk) => flow.silent || upstream.write(chunk));
    upstream.on("data", (chunk) => flow.silent || client.write(chunk));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(databaseUrl);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.href,
    silence: () => {
      for (const flow of open) flow.silent = true;
    },
    close: () => {
      for (const flow of open) for (const socket of flow.sockets) socket.destroy();
      server.close();
    },
  };
}

describe("the change feed's heartbeat", { skip: postgres ? false : "no PostgreSQL" }, () => {
  let proxy: Awaited<ReturnType<typeof silenceableProxy>>;
  before(async () => {
    proxy = await silenceableProxy(postgres?.newDatabaseUrl() ?? "");
  });
  after(() => proxy?.close());

  test("a connection gone silent ends the epoch, and a new one listens", async () => {
    const feed = new ChangeFeed(proxy.url, undefined, 2_000, 200);
    feed.subscribe(() => {});
    try {
      const waitFor = async (done: () => boolean, what: string) => {
        const deadline = Date.now() + 10_000;
        while (!done()) {
          assert.ok(Date.now() < deadline, what);
          await sleep(10);
        }
      };
      await waitFor(() => feed.epoch() !== undefined, "the feed did not start listening");
      const before = feed.epoch();
      proxy.silence();
      // Without a heartbeat the feed went on "listening" (its epoch unchanged) for as long as the
      // kernel's keepalive takes: two hours by default.
      await waitFor(() => feed.epoch() === undefined, "the silent connection was still trusted");
      await waitFor(() => feed.epoch() !== undefined, "the feed did not listen again");
      assert.notEqual(feed.epoch(), before);
    } finally {
      await feed.close();
    }
  });
});
