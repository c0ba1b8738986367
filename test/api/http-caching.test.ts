import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { describeInBrowser } from "../helpers/browser.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject, createSession } from "../helpers/factories.js";
import { decoded, raw as rawRequest } from "../helpers/raw-http.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const raw = (
  server: TestServer,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
) => rawRequest(server.url, path, options);

const agendaQuery = (projectId: string) =>
  `{ project(id: "${projectId}") { name sessions(first: 50) { edges { node { id title startsAt endsAt } } } } }`;
const getPath = (query: string) => `/api/graphql?query=${encodeURIComponent(query)}`;

for (const engine of testEngines()) {
  describe(`HTTP the way clients expect it (${engine.name})`, () => {
    let server: TestServer;
    let projectId: string;
    before(async () => {
      server = await startTestServer(engine);
      const { project, owner } = await createPublishedProject(server.services);
      projectId = project.id;
      // Enough sessions that the answer is worth compressing (over 1 KB).
      for (let i = 0; i < 30; i++) {
        await createSession(server.services, owner, projectId, {
          title: `Session ${i} about caching, compression and the things clients expect`,
          status: "PUBLISHED",
          startsAt: new Date(Date.UTC(2026, 4, 4, 9, i)).toISOString(),
        });
      }
    });
    after(() => server.close());

    test("cached answers are compressed per Accept-Encoding, each hit with its own extensions", async () => {
      const path = getPath(agendaQuery(projectId));
      const plain = await raw(server, path);
      assert.equal(plain.status, 200);
      assert.equal(plain.headers["content-encoding"], undefined);
      const expected = JSON.parse(plain.body.toString("utf8"));
      for (const [accept, coding] of [
        ["gzip, deflate, br", "br"],
        ["gzip", "gzip"],
        ["br;q=0.5, gzip;q=1", "gzip"],
        ["br", "br"],
        ["identity", undefined],
        ["gzip;q=0, br;q=0", undefined],
      ] as const) {
        // Twice: the first hit compresses the entry, the second reuses it.
        for (let i = 0; i < 2; i++) {
          const answer = await raw(server, path, { headers: { "accept-encoding": accept } });
          assert.equal(answer.status, 200);
          assert.equal(answer.headers["content-encoding"], coding, accept);
          const body = JSON.parse(decoded(answer));
          assert.deepEqual(body.data, expected.data);
          assert.equal(body.extensions.cached, true);
          assert.ok(body.extensions.rateLimit.remaining < expected.extensions.rateLimit.remaining);
          // A hit is charged and says so in its header fields as an executed answer does.
          assert.equal(Number(answer.headers["x-ratelimit-remaining"]), body.extensions.rateLimit.remaining);
          assert.equal(answer.headers["ratelimit-policy"], plain.headers["ratelimit-policy"]);
          assert.match(String(answer.headers.ratelimit), /^"hourly";r=\d+;t=\d+$/);
          assert.match(String(answer.headers["x-request-id"]), /^[0-9a-f-]{36}$/);
          assert.equal(answer.headers.vary, plain.headers.vary);
          if (coding) assert.ok(answer.body.byteLength < plain.body.byteLength / 3, "compressed well");
        }
      }
    });

    test("executed answers are compressed per Accept-Encoding, large ones too; small ones are not", async () => {
      const sessions = (first: number) =>
        `sessions(first: ${first}) { edges { node { id title startsAt endsAt } } }`;
      // Each document is new to the cache: every answer below is executed, not stored.
      let first = 50;
      for (const [accept, coding] of [
        ["gzip, br", "br"],
        ["gzip", "gzip"],
        ["identity", undefined],
      ] as const) {
        // About 5 KB (compressed on the event loop) and about 10 KB (in the thread pool).
        for (const copies of [1, 2]) {
          first -= 1;
          const fields = Array.from({ length: copies }, (_, i) => `s${i}: ${sessions(first)}`).join(" ");
          const answer = await raw(server, getPath(`{ project(id: "${projectId}") { ${fields} } }`), {
            headers: { "accept-encoding": accept },
          });
          assert.equal(answer.status, 200);
          assert.equal(answer.headers["content-encoding"], coding, accept);
          assert.equal(Number(answer.headers["content-length"]), answer.body.byteLength);
          const body = JSON.parse(decoded(answer));
          assert.equal(body.extensions.cached, false);
          assert.equal(body.data.project.s0.edges.length, 30);
          if (coding) assert.ok(answer.body.byteLength < 3000 * copies, "compressed well");
        }
      }
      const small = await raw(server, getPath(`{ project(id: "${projectId}") { id } }`), {
        headers: { "accept-encoding": "gzip, br" },
      });
      assert.equal(small.headers["content-encoding"], undefined);
      assert.equal(JSON.parse(decoded(small)).data.project.id, projectId);
    });

    test("token-less GET and HEAD answers are public with a weak ETag; If-None-Match gets 304; writes change the tag", async () => {
      const path = getPath(`{ project(id: "${projectId}") { name description } }`);
      const first = await raw(server, path);
      assert.equal(first.status, 200);
      assert.match(String(first.headers["cache-control"]), /^public, max-age=\d+$/);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/".+"$/);
      assert.match(String(first.headers.vary), /accept-encoding/);
      assert.match(String(first.headers.vary), /authorization/);
      // Executed (miss) and cached (hit) answers carry the same validator.
      const again = await raw(server, path);
      assert.equal(again.headers.etag, etag);
      for (const asked of [etag, etag.slice(2), `"other", ${etag}`]) {
        const revalidated = await raw(server, path, { headers: { "if-none-match": asked } });
        assert.equal(revalidated.status, 304, asked);
        assert.equal(revalidated.body.byteLength, 0);
        assert.equal(revalidated.headers.etag, etag);
      }
      // HEAD answers as GET would, without the body: a CDN or link checker may ask it first.
      const head = await raw(server, path, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.etag, etag);
      assert.equal(head.body.byteLength, 0);
      assert.ok(Number(head.headers["content-length"]) > 0);
      const headRevalidated = await raw(server, path, { method: "HEAD", headers: { "if-none-match": etag } });
      assert.equal(headRevalidated.status, 304);
      const headWrite = await raw(server, getPath(`mutation { __typename }`), { method: "HEAD" });
      assert.equal(headWrite.status, 405);
      const { owner } = await ownerOf(server, projectId);
      await server.services.projects.update(owner, projectId, { description: "Now with a description" });
      const changed = await raw(server, path, { headers: { "if-none-match": etag } });
      assert.equal(changed.status, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.match(decoded(changed), /Now with a description/);
    });

    test("POST answers and authenticated answers are never stored by shared caches", async () => {
      const query = agendaQuery(projectId);
      const post = await raw(server, "/api/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      assert.equal(post.headers["cache-control"], "no-store");
      assert.equal(post.headers.etag, undefined);
      const { token } = await createApp(server.services, {
        projectId: (await ownerOf(server, projectId)).homeId,
      });
      for (let i = 0; i < 2; i++) {
        const authenticated = await raw(server, getPath(query), {
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(authenticated.status, 200);
        assert.equal(authenticated.headers["cache-control"], "private, no-store");
        assert.equal(authenticated.headers.etag, undefined);
      }
    });

    test("CORS: any origin may call the API without credentials; preflights answer 204", async () => {
      const preflight = await raw(server, "/api/graphql", {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, content-type",
        },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers["access-control-allow-origin"], "*");
      assert.match(String(preflight.headers["access-control-allow-methods"]), /POST/);
      assert.match(String(preflight.headers["access-control-allow-headers"]), /authorization/);
      assert.equal(preflight.headers["access-control-allow-credentials"], undefined);
      // An executed answer, the same answer from the response cache (written by another path) and
      // refusals, before and after the body is parsed: a browser app reads each of them.
      const query = `{ project(id: "${projectId}") { name, timezone } }`;
      const answers = [
        await raw(server, getPath(query), { headers: { origin: "https://app.example" } }),
        await raw(server, getPath(query), { headers: { origin: "https://app.example" } }),
        await raw(server, "/api/graphql", {
          method: "POST",
          headers: { origin: "https://app.example", "content-type": "application/json" },
          body: "{not json",
        }),
        await raw(server, getPath(query), {
          headers: { origin: "https://app.example", authorization: "Bearer evg_not_a_token" },
        }),
      ];
      assert.deepEqual(
        answers.map((a) => [a.status, JSON.parse(a.body.toString()).extensions?.cached]),
        [
          [200, false],
          [200, true],
          [400, undefined],
          [401, undefined],
        ],
      );
      for (const answer of answers) {
        assert.equal(answer.headers["access-control-allow-origin"], "*");
        assert.match(String(answer.headers["access-control-expose-headers"]), /ratelimit/);
        assert.equal(answer.headers.vary, "accept, accept-encoding, authorization, eventgraph-version");
      }
      // The dashboard is not opened up: no CORS header on its pages.
      const page = await raw(server, "/login", { headers: { origin: "https://app.example" } });
      assert.equal(page.headers["access-control-allow-origin"], undefined);
    });

    test("the IETF RateLimit fields stand beside x-ratelimit-*", async () => {
      const answer = await raw(server, getPath(`{ project(id: "${projectId}") { name } }`));
      const limit = Number(answer.headers["x-ratelimit-limit"]);
      const remaining = Number(answer.headers["x-ratelimit-remaining"]);
      assert.equal(answer.headers["ratelimit-policy"], `"hourly";q=${limit};w=3600`);
      const match = /^"hourly";r=(\d+);t=(\d+)$/.exec(String(answer.headers.ratelimit));
      assert.ok(match, String(answer.headers.ratelimit));
      assert.equal(Number(match[1]), remaining);
      assert.ok(Number(match[2]) <= 3600);
    });

    test("a cached event page is sent compressed per Accept-Encoding, the same page in every coding", async () => {
      const path = `/e/${projectId}`;
      const plain = await raw(server, path);
      assert.equal(plain.status, 200);
      assert.ok(plain.body.byteLength > 1024, "a page worth compressing");
      for (const [accept, coding] of [
        ["gzip, deflate, br", "br"],
        ["gzip", "gzip"],
      ] as const) {
        // Twice: the first hit compresses the stored page, the second reuses it.
        for (let i = 0; i < 2; i++) {
          const page = await raw(server, path, { headers: { "accept-encoding": accept } });
          assert.equal(page.status, 200);
          assert.equal(page.headers["x-cache"], "hit");
          assert.equal(page.headers["content-encoding"], coding);
          assert.match(String(page.headers.vary), /accept-encoding/i);
          assert.equal(Number(page.headers["content-length"]), page.body.byteLength);
          assert.ok(page.body.byteLength < plain.body.byteLength / 3, "compressed well");
          assert.equal(decoded(page), plain.body.toString("utf8"));
          // The site's own header fields still come with it.
          assert.equal(page.headers["x-frame-options"], "DENY");
          // The stored page's gzip stream, closed by an empty final stored block (then CRC and
          // length): compressed once and kept, not compressed again by the plugin for this request.
          if (coding === "gzip") assert.deepEqual([...page.body.subarray(-13, -8)], [1, 0, 0, 255, 255]);
        }
      }
    });

    test("pages and docs assets are compressed; versioned assets are immutable", async () => {
      const page = await raw(server, "/graphql/reference/", { headers: { "accept-encoding": "br" } });
      assert.equal(page.status, 200);
      assert.equal(page.headers["content-encoding"], "br");
      assert.match(decoded(page), /<html/);
      // The reference is compressed once and kept: a stored buffer, sent with its length (the
      // plugin compressing it per request streams it without one), the same bytes every time.
      assert.equal(Number(page.headers["content-length"]), page.body.byteLength);
      const again = await raw(server, "/graphql/reference/", { headers: { "accept-encoding": "br" } });
      assert.deepEqual(again.body, page.body);
      assert.equal(again.headers["content-security-policy"], page.headers["content-security-policy"]);
      assert.match(String(again.headers.vary), /accept-encoding/i);
      // The dashboard's stylesheet likewise (stored, so with its length).
      const plainCss = await raw(server, "/assets/dashboard.css");
      const css = await raw(server, "/assets/dashboard.css", { headers: { "accept-encoding": "gzip" } });
      assert.equal(css.headers["content-encoding"], "gzip");
      assert.equal(Number(css.headers["content-length"]), css.body.byteLength);
      assert.equal(decoded(css), plainCss.body.toString("utf8"));
      const asset = await raw(server, "/graphql/reference/assets/docs.css", {
        headers: { "accept-encoding": "gzip" },
      });
      assert.equal(asset.headers["content-encoding"], "gzip");
      assert.match(String(asset.headers["cache-control"]), /max-age=300/);
      const etag = String(asset.headers.etag);
      const version = etag.replaceAll('"', "");
      const versioned = await raw(server, `/graphql/reference/assets/docs.css?v=${version}`);
      assert.equal(versioned.headers["cache-control"], "public, max-age=31536000, immutable");
      assert.equal(decoded(versioned), decoded(asset));
      const notModified = await raw(server, "/graphql/reference/assets/docs.css", {
        headers: { "if-none-match": etag },
      });
      assert.equal(notModified.status, 304);
    });
  });
}

async function ownerOf(server: TestServer, projectId: string) {
  const row = await server.database.db
    .selectFrom("project_members")
    .select("user_id")
    .where("project_id", "=", projectId)
    .where("role", "=", "OWNER")
    .executeTakeFirstOrThrow();
  return { owner: { kind: "user" as const, userId: row.user_id }, homeId: projectId };
}

describeInBrowser("Chromium decodes the compressed cached answers", {}, (fx) => {
  test("a browser on another origin reads cached answers in brotli and in gzip", async () => {
    const { server } = fx;
    const { project, owner } = await createPublishedProject(server.services);
    for (let i = 0; i < 20; i++) {
      await createSession(server.services, owner, project.id, {
        title: `Session ${i} that makes the answer long enough to compress`,
        status: "PUBLISHED",
        startsAt: new Date(Date.UTC(2026, 4, 4, 9, i)).toISOString(),
      });
    }
    const url = `${server.url}${getPath(agendaQuery(project.id))}`;
    // Chromium asks for br first; the second page asks for gzip only.
    for (const acceptEncoding of [undefined, "gzip"]) {
      const page = await fx.desktop();
      if (acceptEncoding) await page.setExtraHTTPHeaders({ "accept-encoding": acceptEncoding });
      // about:blank is another origin than the API: the call needs CORS.
      const counts = await page.evaluate(async (address) => {
        const out: number[] = [];
        for (let i = 0; i < 3; i++) {
          // no-store: each fetch reaches the server (the later ones are cache hits there).
          const response = await fetch(address, { cache: "no-store" });
          const body = await response.json();
          out.push(body.data.project.sessions.edges.length);
        }
        return out;
      }, url);
      assert.deepEqual(counts, [20, 20, 20], acceptEncoding ?? "default");
    }
  });
});
