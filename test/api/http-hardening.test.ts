import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { testEngines } from "../helpers/engines.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Slow clients, connection floods and pathological JSON, sent over real sockets to the real server.
// The limits are set low here so each drill takes seconds; their defaults are in docs/security.md.

interface RawExchange {
  /** Everything the server sent before it closed the connection. */
  received: string;
  /** Bytes of the request written before the server closed the connection. */
  sent: number;
}

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

/**
 * Writes `head` at once, then `slow` one byte every `everyMs` until done or until the server closes
 * the connection; `sent` counts the bytes of `slow` written.
 */
async function trickle(url: string, head: string, slow: string, everyMs: number): Promise<RawExchange> {
  const socket = await open(url);
  socket.write(head);
  let received = "";
  let closed = false;
  socket.on("data", (chunk) => {
    received += chunk.toString();
  });
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  socket.once("close", () => {
    closed = true;
  });
  let sent = 0;
  while (!closed && sent < slow.length) {
    socket.write(slow[sent] ?? "");
    sent += 1;
    await sleep(everyMs);
  }
  if (!closed) socket.end();
  await ended;
  return { received, sent };
}

function nested(depth: number): string {
  return `${"[".repeat(depth)}${"]".repeat(depth)}`;
}

for (const engine of testEngines()) {
  describe(`HTTP limits (${engine.name})`, () => {
    const server = serverPerSuite(engine, {
      BODY_TIMEOUT_MS: "1500",
      HEADERS_TIMEOUT_MS: "1000",
      KEEP_ALIVE_TIMEOUT_MS: "500",
      MAX_CONNECTIONS: "20",
      RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "1",
    });

    test("cuts a request body trickled one byte at a time with 408 before it is complete", {
      timeout: 20_000,
    }, async () => {
      const body = JSON.stringify({ query: `{ permissions { name } }`, pad: "x".repeat(60) });
      const request = `POST /api/graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      // Headers arrive at once; the body then comes a byte at a time.
      const { sent, received } = await trickle(server.url, request, body, 200);
      assert.ok(sent < body.length, `the whole body (${sent} bytes) was accepted`);
      assert.match(received, /^HTTP\/1\.1 408/);
    });

    test("cuts request headers trickled one byte at a time before they are complete", {
      timeout: 20_000,
    }, async () => {
      const request = `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ${"y".repeat(40)}\r\n\r\n`;
      const exchange = await trickle(server.url, "", request, 150);
      assert.ok(exchange.sent < request.length, "the whole request was accepted");
      assert.match(exchange.received, /^HTTP\/1\.1 408/);
    });

    test("closes an idle keep-alive connection after its timeout", { timeout: 20_000 }, async () => {
      const socket = await open(server.url);
      let received = "";
      socket.on("data", (chunk) => {
        received += chunk.toString();
      });
      const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
      socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
      // The test's own timeout fails it if the server never closes the connection.
      await closed;
      assert.match(received, /^HTTP\/1\.1 200/);
      assert.doesNotMatch(received, /connection: close/i, "closed as idle, not after the request");
    });

    test("closes connections beyond the cap at once and serves again when one is freed", {
      timeout: 20_000,
    }, async () => {
      // Opened together, well within the headers timeout that would close idle ones.
      const sockets = await Promise.all(Array.from({ length: 30 }, () => open(server.url)));
      const closed = new Set<Socket>();
      for (const socket of sockets) {
        socket.on("error", () => {});
        socket.once("close", () => closed.add(socket));
      }
      await sleep(200);
      // The cap counts every connection of the server, the test client's own keep-alive ones too.
      assert.ok(closed.size >= 10, `${closed.size} of 30 connections were closed`);
      assert.ok(sockets.length - closed.size <= 20);
      for (const socket of sockets) socket.destroy();
      await sleep(50);
      const response = await fetch(`${server.url}/healthz`);
      assert.equal(response.status, 200);
    });

    test("refuses deeply nested JSON with 400 in the GraphQL error shape, before rate limiting", {
      timeout: 20_000,
    }, async () => {
      for (const body of [
        `{"query":"{ __typename }","variables":{"a":${nested(40_000)}}}`,
        `{"query":"{ __typename }","variables":{"a":${nested(65)}}}`,
      ]) {
        const response = await fetch(`${server.url}/api/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        assert.equal(response.status, 400);
        const answer = (await response.json()) as {
          errors: { message: string; extensions: { code: string } }[];
        };
        assert.equal(answer.errors[0]?.extensions.code, "BAD_REQUEST");
        assert.match(answer.errors[0]?.message ?? "", /deeper than 64 levels/);
      }
      const get = await fetch(
        `${server.url}/api/graphql?query=${encodeURIComponent("{ __typename }")}&variables=${encodeURIComponent(`{"a":${nested(100)}}`)}`,
      );
      assert.equal(get.status, 400);
      assert.match(JSON.stringify(await get.json()), /deeper than 64 levels/);
      // Nesting inside a string is text, not depth; the budget of 1 point is still there afterwards.
      const inString = await gql(server.url, `query ($s: String) { __typename }`, {
        variables: { s: nested(1000) },
      });
      assert.equal(inString.status, 200, JSON.stringify(inString.body));
    });
  });
}
