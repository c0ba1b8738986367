import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createProject, createTicketType, userActor } from "../../../test/helpers/factories.js";
import { temporaryFolder } from "../../../test/helpers/temporary.js";
import { createTestContext, type TestContext } from "../../../test/helpers/test-services.js";
import { throwawayPostgresDatabase } from "../../../test/helpers/throwaway-database.js";
import { openDatabase } from "../../db/database.js";
import { migrateToLatest, migrateUpTo } from "../../db/migrate.js";

// Issue 38: two ticket types named "Standard" were accepted, and a CSV import then put every row on
// one of them without a word. A project's ticket type names are now unique, case-insensitively.
for (const engine of testEngines()) {
  describe(`ticket type names are unique in a project (${engine.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(engine);
    });
    after(() => ctx.close());

    test("a second ticket type of the same name, in any case, is a CONFLICT on the name", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      await createTicketType(ctx.services, owner, project.id, { name: "Standard" });
      await assert.rejects(
        createTicketType(ctx.services, owner, project.id, { name: "STANDARD" }),
        (error: { code: string; details: { fieldErrors: { field: string[]; message: string }[] } }) => {
          assert.equal(error.code, "CONFLICT");
          assert.deepEqual(error.details.fieldErrors[0]?.field, ["name"]);
          assert.match(error.details.fieldErrors[0]?.message ?? "", /already named “STANDARD”/);
          return true;
        },
      );
      const vip = await createTicketType(ctx.services, owner, project.id, { name: "VIP" });
      await assert.rejects(ctx.services.tickets.updateTicketType(owner, { id: vip.id, name: "standard" }), {
        code: "CONFLICT",
      });
      // Its own name in another case, and the same name in another project, are fine.
      await ctx.services.tickets.updateTicketType(owner, { id: vip.id, name: "vip" });
      const { project: other, ownerId: otherOwner } = await createProject(ctx.services);
      await createTicketType(ctx.services, userActor(otherOwner), other.id, { name: "Standard" });
    });

    test("ten creations of one name at once make exactly one ticket type", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => createTicketType(ctx.services, owner, project.id, { name: "Race" })),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of results)
        if (r.status === "rejected") assert.equal((r.reason as { code: string }).code, "CONFLICT");
    });
  });
}

describe("the migration renames existing duplicates before the unique index", () => {
  test("the oldest keeps its name, later ones get (2), (3) and skip names in use", async () => {
    const targets = [
      { url: `sqlite:${join(temporaryFolder("eventgraph-names-"), "db.sqlite")}`, drop: async () => {} },
    ];
    if (process.env.DATABASE_URL_POSTGRES) {
      targets.push(await throwawayPostgresDatabase(process.env.DATABASE_URL_POSTGRES, "names"));
    }
    for (const target of targets) {
      const database = openDatabase(target.url);
      try {
        await migrateUpTo(database.db, "2026-11-28T11-00_billing-details");
        const now = "2026-11-01T00:00:00.000Z";
        await database.db
          .insertInto("projects")
          .values({
            id: "P001",
            name: "P",
            timezone: "UTC",
            status: "DRAFT",
            created_at: now,
            updated_at: now,
          } as never)
          .execute();
        const types = ["Standard", "standard", "Standard (2)", "STANDARD", "VIP"];
        for (const [i, name] of types.entries()) {
          await database.db
            .insertInto("ticket_types")
            .values({
              id: `t${i}`,
              project_id: "P001",
              name,
              description: null,
              price_minor: 0,
              currency: "EUR",
              quantity: 10,
              sales_start_at: null,
              sales_end_at: null,
              created_at: `2026-11-0${i + 1}T00:00:00.000Z`,
              updated_at: now,
            })
            .execute();
        }
        await migrateToLatest(database.db);
        const names = await database.db
          .selectFrom("ticket_types")
          .select(["id", "name"])
          .orderBy("id")
          .execute();
        assert.deepEqual(
          names.map((n) => n.name),
          ["Standard", "standard (2)", "Standard (2) (2)", "STANDARD (3)", "VIP"],
        );
      } finally {
        await database.close();
        await target.drop();
      }
    }
  });
});
