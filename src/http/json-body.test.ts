import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Fastify, { type FastifyInstance } from "fastify";
import { registerJsonBodyParser } from "./json-body.js";

describe("the JSON body parser", () => {
  let app: FastifyInstance;
  // What the route received, request by request.
  const received: unknown[] = [];
  before(async () => {
    app = Fastify();
    registerJsonBodyParser(app);
    app.post("/", (request, reply) => {
      received.push(request.body);
      // A handler that tries to change what it was given: a remembered body must stay as it was.
      let changed = true;
      try {
        (request.body as { variables: { a: number[] } }).variables.a.push(4);
      } catch {
        changed = false;
      }
      return reply.send({ changed });
    });
    await app.ready();
  });
  after(() => app.close());

  const post = (payload: string) =>
    app.inject({ method: "POST", url: "/", headers: { "content-type": "application/json" }, payload });

  test("hands a repeated body out parsed once, frozen to its last level", async () => {
    const body = JSON.stringify({ query: "{ a }", variables: { a: [1, 2, 3] } });
    const answers = [await post(body), await post(body)];
    assert.deepEqual(
      answers.map((a) => a.json()),
      [{ changed: false }, { changed: false }],
    );
    const [first, second] = received.slice(-2);
    assert.equal(first, second, "the second request got a parse of its own");
    assert.deepEqual(second, { query: "{ a }", variables: { a: [1, 2, 3] } });
  });

  test("parses a long body anew each time, and may be changed by its handler", async () => {
    const body = JSON.stringify({ query: `{ a }${" ".repeat(3000)}`, variables: { a: [1] } });
    const answers = [await post(body), await post(body)];
    assert.deepEqual(
      answers.map((a) => a.json()),
      [{ changed: true }, { changed: true }],
    );
    const [first, second] = received.slice(-2);
    assert.notEqual(first, second);
  });

  test("refuses a bad body every time it is sent", async () => {
    const deep = `{"variables":{"a":${"[".repeat(65)}${"]".repeat(65)}}}`;
    for (const body of [deep, deep, '{"__proto__":{"x":1}}', '{"__proto__":{"x":1}}', "{", "{"]) {
      const answer = await post(body);
      assert.equal(answer.statusCode, 400, body);
    }
  });
});
