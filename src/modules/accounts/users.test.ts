import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { createUser, testPassword, uniqueEmail } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`accounts (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("rejects an invalid email, a short password and an empty name, naming each field", async () => {
      await rejectsWithFieldErrors(
        ctx.services.users.create({ email: "not-an-email", name: " ", password: "short" }),
        ["email", "name", "password"],
      );
    });

    test("refuses a second account with the same email in another case", async () => {
      const email = uniqueEmail("Case");
      await createUser(ctx.services, { email });
      await assert.rejects(createUser(ctx.services, { email: email.toUpperCase() }), { code: "CONFLICT" });
    });

    test("never stores the password in clear and authenticates only the right one", async () => {
      const user = await createUser(ctx.services);
      const row = await ctx.database.db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", user.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.password_hash.startsWith("scrypt$"));
      assert.ok(!row.password_hash.includes(testPassword));
      assert.equal(await ctx.services.users.authenticate(user.email, "wrong password!"), undefined);
      assert.equal(await ctx.services.users.authenticate(uniqueEmail(), testPassword), undefined);
      const ok = await ctx.services.users.authenticate(user.email.toUpperCase(), testPassword);
      assert.equal(ok?.id, user.id);
    });

    test("starts unverified and keeps the first verification time", async () => {
      const user = await createUser(ctx.services, { verified: false });
      assert.equal(user.emailVerified, false);
      const verified = await ctx.services.users.markEmailVerified(user.id);
      assert.equal(verified.emailVerified, true);
      const first = await ctx.database.db
        .selectFrom("users")
        .select("email_verified_at")
        .where("id", "=", user.id)
        .executeTakeFirstOrThrow();
      await ctx.services.users.markEmailVerified(user.id);
      const second = await ctx.database.db
        .selectFrom("users")
        .select("email_verified_at")
        .where("id", "=", user.id)
        .executeTakeFirstOrThrow();
      assert.equal(second.email_verified_at, first.email_verified_at);
    });
  });
}
