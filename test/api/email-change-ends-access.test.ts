import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { createUser, testPassword, uniqueEmail } from "../helpers/factories.js";
import { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { lastEmailLink } from "../helpers/mail-log.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Issue 39: a reset link sent to the old address before an email change still worked after it (a
// takeover by the old mailbox within the hour), and the change left the account's other sessions in.

for (const engine of testEngines()) {
  describe(`an email change ends reset links and other sessions (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    const loggedInAs = (email: string) => logIn(server.url, email);

    /** The path and query of the newest link logged (no SMTP here) for `to` containing `part`. */
    function lastLink(to: string, part: string): string {
      const links = server.logs.text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { emailTo?: string; link?: string })
        .filter((entry) => entry.emailTo === to && entry.link?.includes(part))
        .map((entry) => new URL(entry.link as string));
      const link = links.at(-1);
      assert.ok(link, `no ${part} link for ${to}`);
      return `${link.pathname}${link.search}`;
    }

    test("the old mailbox's reset link dies, the other session ends, the confirming one stays", async () => {
      const user = await createUser(server.services);
      const confirming = await loggedInAs(user.email);
      const elsewhere = await loggedInAs(user.email);
      const stranger = new HttpClient(server.url);
      await stranger.get("/forgot-password");
      await stranger.post("/forgot-password", { email: user.email });
      const reset = new URL(lastEmailLink(server.logs.text, user.email, "reset-password"));

      await confirming.get("/account");
      const newEmail = uniqueEmail("moved");
      const asked = await confirming.post("/account/email", { newEmail, currentPassword: testPassword });
      assert.equal(asked.status, 303);
      assert.equal((await confirming.get(lastLink(newEmail, "/account/email/confirm"))).status, 303);
      assert.equal((await server.services.users.getById(user.id)).email, newEmail);

      assert.equal((await confirming.get("/account")).status, 200, "the confirming browser stays in");
      assert.equal((await elsewhere.get("/account")).status, 303, "the other session ended");
      const opened = await stranger.get(`${reset.pathname}${reset.search}`);
      assert.equal(opened.status, 400, "the reset link sent to the old address no longer works");
      await loggedInAs(newEmail);
    });
  });
}
