import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { describe, test } from "node:test";
import { AppError, ErrorCode } from "../../src/errors.js";
import { sqliteEngine } from "../helpers/engines.js";
import { createApp, createPublishedProject } from "../helpers/factories.js";
import { postJson, type RawAnswer } from "../helpers/raw-http.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { fastPathOff } from "../helpers/test-services.js";

/**
 * The hit lane (src/graphql/hit-lane.ts) at its edges: shutdown, a database outage, slow and
 * vanishing clients, proxies, faults. Each test sends the same request to the route (a query
 * string keeps a request from the lane) and through the lane, and expects the same outcome.
 */

const post = (server: TestServer, body: string, headers: Record<string, string> = {}, path?: string) =>
  postJson(server.url, body, headers, path);

/** HTTP/1.1 responses parsed off a raw socket (Content-Length framed, as every answer here is). */
interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function parseResponses(data: Buffer): { responses: ParsedResponse[]; rest: Buffer } {
  const responses: ParsedResponse[] = [];
  let at = 0;
  for (;;) {
    const headEnd = data.indexOf("\r\n\r\n", at);
    if (headEnd < 0) break;
    const lines = data.subarray(at, headEnd).toString("latin1").split("\r\n");
    const status = Number(lines[0]?.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = status === 100 || status === 304 ? 0 : Number(headers["content-length"] ?? 0);
    if (data.length < headEnd + 4 + length) break;
    responses.push({
      status,
      headers,
      body: data.subarray(headEnd + 4, headEnd + 4 + length).toString("utf8"),
    });
    at = headEnd + 4 + length;
  }
  return { responses, rest: data.subarray(at) };
}

/** A raw connection: write bytes when told, read responses as they come. */
class RawClient {
  private data = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;
  readonly socket: Socket;
  constructor(port: number) {
    this.socket = connect(port, "127.0.0.1");
    this.socket.on("data", (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.socket.on("close", () => {
      this.closed = true;
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.socket.on("error", () => {});
  }
  write(bytes: string | Buffer): void {
    this.socket.write(bytes);
  }
  /** Waits until `count` responses arrived (100 Continue counted), or the socket closed. */
  async responses(count: number, timeoutMs = 5000): Promise<ParsedResponse[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { responses } = parseResponses(this.data);
      if (responses.length >= count || this.closed || Date.now() > deadline) return responses;
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }
  get raw(): string {
    return this.data.toString("utf8");
  }
  close(): void {
    this.socket.destroy();
  }
}

const head = (length: number, extra = "", path = "/api/graphql") =>
  `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n${extra}\r\n`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const portOf = (server: TestServer) => Number(new URL(server.url).port);

describe("the hit lane at its edges (sqlite)", { skip: fastPathOff("hit-lane") }, () => {
  test("a database outage: the lane adds no error line per request to the route's 503", async () => {
    const server = await startTestServer(sqliteEngine, {});
    try {
      const { project } = await createPublishedProject(server.services);
      const text = JSON.stringify({ query: `{ project(id: "${project.id}") { name } }` });
      const spaced = JSON.stringify(JSON.parse(text), null, 1);
      assert.equal((await post(server, text)).status, 200);
      assert.equal((await post(server, spaced)).status, 200);
      // What the database layer does in an outage: the epoch is unknown (the change feed is not
      // listening, or SQLite's data_version cannot be read), and the version read fails fast.
      const cache = server.services.responseCache;
      cache.epoch = () => undefined;
      server.services.access.dataVersions = async () => {
        throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The database is unavailable");
      };
      const errorsOf = async (body: string, path = "/api/graphql") => {
        const from = server.logs.lines.length;
        const answer = await post(server, body, {}, path);
        const errors = server.logs.lines.slice(from).filter((line) => JSON.parse(line).level >= 50);
        return { status: answer.status, errors };
      };
      // The route's own answer: a query string keeps the request from the lane.
      const route = await errorsOf(spaced, "/api/graphql?route=1");
      const lane = await errorsOf(text);
      assert.equal(route.status, 503);
      assert.equal(lane.status, 503);
      assert.equal(lane.errors.length, route.errors.length, "the same log lines as the route's");
    } finally {
      await server.close();
    }
  });

  test("shutdown: a request whose body arrives after close began is answered as the route does", async () => {
    const server = await startTestServer(sqliteEngine, {});
    const { project, ownerId } = await createPublishedProject(server.services);
    const { token } = await createApp(server.services, {
      projectId: project.id,
      ownerId,
      permissions: ["agenda:read", "project:write"],
    });
    const hitText = JSON.stringify({ query: `{ project(id: "${project.id}") { name } }` });
    assert.equal((await post(server, hitText)).status, 200);
    const write = (description: string) =>
      JSON.stringify({
        query: `mutation { updateProject(input: { projectId: "${project.id}", description: "${description}" }) { project { id } } }`,
      });
    const auth = `authorization: Bearer ${token}\r\n`;
    const port = portOf(server);
    // Three requests whose headers arrive before shutdown, their bodies after it began: a write the
    // lane reads (and hands on), the same write kept from the lane by a query string, and a hit.
    const viaLane = new RawClient(port);
    const viaRoute = new RawClient(port);
    const hit = new RawClient(port);
    const laneWrite = write("through the lane");
    const routeWrite = write("through the route");
    viaLane.write(head(Buffer.byteLength(laneWrite), auth) + laneWrite.slice(0, 10));
    viaRoute.write(head(Buffer.byteLength(routeWrite), auth, "/api/graphql?x=1") + routeWrite.slice(0, 10));
    hit.write(head(Buffer.byteLength(hitText)) + hitText.slice(0, 10));
    await sleep(100);
    const closing = server.app.close();
    await sleep(100);
    viaLane.write(laneWrite.slice(10));
    viaRoute.write(routeWrite.slice(10));
    hit.write(hitText.slice(10));
    const [lane] = await viaLane.responses(1);
    const [route] = await viaRoute.responses(1);
    const [cached] = await hit.responses(1);
    for (const c of [viaLane, viaRoute, hit]) c.close();
    await closing;
    await server.close().catch(() => {});
    assert.equal(cached?.status, 200);
    assert.equal(cached?.headers.connection, "close");
    assert.equal(route?.status, 200);
    assert.equal(lane?.status, route?.status, "a write in flight at shutdown is answered as the route does");
  });

  test("the access log and the histogram time a handed-on request from its arrival", async () => {
    const server = await startTestServer(sqliteEngine, {});
    try {
      const { project } = await createPublishedProject(server.services);
      const port = portOf(server);
      const timeOf = async (path: string, n: number) => {
        const text = JSON.stringify({ query: `{ project(id: "${project.id}") { name } } # ${n}` });
        const from = server.logs.lines.length;
        const client = new RawClient(port);
        client.write(head(Buffer.byteLength(text), "", path) + text.slice(0, 5));
        await sleep(400);
        client.write(text.slice(5));
        const [answer] = await client.responses(1);
        client.close();
        const done = server.logs.lines
          .slice(from)
          .map((line) => JSON.parse(line))
          .find((line) => line.msg === "request completed" && line.reqId === answer?.headers["x-request-id"]);
        return done?.responseTime as number;
      };
      const route = await timeOf("/api/graphql?x=1", 1);
      const lane = await timeOf("/api/graphql", 2);
      assert.ok(route >= 350);
      assert.ok(lane >= 350, "the 400 ms the lane spent reading the body are part of the request");
    } finally {
      await server.close();
    }
  });

  test("TRUST_PROXY: the lane charges the budget of the address the route charges", async () => {
    for (const trust of ["true", "127.0.0.1"]) {
      const server = await startTestServer(sqliteEngine, { TRUST_PROXY: trust });
      try {
        const { project } = await createPublishedProject(server.services);
        const text = JSON.stringify({ query: `{ project(id: "${project.id}") { name } }` });
        const routeText = JSON.stringify(JSON.parse(text), null, 1);
        await post(server, text, { "x-forwarded-for": "203.0.113.9" });
        const left = (a: RawAnswer) => Number(a.headers["x-ratelimit-remaining"]);
        const lane1 = await post(server, text, { "x-forwarded-for": "198.51.100.1, 203.0.113.7" });
        const route1 = await post(server, routeText, { "x-forwarded-for": "198.51.100.1, 203.0.113.7" });
        const lane2 = await post(server, text, { "x-forwarded-for": "198.51.100.1, 203.0.113.7" });
        const other = await post(server, text, { "x-forwarded-for": "203.0.113.8" });
        // The first hit of the text (lane1) is the route's: lane2 and other take the lane.
        assert.equal(server.services.responseCache.stats().laneHits, 2);
        assert.equal(left(lane1) - 1, left(route1));
        assert.equal(left(route1) - 1, left(lane2));
        assert.equal(left(other), left(lane1), "another client's budget");
      } finally {
        await server.close();
      }
    }
  });

  test("a fault inside the lane: the answer and the counts are the route's", async () => {
    const server = await startTestServer(sqliteEngine, {});
    try {
      const { project, ownerId } = await createPublishedProject(server.services);
      const { token } = await createApp(server.services, { projectId: project.id, ownerId });
      const text = JSON.stringify({ query: `{ project(id: "${project.id}") { name } }` });
      const headers = { authorization: `Bearer ${token}` };
      await post(server, text, headers);
      await post(server, text, headers);
      const stats = () => server.services.responseCache.stats();
      // Counting the app's request fails.
      const apps = server.services.apps;
      const record = apps.recordRequest;
      apps.recordRequest = () => {
        throw new Error("usage recorder broken");
      };
      const counted = async (path: string) => {
        const from = stats();
        const answer = await post(server, text, headers, path);
        const to = stats();
        return { status: answer.status, hits: to.hits - from.hits, laneHits: to.laneHits - from.laneHits };
      };
      const route = await counted("/api/graphql?x=1");
      const from = server.logs.lines.length;
      const lane = await counted("/api/graphql");
      apps.recordRequest = record;
      const failed = server.logs.lines.slice(from).filter((line) => JSON.parse(line).level >= 50);
      assert.equal(route.status, 500);
      assert.equal(lane.status, 500);
      // The lane had counted its hit, so it answers the fault itself: nothing is handed on, and
      // the fault is logged once, with the request's id.
      assert.deepEqual(lane, { status: 500, hits: 1, laneHits: 1 });
      assert.equal(failed.length, 1);
      assert.equal(JSON.parse(failed[0] as string).msg, "GraphQL request failed");
    } finally {
      await server.close();
    }
  });
  test("a client gone mid-body leaves the same log lines as on the route", async () => {
    const server = await startTestServer(sqliteEngine, {});
    try {
      const { project } = await createPublishedProject(server.services);
      const text = JSON.stringify({ query: `{ project(id: "${project.id}") { name } }` });
      await post(server, text);
      const port = portOf(server);
      const linesOf = async (path: string) => {
        const from = server.logs.lines.length;
        const client = new RawClient(port);
        client.write(head(Buffer.byteLength(text), "", path) + text.slice(0, 10));
        await sleep(100);
        client.close();
        await sleep(200);
        return server.logs.lines.slice(from).map((line) => JSON.parse(line).msg as string);
      };
      const route = await linesOf("/api/graphql?x=1");
      const lane = await linesOf("/api/graphql");
      assert.deepEqual(lane, route);
    } finally {
      await server.close();
    }
  });
});
