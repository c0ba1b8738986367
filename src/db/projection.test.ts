import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../test/helpers/engines.js";
import { createProject } from "../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../test/helpers/test-services.js";
import { idList, inIdList, projectedQuery, shapedQuery } from "./projection.js";

const projectsWithIds = projectedQuery(
  ["id", "name", "timezone"] as const,
  ["id"],
  (db, columns, ids: string | string[]) =>
    db
      .selectFrom("projects")
      .select(columns)
      .where(inIdList(db, "id", ids)),
  [""] as const,
);

// A name filter that is part of the structure only when asked for.
const projectsNamed = shapedQuery((db, spec: { byName: boolean }, values) => {
  const q = db
    .selectFrom("projects")
    .select("id")
    .where("id", "=", values.id as string);
  return spec.byName ? q.where("name", "=", values.name as string) : q;
});

for (const engine of testEngines()) {
  describe(`statements prepared once per shape (${engine.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(engine);
    });
    after(() => ctx.close());

    test("refuses a shaped statement that freezes a value into its shape", async () => {
      const frozen = shapedQuery((db, _spec: Record<string, never>, values) =>
        db
          .selectFrom("projects")
          .select("id")
          .where("id", "=", values.id as string)
          .where("name", "=", "a constant"),
      );
      await assert.rejects(frozen(ctx.database.db, {}, { id: "AAAA" }), /not a named value/);
    });

    test("runs one statement per shape with each run's values", async () => {
      const one = await createProject(ctx.services);
      const two = await createProject(ctx.services);
      ctx.queries.length = 0;
      const db = ctx.database.db;
      assert.deepEqual(await projectsNamed(db, { byName: false }, { id: one.project.id }), [
        { id: one.project.id },
      ]);
      assert.deepEqual(await projectsNamed(db, { byName: false }, { id: two.project.id }), [
        { id: two.project.id },
      ]);
      assert.deepEqual(await projectsNamed(db, { byName: true }, { id: one.project.id, name: "other" }), []);
      assert.deepEqual(
        ctx.queries.map((q) => q.parameters),
        [[one.project.id], [two.project.id], [one.project.id, "other"]],
      );
      assert.equal(new Set(ctx.queries.map((q) => q.sql)).size, 2);
    });

    test("reads only the columns asked for, plus the key, for any number of ids", async () => {
      const one = await createProject(ctx.services);
      const two = await createProject(ctx.services);
      const db = ctx.database.db;
      const rows = await projectsWithIds(db, ["name"], idList(db, [one.project.id, two.project.id]));
      assert.deepEqual(
        rows.sort((a, b) => a.id.localeCompare(b.id)),
        [one.project, two.project]
          .map((p) => ({ id: p.id, name: p.name }))
          .sort((a, b) => a.id.localeCompare(b.id)),
      );
      const all = await projectsWithIds(db, undefined, idList(db, [one.project.id]));
      assert.deepEqual(Object.keys(all[0] ?? {}), ["id", "name", "timezone"]);
    });
  });
}
