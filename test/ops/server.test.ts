import assert from "node:assert/strict";
import http from "node:http";
import net from "node:net";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runNode, startServerProcess } from "../helpers/processes.js";
import { temporaryFolder } from "../helpers/temporary.js";

const sqliteUrl = () => `sqlite:${join(temporaryFolder("eventgraph-ops-"), "db.sqlite")}`;
const postgresUrl = process.env.DATABASE_URL_POSTGRES;

// A stack trace line, as node prints them: never shown to an operator for a configuration mistake.
const stackLine = /^\s+at .+\(.*:\d+:\d+\)$/m;

/** Sends a request whose body trickles in, so it is in flight for as long as the test wants. */
function slowPost(url: string, path: string, body: string) {
  const bytes = Buffer.from(body);
  let finish: () => void = () => {};
  const response = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      const request = http.request(
        `${url}${path}`,
        { method: "POST", headers: { "content-type": "application/json", "content-length": bytes.length } },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8");
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      request.on("error", reject);
      request.write(bytes.subarray(0, 5));
      finish = () => request.end(bytes.subarray(5));
    },
  );
  return { response, finish: () => finish() };
}

describe("server start-up and shutdown (compiled, as a child process)", () => {
  test("fails fast naming every bad variable, one line each, without a stack", async () => {
    const started = Date.now();
    const { code, stderr, stdout } = await runNode(["dist/src/main.js"], {
      env: { PORT: "99999", DATABASE_URL: "mysql://localhost/db", LOG_LEVEL: "chatty" },
    });
    assert.equal(code, 1);
    // Not a speed goal: it proves the process gives up instead of retrying (loaded CI machines are slow).
    assert.ok(Date.now() - started < 30_000, "takes more than 30 s to give up");
    assert.equal(stdout, "");
    const problems = stderr.split("\n").filter((line) => line.trim().startsWith("- "));
    assert.equal(problems.length, 3, stderr);
    for (const name of ["PORT", "DATABASE_URL", "LOG_LEVEL"]) {
      assert.equal(problems.filter((line) => line.includes(`${name}:`)).length, 1, stderr);
    }
    assert.doesNotMatch(stderr, stackLine);
  });

  test("fails fast with one line when the database does not answer", async () => {
    const { code, stderr } = await runNode(["dist/src/main.js"], {
      env: { PORT: "0", DATABASE_URL: "postgres://eventgraph:s3cret@127.0.0.1:1/nowhere" },
    });
    assert.equal(code, 1);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.match(
      stderr,
      /Cannot open the database at postgres:\/\/eventgraph:\*\*\*@127\.0\.0\.1:1\/nowhere/,
    );
    assert.ok(!stderr.includes("s3cret"), "the password is shown");
    assert.doesNotMatch(stderr, stackLine);
  });

  test("fails fast with one line when REDIS_URL does not answer", async () => {
    const { code, stderr } = await runNode(["dist/src/main.js"], {
      env: { PORT: "0", DATABASE_URL: sqliteUrl(), REDIS_URL: "redis://:hunter22@127.0.0.1:1" },
    });
    assert.equal(code, 1);
    assert.match(stderr, /^Eventgraph failed to start: Redis at 127\.0\.0\.1:1 did not answer/);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
    assert.ok(!stderr.includes("hunter22"));
  });

  test("fails with one line when the port is taken", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const address = blocker.address() as net.AddressInfo;
    try {
      const { code, stderr } = await runNode(["dist/src/main.js"], {
        env: { HOST: "127.0.0.1", PORT: String(address.port), DATABASE_URL: sqliteUrl() },
      });
      assert.equal(code, 1);
      assert.match(stderr, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${address.port}: .*EADDRINUSE`));
      assert.equal(stderr.trim().split("\n").length, 1, stderr);
    } finally {
      blocker.close();
    }
  });

  test("starts, answers /healthz and /readyz, and reports its start-up time", async (t) => {
    const started = performance.now();
    const { child, url } = await startServerProcess({ DATABASE_URL: sqliteUrl() });
    try {
      const listening = performance.now() - started;
      const health = await fetch(`${url}/healthz`);
      const ready = await fetch(`${url}/readyz`);
      const firstAnswer = performance.now() - started;
      assert.equal(health.status, 200);
      assert.equal(ready.status, 200);
      t.diagnostic(
        `start-up: listening after ${Math.round(listening)} ms, first answer after ${Math.round(firstAnswer)} ms`,
      );
    } finally {
      child.process.kill("SIGTERM");
      await child.exited;
    }
  });

  test("on SIGTERM lets a slow request finish, refuses new connections, then exits 0", async () => {
    const { child, url } = await startServerProcess({ DATABASE_URL: sqliteUrl() });
    const body = JSON.stringify({ query: "{ __typename }" });
    // Cached first: the slow request is then a hit, which writes its answer past Fastify's onSend.
    const first = await fetch(`${url}/api/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    assert.equal(first.status, 200);
    const slow = slowPost(url, "/api/graphql", body);
    // Two requests logged: the slow one has arrived too.
    const arrived = () => child.logLines().filter((l) => l.msg === "incoming request").length >= 2;
    await child.waitForLog(arrived);
    child.process.kill("SIGTERM");
    await child.waitForLog((l) => l.msg === "Shutting down: finishing in-flight requests");
    // The listener is closed at once: a newcomer is turned away while the slow one still runs.
    await assert.rejects(fetch(`${url}/healthz`));
    let exitedEarly = false;
    child.exited.then(() => {
      exitedEarly = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(exitedEarly, false, "exited with a request in flight");
    slow.finish();
    const answer = await slow.response;
    // Answered by the API itself, not with the 503 a closing server gives to late arrivals, and
    // telling the client not to reuse the connection.
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body).data, { __typename: "Query" });
    assert.equal(JSON.parse(answer.body).extensions.cached, true);
    assert.equal(answer.headers.connection, "close");
    assert.match(String(answer.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
    const exit = await child.exited;
    assert.deepEqual(exit, { code: 0, signal: null });
  });

  test("never writes the Authorization header, cookies or tokens in URLs to its log", async () => {
    const { child, url } = await startServerProcess({ DATABASE_URL: sqliteUrl(), LOG_LEVEL: "trace" });
    try {
      const secrets = {
        header: "evg_HeaderSecretTokenValue0123456789abcdefXYZ",
        cookie: "session-cookie-secret-value-42",
        query: "evg_QuerySecretTokenValue0123456789abcdefXYZ",
        password: "query-password-secret-7",
      };
      const response = await fetch(
        `${url}/api/graphql?access_token=${secrets.query}&password=${secrets.password}`,
        {
          method: "POST",
          headers: {
            authorization: `Bearer ${secrets.header}`,
            cookie: `eg_session=${secrets.cookie}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ query: "{ __typename }" }),
        },
      );
      await response.text();
      const requestId = response.headers.get("x-request-id") ?? "";
      // The request was logged (so the test can fail), and nothing secret went with it.
      const line = await child.waitForLog((l) => l.msg === "request completed" && l.reqId === requestId);
      assert.ok(line);
      for (const secret of Object.values(secrets)) {
        assert.ok(!child.stdout.includes(secret), `the log contains ${secret}`);
        assert.ok(!child.stderr.includes(secret), `stderr contains ${secret}`);
      }
    } finally {
      child.process.kill("SIGTERM");
      await child.exited;
    }
  });

  test("WEB_CONCURRENCY=2 runs two workers on one port, replaces a crashed one and drains on SIGTERM", async () => {
    const { child, url } = await startServerProcess({ DATABASE_URL: sqliteUrl(), WEB_CONCURRENCY: "2" });
    const listeningPids = () =>
      new Set(
        child
          .logLines()
          .filter((l) => l.msg === "Eventgraph is listening")
          .map((l) => Number(l.pid)),
      );
    await child.waitForLog(() => listeningPids().size === 2);
    const workers = [...listeningPids()];
    assert.ok(!workers.includes(child.process.pid ?? -1), "the primary itself serves");
    assert.equal((await fetch(`${url}/healthz`)).status, 200);

    const [crashed, survivor] = workers as [number, number];
    process.kill(crashed, "SIGKILL");
    await child.waitForLog((l) => l.msg === "Worker died; starting a new one" && l.pid === crashed);
    await child.waitForLog(() => listeningPids().size === 3);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);

    child.process.kill("SIGTERM");
    const exit = await child.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, child.stderr);
    for (const pid of [...listeningPids()].filter((p) => p !== crashed)) {
      assert.throws(() => process.kill(pid, 0), { code: "ESRCH" }, `worker ${pid} outlived the primary`);
    }
    assert.ok(survivor);
  });

  test("/readyz answers 503 while PostgreSQL is unreachable and recovers; /healthz stays 200", {
    skip: postgresUrl ? false : "DATABASE_URL_POSTGRES is not set",
  }, async () => {
    // A TCP relay between the server and PostgreSQL: closing it cuts the database off for real.
    const target = new URL(postgresUrl ?? "");
    const sockets = new Set<net.Socket>();
    const relay = () =>
      net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("error", () => {});
          s.on("close", () => sockets.delete(s));
        }
        client.pipe(upstream).pipe(client);
      });
    let proxy = relay();
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const port = (proxy.address() as net.AddressInfo).port;
    const viaRelay = new URL(postgresUrl ?? "");
    viaRelay.hostname = "127.0.0.1";
    viaRelay.port = String(port);

    const { child, url } = await startServerProcess({ DATABASE_URL: viaRelay.toString() });
    // A load balancer polls: each state must show within a few probes, not at the very first one
    // (the probe itself may take up to 2 s on a loaded machine, and a failed answer is reused for 1 s).
    const readyzUntil = async (status: number) => {
      const seen: string[] = [];
      const deadline = Date.now() + 10_000;
      for (;;) {
        // A probe that gets no answer (a connection closed under it) is one more "not yet", as it is
        // to a load balancer; a server that died shows as a row of them in the message.
        const answer = await fetch(`${url}/readyz`).then(
          async (response) => ({ status: response.status, body: await response.text() }),
          (error: Error) => ({ status: 0, body: `${error.message}: ${String(error.cause)}` }),
        );
        if (answer.status === status) return JSON.parse(answer.body) as Record<string, unknown>;
        seen.push(`${answer.status} ${answer.body}`);
        assert.ok(Date.now() < deadline, `/readyz never answered ${status} within 10 s:\n${seen.join("\n")}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    try {
      await readyzUntil(200);
      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      const body = (await readyzUntil(503)) as {
        status: string;
        database: { status: string; detail: string };
      };
      assert.equal(body.status, "unavailable");
      assert.equal(body.database.status, "unavailable");
      assert.ok(!body.database.detail.includes(String(port)), "/readyz names the database address");
      assert.equal((await fetch(`${url}/healthz`)).status, 200);

      proxy = relay();
      await new Promise<void>((resolve, reject) => {
        proxy.once("error", reject);
        proxy.listen(port, "127.0.0.1", resolve);
      });
      await readyzUntil(200);
    } finally {
      child.process.kill("SIGTERM");
      await child.exited;
      proxy.close();
      for (const s of sockets) s.destroy();
    }
  });
});
