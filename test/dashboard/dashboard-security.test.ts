import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { sqliteEngine, testEngines } from "../helpers/engines.js";
import { addMember, createProject, createUser, testPassword, uniqueEmail } from "../helpers/factories.js";
import { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { lastEmailLink } from "../helpers/mail-log.js";
import { serverPerSuite } from "../helpers/test-server.js";

const xss = `<script>alert("x")</script><img src=x onerror=alert(1)>`;

for (const engine of testEngines()) {
  describe(`dashboard security over HTTP (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    async function signedIn(email = uniqueEmail("web")): Promise<HttpClient> {
      const client = new HttpClient(server.url);
      await client.get("/signup");
      const response = await client.post("/signup", { name: "Web Organizer", email, password: testPassword });
      assert.equal(response.status, 303, response.body);
      // Verified, as by the emailed link: creating a project needs it.
      const user = (await server.services.users.findByEmail(email)) ?? assert.fail("no user");
      await server.services.users.markEmailVerified(user.id);
      return client;
    }

    const loggedInAs = (email: string, password = testPassword) => logIn(server.url, email, { password });

    test("refuses a form post without a CSRF token or with a token of another session", async () => {
      const client = await signedIn();
      const other = await signedIn();
      await client.get("/projects/new");
      const missing = await client.post("/projects", { _csrf: null, name: "No token", timezone: "UTC" });
      assert.equal(missing.status, 403);
      assert.match(missing.body, /This form has expired or did not come from this site/);
      await other.get("/projects/new");
      const foreign = await client.post("/projects", {
        _csrf: other.csrfToken(),
        name: "Wrong token",
        timezone: "UTC",
      });
      assert.equal(foreign.status, 403);
      const list = await client.get("/");
      assert.match(list.body, /No projects yet/);
      const ok = await client
        .get("/projects/new")
        .then(() => client.post("/projects", { name: "With token", timezone: "UTC" }));
      assert.equal(ok.status, 303);
    });

    test("refuses a login post without the pre-login token or with a forged one", async () => {
      const user = await createUser(server.services);
      const client = new HttpClient(server.url);
      await client.get("/login");
      const token = client.csrfToken();
      assert.equal(
        (await client.post("/login", { _csrf: null, email: user.email, password: testPassword })).status,
        403,
      );
      assert.equal(
        (await client.post("/login", { _csrf: "forged", email: user.email, password: testPassword })).status,
        403,
      );
      // A token is bound to its cookie: a fresh browser without the cookie cannot replay it.
      const stranger = new HttpClient(server.url);
      const replay = await stranger.post("/login", {
        _csrf: token,
        email: user.email,
        password: testPassword,
      });
      assert.equal(replay.status, 403);
      const ok = await client.post("/login", { _csrf: token, email: user.email, password: testPassword });
      assert.equal(ok.status, 303);
    });

    test("forbids framing and inline script on the login and settings pages", async () => {
      const client = await signedIn();
      await client.get("/projects/new");
      const created = await client.post("/projects", { name: "Headers", timezone: "UTC" });
      const projectPath = created.headers.get("location") ?? "";
      const anonymous = new HttpClient(server.url);
      for (const [browser, path] of [
        [anonymous, "/login"],
        [client, `${projectPath}/settings`],
      ] as const) {
        const response = await browser.get(path);
        assert.equal(response.status, 200, path);
        assert.equal(response.headers.get("x-frame-options"), "DENY");
        const csp = response.headers.get("content-security-policy") ?? "";
        assert.match(csp, /frame-ancestors 'none'/);
        assert.match(csp, /default-src 'self'/);
        assert.match(csp, /script-src 'self'(;|$)/);
        assert.equal(response.headers.get("x-content-type-options"), "nosniff");
        assert.equal(response.headers.get("referrer-policy"), "same-origin");
        assert.equal(response.headers.get("cache-control"), "no-store");
        assert.doesNotMatch(response.body, /<script>|<script [^>]*>[^<]/, "no inline script");
      }
    });

    test("shows the same message for an unknown email and a wrong password, then throttles", async () => {
      const user = await createUser(server.services);
      const client = new HttpClient(server.url);
      await client.get("/login");
      const unknown = await client.post("/login", { email: uniqueEmail("nobody"), password: testPassword });
      const wrong = await client.post("/login", { email: user.email, password: "wrong password!" });
      assert.equal(unknown.status, 401);
      assert.equal(wrong.status, 401);
      const message = (body: string) => /role="alert">([^<]+)</.exec(body)?.[1];
      assert.equal(message(unknown.body), "The email or password is incorrect.");
      assert.equal(message(wrong.body), message(unknown.body));
      for (let i = 0; i < 4; i++)
        await client.post("/login", { email: user.email, password: "wrong password!" });
      // Five failures: even the right password is refused for this account until the window passes.
      const blocked = await client.post("/login", { email: user.email, password: testPassword });
      assert.equal(blocked.status, 429);
      assert.match(blocked.body, /Too many failed attempts/);
      assert.equal(client.cookies.has("evg_session"), false);
    });

    test("sets the session cookie HttpOnly and SameSite=Lax, and ends the session at logout", async () => {
      const user = await createUser(server.services);
      const client = new HttpClient(server.url);
      await client.get("/login");
      const response = await client.post("/login", { email: user.email, password: testPassword });
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith("evg_session="));
      assert.ok(cookie);
      assert.match(cookie, /HttpOnly/i);
      assert.match(cookie, /SameSite=Lax/i);
      assert.doesNotMatch(cookie, /Secure/i, "plain http: no Secure flag");
      const value = client.cookies.get("evg_session") ?? "";
      assert.equal((await client.get("/")).status, 200);
      await client.post("/logout", {});
      const stale = new HttpClient(server.url);
      stale.cookies.set("evg_session", value);
      const after = await stale.get("/");
      assert.equal(after.status, 303);
      assert.match(after.headers.get("location") ?? "", /^\/login/);
    });

    test("renews the session id at login", async () => {
      const user = await createUser(server.services);
      const client = new HttpClient(server.url);
      client.cookies.set("evg_session", "planted-by-an-attacker");
      await client.get("/login");
      await client.post("/login", { email: user.email, password: testPassword });
      const first = client.cookies.get("evg_session");
      assert.ok(first && first !== "planted-by-an-attacker");
      await client.post("/logout", {});
      await client.get("/login");
      await client.post("/login", { email: user.email, password: testPassword });
      assert.notEqual(client.cookies.get("evg_session"), first);
    });

    test("escapes a script in a project name", async () => {
      const client = await signedIn();
      await client.get("/projects/new");
      const created = await client.post("/projects", { name: xss, timezone: "UTC" });
      const page = await client.get(created.headers.get("location") ?? "");
      assert.equal(page.status, 200);
      assert.ok(page.body.includes("&lt;script"), "shown as text");
      assert.ok(!page.body.includes("<script>alert"));
      assert.ok(!page.body.includes(xss));
      assert.ok(!(await client.get("/")).body.includes("<img src=x"));
    });

    test("accepts a verification link once", async () => {
      const email = uniqueEmail("verify");
      await signedIn(email);
      const link = new URL(lastEmailLink(server.logs.text, email, "verify-email"));
      const visitor = new HttpClient(server.url);
      const first = await visitor.get(`${link.pathname}${link.search}`);
      assert.equal(first.status, 200);
      assert.match(first.body, /Email verified/);
      assert.equal((await server.services.users.findByEmail(email))?.emailVerified, true);
      const again = await visitor.get(`${link.pathname}${link.search}`);
      assert.equal(again.status, 400);
      assert.match(again.body, /invalid, has expired or was already used/);
      assert.equal((await visitor.get("/verify-email?token=made-up")).status, 400);
    });

    test("resets a password by the emailed link and logs out every other session", async () => {
      const user = await createUser(server.services);
      const elsewhere = await loggedInAs(user.email);
      const client = new HttpClient(server.url);
      await client.get("/forgot-password");
      const asked = await client.post("/forgot-password", { email: user.email });
      assert.match(asked.body, /If an account exists for/);
      const unknown = await client.post("/forgot-password", { email: uniqueEmail("ghost") });
      assert.match(unknown.body, /If an account exists for/);
      const link = new URL(lastEmailLink(server.logs.text, user.email, "reset-password"));
      await client.get(`${link.pathname}${link.search}`);
      const short = await client.post("/reset-password", {
        token: link.searchParams.get("token") ?? "",
        password: "short",
      });
      assert.equal(short.status, 400);
      assert.match(short.body, /at least 10 characters/);
      const done = await client.post("/reset-password", {
        token: link.searchParams.get("token") ?? "",
        password: "a brand new passphrase",
      });
      assert.equal(done.status, 303);
      assert.equal((await client.get("/")).status, 200, "the resetting browser is logged in");
      assert.equal((await elsewhere.get("/")).status, 303, "the other session ended");
      assert.equal((await client.get(`${link.pathname}${link.search}`)).status, 400, "the link worked once");
      await loggedInAs(user.email, "a brand new passphrase");
    });

    test("answers a stranger's project, a missing one and a malformed id with the same 404 page", async () => {
      const { project } = await createProject(server.services);
      const client = await signedIn();
      await client.get("/"); // shows (and so clears) the welcome message
      const bodies: string[] = [];
      for (const path of [`/b/${project.id}`, `/b/${project.id}/settings`, "/b/ZZZ9", "/b/not-an-id"]) {
        const response = await client.get(path);
        assert.equal(response.status, 404, path);
        bodies.push(response.body.replace(/value="[^"]+"/g, ""));
      }
      assert.equal(new Set(bodies).size, 1);
    });

    test("shows settings to a member but lets only owners and admins change them", async () => {
      const { project, ownerId } = await createProject(server.services);
      const member = await createUser(server.services);
      await addMember(server.services, { kind: "user", userId: ownerId }, project.id, member.email, "MEMBER");
      const client = await loggedInAs(member.email);
      const page = await client.get(`/b/${project.id}/settings`);
      assert.equal(page.status, 200);
      assert.match(
        page.body,
        /Only the project&#39;s owners and admins can change these settings|Only the project's owners/,
      );
      const attempt = await client.post(`/b/${project.id}/settings`, { name: "Hijacked", timezone: "UTC" });
      assert.equal(attempt.status, 403);
      assert.equal((await server.services.projects.get({ kind: "system" }, project.id)).name, project.name);
    });
  });
}

describe("dashboard cookies behind https", () => {
  const server = serverPerSuite(sqliteEngine, {
    BASE_URL: "https://events.example.test",
  });

  test("marks the session cookie Secure when BASE_URL is https", async () => {
    const user = await createUser(server.services);
    const client = new HttpClient(server.url);
    await client.get("/login");
    const response = await client.post("/login", { email: user.email, password: testPassword });
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("evg_session="));
    assert.match(cookie ?? "", /Secure/);
  });
});
