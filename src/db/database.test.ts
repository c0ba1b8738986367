import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../test/helpers/engines.js";
import { createProject } from "../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../test/helpers/test-services.js";
import { reusableQuery } from "./database.js";

const nameOf = reusableQuery(
  (db, id: string) => db.selectFrom("projects").select(["id", "name"]).where("id", "=", id),
  [""] as const,
);

for (const engine of testEngines()) {
  describe(`reusable compiled statements (${engine.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(engine);
    });
    after(() => ctx.close());

    test("refuses a statement whose parameters do not match its placeholders", async () => {
      const twoParameters = reusableQuery(
        (db, id: string) =>
          db.selectFrom("projects").select("id").where("id", "=", id).where("name", "=", "constant"),
        [""] as const,
      );
      await assert.rejects(twoParameters(ctx.database.db, "AAAA"), /2 parameters, expected 1/);
    });

    test("runs the same compiled statement with each call's parameters", async () => {
      const one = await createProject(ctx.services);
      const two = await createProject(ctx.services);
      ctx.queries.length = 0;
      assert.deepEqual(await nameOf(ctx.database.db, one.project.id), [
        { id: one.project.id, name: one.project.name },
      ]);
      assert.deepEqual(await nameOf(ctx.database.db, two.project.id), [
        { id: two.project.id, name: two.project.name },
      ]);
      assert.deepEqual(await nameOf(ctx.database.db, "ZZZZ"), []);
      assert.deepEqual(
        ctx.queries.map((q) => q.parameters),
        [[one.project.id], [two.project.id], ["ZZZZ"]],
      );
      assert.equal(new Set(ctx.queries.map((q) => q.sql)).size, 1);
    });

    test("inside a transaction, reads through the transaction", async () => {
      const { project } = await createProject(ctx.services);
      await ctx.database.db.transaction().execute(async (trx) => {
        await trx
          .updateTable("projects")
          .set({ name: "Renamed in trx" })
          .where("id", "=", project.id)
          .execute();
        assert.equal((await nameOf(trx, project.id))[0]?.name, "Renamed in trx");
      });
    });
  });
}
