import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { inTransaction } from "../../src/db/transaction.js";
import { testEngines } from "../helpers/engines.js";
import { createApp } from "../helpers/factories.js";
import { serverPerSuite, type TestServer } from "../helpers/test-server.js";

// Issue 41, safe retries: Idempotency-Key (IETF httpapi draft) on API mutations.
// docs/guides/12-idempotency.md describes what these tests hold the server to.

const createTrack = `mutation($input: CreateTrackInput!) { createTrack(input: $input) { track { id name } userErrors { message } } }`;

/** One raw API call: the status, the header fields and the body's exact text. */
async function post(
  url: string,
  token: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${url}/api/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** An app that may write the agenda of its home project, and a request creating a track there. */
async function trackWriter(server: TestServer) {
  const { app, token, projectId } = await createApp(server.services, {
    permissions: ["agenda:read", "agenda:write"],
  });
  const request = (name: string) => ({ query: createTrack, variables: { input: { projectId, name } } });
  return { app, token, projectId, request };
}

async function tracksOf(server: TestServer, projectId: string): Promise<string[]> {
  const rows = await server.database.db
    .selectFrom("tracks")
    .select("name")
    .where("project_id", "=", projectId)
    .execute();
  return rows.map((row) => row.name);
}

function codeOf(text: string): string | undefined {
  return (JSON.parse(text) as { errors?: { extensions: { code: string } }[] }).errors?.[0]?.extensions.code;
}

for (const engine of testEngines()) {
  describe(`Idempotency-Key on mutations (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("refuses a key that is empty, too long, has spaces or was sent twice, with 400 and no run", async () => {
      const { token, projectId, request } = await trackWriter(server);
      for (const key of ["", "x".repeat(256), "has space", "a, b", "é", '"', "tab\tkey"]) {
        const answer = await post(server.url, token, request("Garbage"), { "idempotency-key": key });
        assert.equal(answer.status, 400, `key ${JSON.stringify(key)}: ${answer.text}`);
        assert.equal(codeOf(answer.text), "BAD_REQUEST");
      }
      assert.deepEqual(await tracksOf(server, projectId), []);
    });

    test("answers a repeat with the first answer, byte for byte, marked as replayed, without running again", async () => {
      const { token, projectId, request } = await trackWriter(server);
      const key = randomUUID();
      const first = await post(server.url, token, request("Main stage"), { "idempotency-key": key });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.headers.get("idempotent-replayed"), null);
      // The draft's structured-field form of the same key is the same key.
      const again = await post(server.url, token, request("Main stage"), { "idempotency-key": `"${key}"` });
      assert.equal(again.status, 200);
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.equal(again.headers.get("content-type"), first.headers.get("content-type"));
      // The replay's own budget fields: it was charged as a request.
      assert.ok(
        Number(again.headers.get("x-ratelimit-remaining")) <
          Number(first.headers.get("x-ratelimit-remaining")),
      );
      assert.deepEqual(await tracksOf(server, projectId), ["Main stage"]);
    });

    test("refuses the key with another body (422), and a key sent by another app is that app's own", async () => {
      const { token, projectId, request } = await trackWriter(server);
      const other = await trackWriter(server);
      const key = randomUUID();
      assert.equal((await post(server.url, token, request("One"), { "idempotency-key": key })).status, 200);
      const changed = await post(server.url, token, request("Two"), { "idempotency-key": key });
      assert.equal(changed.status, 422, changed.text);
      assert.equal(codeOf(changed.text), "IDEMPOTENCY_KEY_REUSED");
      // Another app's request with the same key runs for that app, and reveals nothing of the first.
      const theirs = await post(server.url, other.token, other.request("One"), { "idempotency-key": key });
      assert.equal(theirs.status, 200);
      assert.equal(theirs.headers.get("idempotent-replayed"), null);
      assert.deepEqual(await tracksOf(server, projectId), ["One"]);
      assert.deepEqual(await tracksOf(server, other.projectId), ["One"]);
    });

    test("50 identical requests at once with one key create exactly one track", async () => {
      const { token, projectId, request } = await trackWriter(server);
      const key = randomUUID();
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          post(server.url, token, request("Keynote"), { "idempotency-key": key }),
        ),
      );
      assert.deepEqual(await tracksOf(server, projectId), ["Keynote"]);
      const ran = answers.filter((a) => a.status === 200 && a.headers.get("idempotent-replayed") === null);
      assert.equal(ran.length, 1);
      for (const answer of answers) {
        if (answer.status === 200) assert.equal(answer.text, ran[0]?.text);
        else {
          assert.equal(answer.status, 409, answer.text);
          assert.equal(codeOf(answer.text), "IDEMPOTENCY_KEY_IN_USE");
          assert.equal(answer.headers.get("retry-after"), "1");
        }
      }
    });

    test("a browser app may send the key and read whether the answer was replayed (CORS)", async () => {
      const preflight = await fetch(`${server.url}/api/graphql`, {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type, idempotency-key",
        },
      });
      assert.equal(preflight.status, 204);
      assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /\bidempotency-key\b/);
      const { token, request } = await trackWriter(server);
      const answer = await post(server.url, token, request("Cors"), { "idempotency-key": randomUUID() });
      assert.match(answer.headers.get("access-control-expose-headers") ?? "", /\bidempotent-replayed\b/);
    });

    test("ignores a key on a query: nothing is stored and nothing is replayed", async () => {
      const { token, projectId } = await trackWriter(server);
      const key = randomUUID();
      const query = { query: "query($id: ID!) { project(id: $id) { id } }", variables: { id: projectId } };
      for (let i = 0; i < 2; i++) {
        const answer = await post(server.url, token, query, { "idempotency-key": key });
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get("idempotent-replayed"), null);
      }
      const rows = await server.database.db
        .selectFrom("idempotency_keys")
        .select("key")
        .where("key", "=", key)
        .execute();
      assert.deepEqual(rows, []);
    });

    test("a run whose process died leaves a lock that ends: 409 while it holds, then the next request runs", async () => {
      const { app, token, projectId, request } = await trackWriter(server);
      const key = randomUUID();
      // Run once to learn the fingerprint of this body, then leave the row as a crashed run would.
      assert.equal((await post(server.url, token, request("Crash"), { "idempotency-key": key })).status, 200);
      const { db } = server.database;
      const row = await db
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("key", "=", key)
        .executeTakeFirstOrThrow();
      assert.equal(row.scope, `app:${app.id}`);
      await db.deleteFrom("tracks").where("project_id", "=", projectId).execute();
      const crashed = (lockedUntil: string) =>
        db
          .updateTable("idempotency_keys")
          .set({ status: null, media: null, body: null, locked_until: lockedUntil, committed_at: null })
          .where("key", "=", key)
          .execute();
      await crashed(new Date(Date.now() + 60_000).toISOString());
      const held = await post(server.url, token, request("Crash"), { "idempotency-key": key });
      assert.equal(held.status, 409);
      assert.deepEqual(await tracksOf(server, projectId), []);
      await crashed(new Date(Date.now() - 1).toISOString());
      const retried = await post(server.url, token, request("Crash"), { "idempotency-key": key });
      assert.equal(retried.status, 200, retried.text);
      assert.equal(retried.headers.get("idempotent-replayed"), null);
      assert.deepEqual(await tracksOf(server, projectId), ["Crash"]);
      const replayed = await post(server.url, token, request("Crash"), { "idempotency-key": key });
      assert.equal(replayed.text, retried.text);
      assert.equal(replayed.headers.get("idempotent-replayed"), "true");
    });

    test("a run whose process died after its write committed is never run again: 409 IDEMPOTENCY_ANSWER_LOST", async () => {
      const { token, projectId, request } = await trackWriter(server);
      const { db } = server.database;
      const rowOf = (key: string) =>
        db.selectFrom("idempotency_keys").selectAll().where("key", "=", key).executeTakeFirstOrThrow();
      // The mark is written by the write's own transaction: a mutation that changed nothing has none.
      const refusedKey = randomUUID();
      const refused = await post(server.url, token, request(" "), { "idempotency-key": refusedKey });
      assert.match(refused.text, /userErrors":\[\{/);
      assert.equal((await rowOf(refusedKey)).committed_at, null);
      const key = randomUUID();
      assert.equal((await post(server.url, token, request("Once"), { "idempotency-key": key })).status, 200);
      assert.notEqual((await rowOf(key)).committed_at, null);
      // What a process killed between that COMMIT and storing the answer leaves: the mark, no answer,
      // and a lock that has ended.
      await db
        .updateTable("idempotency_keys")
        .set({ status: null, media: null, body: null, locked_until: new Date(Date.now() - 1).toISOString() })
        .where("key", "=", key)
        .execute();
      for (let attempt = 0; attempt < 2; attempt++) {
        const retried = await post(server.url, token, request("Once"), { "idempotency-key": key });
        assert.equal(retried.status, 409, retried.text);
        assert.equal(codeOf(retried.text), "IDEMPOTENCY_ANSWER_LOST");
      }
      assert.deepEqual(await tracksOf(server, projectId), ["Once"]);
    });

    test("a run answered 5xx releases its key only if none of its writes committed", async () => {
      const { idempotency } = server.services;
      const { db } = server.database;
      const admit = async () => true;
      for (const committed of [false, true]) {
        const key = randomUUID();
        const claim = await idempotency.claim("app:5xx", key, "body", admit);
        assert.equal(claim.outcome, "run");
        if (claim.outcome !== "run") return;
        if (committed) await inTransaction(db, undefined, (trx) => idempotency.markCommitted(trx, claim.run));
        await idempotency.finish(claim.run, undefined);
        const retry = await idempotency.claim("app:5xx", key, "body", admit);
        assert.equal(retry.outcome, committed ? "answer-lost" : "run", `committed: ${committed}`);
      }
    });

    test("keys expire after 24 hours: pruned by the job, and an expired key runs anew", async () => {
      const { token, projectId, request } = await trackWriter(server);
      const [kept, expired] = [randomUUID(), randomUUID()];
      for (const key of [kept, expired]) {
        assert.equal((await post(server.url, token, request(key), { "idempotency-key": key })).status, 200);
      }
      const { db } = server.database;
      const past = new Date(Date.now() - 1000).toISOString();
      await db.updateTable("idempotency_keys").set({ expires_at: past }).where("key", "=", expired).execute();
      // An expired key is a new key, whatever body it came with before.
      const anew = await post(server.url, token, request("Anew"), { "idempotency-key": expired });
      assert.equal(anew.status, 200, anew.text);
      assert.equal(anew.headers.get("idempotent-replayed"), null);
      await db.updateTable("idempotency_keys").set({ expires_at: past }).where("key", "=", expired).execute();
      assert.ok((await server.services.idempotency.prune()) >= 1);
      const left = await db
        .selectFrom("idempotency_keys")
        .select("key")
        .where("key", "in", [kept, expired])
        .execute();
      assert.deepEqual(
        left.map((row) => row.key),
        [kept],
      );
      assert.deepEqual((await tracksOf(server, projectId)).sort(), [kept, expired, "Anew"].sort());
    });
  });

  describe(`Idempotency-Keys at volume (${engine.name})`, () => {
    const server = serverPerSuite(engine, { RATE_LIMIT_IDEMPOTENCY_KEYS_PER_HOUR: "200" });

    test("1,000 distinct keys from one app: at most the hourly allowance is stored, the rest 429", async () => {
      const { app, token, request } = await trackWriter(server);
      const started = Date.now();
      const statuses: number[] = [];
      // Fifty at a time, as a client hammering the API would.
      for (let batch = 0; batch < 20; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            post(server.url, token, request(`T${batch}-${i}`), { "idempotency-key": randomUUID() }),
          ),
        );
        statuses.push(...answers.map((a) => a.status));
      }
      const elapsed = Date.now() - started;
      const ok = statuses.filter((s) => s === 200).length;
      assert.equal(ok, 200);
      assert.equal(statuses.filter((s) => s === 429).length, 800);
      const rows = await server.database.db
        .selectFrom("idempotency_keys")
        .select(["body"])
        .where("scope", "=", `app:${app.id}`)
        .execute();
      assert.equal(rows.length, 200);
      const bytes = rows.reduce((sum, row) => sum + (row.body?.length ?? 0), 0);
      console.log(`1,000 keyed requests in ${elapsed} ms; ${rows.length} keys stored, ${bytes} answer bytes`);
    });
  });
}
