import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type TestEngine, testEngines } from "../helpers/engines.js";
import { createUser, testPassword, uniqueEmail } from "../helpers/factories.js";
import { HttpClient } from "../helpers/http-client.js";
import { Mailbox } from "../helpers/mailbox.js";
import { RedisConnections, redisTestUrl, uniqueRedisPrefix } from "../helpers/redis.js";
import { describeNeeding, redisMissing } from "../helpers/requirements.js";
import { serverPerSuite, startTestServer, type TestServer } from "../helpers/test-server.js";

// The throttle lives in Redis or in process, not in the database: one engine is enough.
const engine = testEngines()[0] as TestEngine;

/** A browser stand-in with the login form's CSRF state loaded. */
async function visitor(server: TestServer, path = "/login"): Promise<HttpClient> {
  const client = new HttpClient(server.url);
  await client.get(path);
  return client;
}

function count(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describeNeeding(await redisMissing(), "account throttles, shared through Redis", () => {
  const prefix = uniqueRedisPrefix();
  let first: TestServer;
  let second: TestServer;
  let mailbox: Mailbox;
  before(async () => {
    mailbox = await new Mailbox().start();
    // Two processes of one deployment: the same Redis and key prefix.
    const env = { REDIS_URL: redisTestUrl, REDIS_KEY_PREFIX: prefix, SMTP_URL: mailbox.url };
    first = await startTestServer(engine, env);
    second = await startTestServer(engine, env);
  });
  after(async () => {
    await first.close();
    await second.close();
    await mailbox.close();
    const redis = new RedisConnections();
    await redis.open();
    await redis.closeAll(prefix);
  });

  test("200 parallel guesses at one account: exactly five reach the password check", async () => {
    const user = await createUser(first.services);
    const client = await visitor(first);
    const guesses = Array.from({ length: 200 }, (_, i) =>
      client.post("/login", { email: user.email, password: `wrong guess ${i}` }),
    );
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    assert.deepEqual(count(statuses), { 401: 5, 429: 195 });
    // The account is locked for this window, on the other process too, even with the right password.
    const other = await visitor(second);
    const right = await other.post("/login", { email: user.email, password: testPassword });
    assert.equal(right.status, 429);
    assert.match(right.body, /Too many failed attempts/);
  });

  test("failures on two processes add up to one budget", async () => {
    const user = await createUser(first.services);
    const [a, b] = [await visitor(first), await visitor(second)];
    for (const client of [a, b, a, b, a]) {
      assert.equal(
        (await client.post("/login", { email: user.email, password: "nope nope nope" })).status,
        401,
      );
    }
    assert.equal((await b.post("/login", { email: user.email, password: testPassword })).status, 429);
  });

  test("a successful login clears the account's failures", async () => {
    const user = await createUser(first.services);
    const client = await visitor(first);
    for (let i = 0; i < 4; i++)
      await client.post("/login", { email: user.email, password: "nope nope nope" });
    assert.equal((await client.post("/login", { email: user.email, password: testPassword })).status, 303);
    const again = await visitor(second);
    for (let i = 0; i < 4; i++) {
      assert.equal(
        (await again.post("/login", { email: user.email, password: "nope nope nope" })).status,
        401,
      );
    }
  });

  test("password-reset requests cannot bomb an inbox, existing account or not", async () => {
    for (const address of [(await createUser(first.services)).email, uniqueEmail("nobody")]) {
      const client = await visitor(first, "/forgot-password");
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => client.post("/forgot-password", { email: address })),
      );
      const statuses = count(answers.map((r) => r.status));
      assert.deepEqual(statuses, { 200: 5, 429: 15 }, address);
      const refused = answers.find((r) => r.status === 429);
      assert.match(refused?.body ?? "", /Too many emails were requested/);
    }
    // Only the existing account got mail, and at most the budget's worth.
    assert.ok(mailbox.received.length <= 5, `${mailbox.received.length} mails`);
  });

  test("sign-up mails count against the same recipient budget", async () => {
    const address = uniqueEmail("victim");
    const client = await visitor(first, "/forgot-password");
    for (let i = 0; i < 5; i++) await client.post("/forgot-password", { email: address });
    const signup = await visitor(second, "/signup");
    const refused = await signup.post("/signup", { name: "Someone", email: address, password: testPassword });
    assert.equal(refused.status, 429);
    assert.match(refused.body, /Too many emails were requested/);
    assert.equal(await first.services.users.findByEmail(address), undefined, "no account was created");
  });
});

describe("account throttle without Redis (one process)", () => {
  const server = serverPerSuite(engine);

  test("checks and counts in one step: 100 parallel guesses, five evaluated", async () => {
    const user = await createUser(server.services);
    const client = await visitor(server);
    const answers = await Promise.all(
      Array.from({ length: 100 }, () =>
        client.post("/login", { email: user.email, password: "nope nope nope" }),
      ),
    );
    assert.deepEqual(count(answers.map((r) => r.status)), { 401: 5, 429: 95 });
  });
});
