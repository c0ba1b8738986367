import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { sqliteEngine } from "../helpers/engines.js";
import { createPublishedProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

// SQLite: the response cache reads data_version once per event-loop turn (response-cache.ts,
// `epoch`), on the grounds that the requests a turn handles were received before it began. A read
// made before the poll phase (a timer: the webhook dispatcher resolving an app's access) is not
// before those requests: one received after another process's commit, but before that poll, was
// answered under the epoch read before the commit, so a token rotated by that commit was still
// recalled and its cached answer served.

const query = "query ($id: ID!) { project(id: $id) { name } }";

describe("the epoch of a turn (sqlite)", () => {
  let server: TestServer;
  let sql: PlainSql;
  before(async () => {
    server = await startTestServer(sqliteEngine);
    sql = await plainSql(server.config.databaseUrl);
  });
  after(async () => {
    await sql?.close();
    await server?.close();
  });

  // Failed before the front door told the cache of each batch of requests (200 and the cached
  // answer): the memo of response-cache.ts `epoch` outlived the poll when it was set in a timer.
  test("a request received after a rotation elsewhere is refused, whatever read the epoch before it", async () => {
    const { services } = server;
    const { project } = await createPublishedProject(services);
    const { app, token } = await services.apps.createApp(systemActor, {
      projectId: project.id,
      name: "Rotated",
      permissions: ["agenda:read"],
    });
    const variables = { id: project.id };
    await gql(server.url, query, { token, variables });
    assert.equal((await gql(server.url, query, { token, variables })).body.extensions.cached, true);

    const body = JSON.stringify({ query, variables });
    const request =
      `POST /api/graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Authorization: Bearer ${token}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`;
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once("connect", resolve));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise((resolve) => socket.once("close", resolve));

    await new Promise<void>((resolve) => {
      setTimeout(() => {
        // What the webhook dispatcher does from a timer: the app's access, under the epoch.
        void services.access.resolve(
          { kind: "app", appId: app.id, homeProjectId: project.id, permissions: ["agenda:read"] },
          project.id,
        );
        // Another connection (an operator, the CLI) rotates the token, then the request is sent:
        // both before this turn's poll.
        void sql.run("update apps set token_hash = ? where id = ?", "0".repeat(64), app.id);
        socket.write(request);
        resolve();
      }, 0);
    });
    await closed;
    const answer = Buffer.concat(chunks).toString("utf8");
    assert.match(answer.split("\r\n")[0] ?? "", / 401 /, answer);
  });
});
