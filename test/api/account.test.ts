import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import {
  addMember,
  createProject,
  createUser,
  testPassword,
  uniqueEmail,
  userActor,
} from "../helpers/factories.js";
import { HttpClient } from "../helpers/http-client.js";
import { Mailbox } from "../helpers/mailbox.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverWithMailboxPerSuite } from "../helpers/test-server.js";

const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const iphone =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

for (const engine of testEngines()) {
  describe(`account page: name, email, password, sessions, deletion (${engine.name})`, () => {
    const { server, mailbox } = serverWithMailboxPerSuite(engine);

    /** A logged-in browser stand-in sending `userAgent` on every request. */
    async function logIn(email: string, password = testPassword, userAgent = firefox) {
      const client = new HttpClient(server.url, { "user-agent": userAgent });
      await client.get("/login");
      const response = await client.post("/login", { email, password });
      assert.equal(response.status, 303, response.body);
      return client;
    }

    async function isLoggedIn(client: HttpClient): Promise<boolean> {
      return (await client.get("/account")).status === 200;
    }

    test("nobody reaches the account page or its forms without a session", async () => {
      const anonymous = new HttpClient(server.url);
      const page = await anonymous.get("/account");
      assert.equal(page.status, 303);
      assert.equal(page.headers.get("location"), "/login?next=%2Faccount");
      await anonymous.get("/login");
      const post = await anonymous.post("/account/name", { name: "Mallory" });
      assert.equal(post.status, 403, "the pre-login CSRF token does not open session forms");
    });

    test("changes the name; a blank or over-long name is refused next to the field", async () => {
      const user = await createUser(server.services, { name: "Ada Before" });
      const client = await logIn(user.email);
      await client.get("/account");
      for (const name of ["   ", "x".repeat(121)]) {
        const refused = await client.post("/account/name", { name });
        assert.equal(refused.status, 400);
        assert.match(refused.body, /field-error/);
      }
      const saved = await client.post("/account/name", { name: "Ada After" });
      assert.equal(saved.status, 303);
      assert.equal((await server.services.users.getById(user.id)).name, "Ada After");
    });

    test("changes the email only once a link sent to the new address is opened, and tells the old one", async () => {
      const user = await createUser(server.services);
      const client = await logIn(user.email);
      await client.get("/account");
      const newEmail = uniqueEmail("moved");

      const wrong = await client.post("/account/email", { newEmail, currentPassword: "not my password" });
      assert.equal(wrong.status, 400);
      assert.match(wrong.body, /Current password is wrong/);
      assert.equal(mailbox.to(newEmail).length, 0);

      const sent = await client.post("/account/email", { newEmail, currentPassword: testPassword });
      assert.equal(sent.status, 303);
      const mail = await mailbox.latest(newEmail);
      assert.match(mail.subject, /Confirm your new email/);
      // Nothing changed yet; the page says what waits.
      assert.equal((await server.services.users.getById(user.id)).email, user.email);
      assert.match(
        (await client.get("/account")).body,
        new RegExp(`confirmation link to <strong class="break-all">${newEmail}`),
      );

      const link = Mailbox.linkIn(mail, server.url);
      const opened = await client.get(link);
      assert.equal(opened.status, 303);
      const changed = await server.services.users.getById(user.id);
      assert.equal(changed.email, newEmail);
      assert.equal(changed.emailVerified, true);
      assert.match((await mailbox.latest(user.email)).subject, /Your Eventgraph email was changed/);
      assert.equal((await new HttpClient(server.url).get(link)).status, 400, "a link works once");

      // The new address logs in; the old one no longer does.
      await logIn(newEmail);
      const old = new HttpClient(server.url);
      await old.get("/login");
      assert.equal((await old.post("/login", { email: user.email, password: testPassword })).status, 401);
    });

    test("does not reveal whether another account uses an address, and never takes it over", async () => {
      const user = await createUser(server.services);
      const other = await createUser(server.services);
      const client = await logIn(user.email);
      await client.get("/account");
      const before = mailbox.to(other.email).length;
      const answer = await client.post("/account/email", {
        newEmail: other.email,
        currentPassword: testPassword,
      });
      assert.equal(answer.status, 303, "the same answer as for a free address");
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(mailbox.to(other.email).length, before, "the other account's owner gets nothing");
      assert.equal((await server.services.users.getById(user.id)).email, user.email);

      // A link issued while an address was free fails once someone signed up with it.
      const free = uniqueEmail("race");
      await client.get("/account");
      await client.post("/account/email", { newEmail: free, currentPassword: testPassword });
      const link = Mailbox.linkIn(await mailbox.latest(free), server.url);
      await createUser(server.services, { email: free });
      const opened = await new HttpClient(server.url).get(link);
      assert.equal(opened.status, 409);
      assert.match(opened.body, /Another account uses this address now/);
      assert.equal((await server.services.users.getById(user.id)).email, user.email);
    });

    test("changes the password after checking the current one, ending every other session", async () => {
      const user = await createUser(server.services);
      const here = await logIn(user.email, testPassword, firefox);
      const phone = await logIn(user.email, testPassword, iphone);
      await here.get("/account");
      const weak = await here.post("/account/password", {
        currentPassword: testPassword,
        newPassword: "short",
      });
      assert.equal(weak.status, 400);
      const wrong = await here.post("/account/password", {
        currentPassword: "guess guess guess",
        newPassword: "a brand new password",
      });
      assert.equal(wrong.status, 400);
      assert.equal(await isLoggedIn(phone), true);

      await here.get("/account");
      const changed = await here.post("/account/password", {
        currentPassword: testPassword,
        newPassword: "a brand new password",
      });
      assert.equal(changed.status, 303);
      assert.equal(await isLoggedIn(here), true, "this session stays");
      assert.equal(await isLoggedIn(phone), false, "every other session ended");
      assert.match((await mailbox.latest(user.email)).subject, /password was changed/);
      await logIn(user.email, "a brand new password");
    });

    test("counts wrong current passwords per account: 50 parallel guesses get 5 checks", async () => {
      const user = await createUser(server.services);
      const client = await logIn(user.email);
      await client.get("/account");
      const csrf = client.csrfToken();
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          client.post("/account/password", {
            _csrf: csrf,
            currentPassword: `guess ${i}`,
            newPassword: "whatever whatever",
          }),
        ),
      );
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 400).length, 5);
      assert.equal(statuses.filter((s) => s === 429).length, 45);
      // Even the right password now waits: the budget is the account's, not the form's.
      const right = await client.post("/account/password", {
        _csrf: csrf,
        currentPassword: testPassword,
        newPassword: "whatever whatever",
      });
      assert.equal(right.status, 429);
      assert.match(right.body, /Too many wrong passwords/);
    });

    test("lists sessions with device, address and last use, and ends one of them but never another user's", async () => {
      const user = await createUser(server.services);
      const here = await logIn(user.email, testPassword, firefox);
      const phone = await logIn(user.email, testPassword, iphone);
      const page = await here.get("/account");
      assert.match(page.body, /Firefox on Linux[\s\S]*this device/);
      assert.match(page.body, /Safari on iOS/);
      assert.match(page.body, /<code>127\.0\.0\.1<\/code>/);
      const sessions = await server.services.sessions.listForUser(user.id, "");
      assert.equal(sessions.length, 2);
      const phoneSession = sessions.find((s) => s.userAgent === iphone);
      assert.ok(phoneSession);

      // Someone else's session id does nothing.
      const stranger = await createUser(server.services);
      const strangerClient = await logIn(stranger.email);
      await strangerClient.get("/account");
      const foreign = await strangerClient.post("/account/sessions/end", { session: phoneSession.id });
      assert.equal(foreign.status, 303);
      assert.equal(await isLoggedIn(phone), true);
      assert.equal(
        (await strangerClient.post("/account/sessions/end", { session: "x".repeat(5000) })).status,
        303,
      );

      await here.get("/account");
      await here.post("/account/sessions/end", { session: phoneSession.id });
      assert.equal(await isLoggedIn(phone), false);
      assert.equal(await isLoggedIn(here), true);

      const third = await logIn(user.email, testPassword, iphone);
      await here.get("/account");
      await here.post("/account/sessions/end-others", {});
      assert.equal(await isLoggedIn(third), false);
      assert.equal(await isLoggedIn(here), true);
    });

    test("refuses to delete the only owner of a project, naming it; deletes once another owner exists", async () => {
      const { user, project } = await createOrganizer(server.services, { project: { name: "Sole Summit" } });
      const { project: shared } = await createProject(server.services, {
        ownerId: user.id,
        input: { name: "Shared Days" },
      });
      const colleague = await createUser(server.services);
      await addMember(server.services, userActor(user.id), shared.id, colleague.email, "OWNER");
      const client = await logIn(user.email);
      await client.get("/account");

      const wrong = await client.post("/account/delete", { currentPassword: "nope nope nope" });
      assert.equal(wrong.status, 400);
      const refused = await client.post("/account/delete", { currentPassword: testPassword });
      assert.equal(refused.status, 409);
      assert.match(refused.body, new RegExp(`only owner of “Sole Summit” \\(${project.id}\\)`));
      assert.doesNotMatch(refused.body, /Shared Days/, "a project with another owner is no obstacle");
      assert.ok(await server.services.users.findByEmail(user.email), "nothing was deleted");

      await addMember(server.services, userActor(user.id), project.id, colleague.email, "OWNER");
      await client.get("/account");
      const deleted = await client.post("/account/delete", { currentPassword: testPassword });
      assert.equal(deleted.status, 303);
      assert.equal(deleted.headers.get("location"), "/login");
      assert.equal(await server.services.users.findByEmail(user.email), undefined);
      assert.equal(await isLoggedIn(client), false);
      const members = await server.services.members.list(userActor(colleague.id), project.id);
      assert.deepEqual(
        members.map((m) => m.userId),
        [colleague.id],
      );
    });

    test("two owners deleting their accounts at once leave the project one of them", async () => {
      const first = await createUser(server.services);
      const second = await createUser(server.services);
      const { project } = await createProject(server.services, { ownerId: first.id });
      await addMember(server.services, userActor(first.id), project.id, second.email, "OWNER");
      const results = await Promise.allSettled([
        server.services.account.deleteAccount(first.id, { currentPassword: testPassword }),
        server.services.account.deleteAccount(second.id, { currentPassword: testPassword }),
      ]);
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1, JSON.stringify(results));
      const survivors = [first, second].filter(
        (u) => results[[first, second].indexOf(u)]?.status === "rejected",
      );
      const owners = await server.services.members.list({ kind: "system" }, project.id);
      assert.deepEqual(
        owners.map((m) => m.userId),
        survivors.map((u) => u.id),
      );
    });
  });
}
