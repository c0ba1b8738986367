import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { publicActor } from "../../src/modules/access/actor.js";
import { runCliInProcess as eventgraph } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createSellingProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import { createTestContext, type TestContext } from "../helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`eventgraph orders import-statement (${engine.name})`, () => {
    let ctx: TestContext;
    let env: Record<string, string>;
    before(async () => {
      ctx = await createTestContext(engine);
      env = { DATABASE_URL: ctx.config.databaseUrl };
    });
    after(() => ctx.close());

    test("a dry run reports, --apply marks matched orders paid, a second import changes nothing", async () => {
      const { project, owner } = await createSellingProject(ctx.services, {
        holdMinutes: 4_320,
        bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
      });
      const pass = await createTicketType(ctx.services, owner, project.id, {
        name: "Pass",
        priceMinor: 24_900,
        paymentMode: "BANK_TRANSFER",
      });
      const place = async () =>
        (
          await ctx.services.orders.placeOrder(publicActor, {
            projectId: project.id,
            buyerName: "Bea Buyer",
            buyerEmail: uniqueEmail("buyer"),
            tickets: [{ ticketTypeId: pass.id, name: "Guest", email: uniqueEmail("ticket") }],
          })
        ).order;
      const [exact, short, cancelled] = [await place(), await place(), await place()];
      await ctx.services.refunds.cancelOrder(owner, { id: cancelled.id });
      const statement = [
        "Date;Purpose;Amount",
        `2026-11-28;Ticket ${exact.code.toLowerCase()} thanks;EUR 249,00`,
        `2026-11-28;${short.code};200,00`,
        `2026-11-28;${cancelled.code};249,00`,
        "2026-11-28;Rent November;-1.200,00",
        `2026-11-28;${project.id}-ZZZZZZ;249,00`,
      ].join("\n");
      const file = join(tmpdir(), `statement-${project.id}.csv`);
      await writeFile(file, statement);
      const args = ["orders", "import-statement", "--project", project.id, "--file", file];
      const outcomes = (stdout: string) =>
        (JSON.parse(stdout) as { rows: { outcome: string; orderCode: string | null }[] }).rows.map((r) => [
          r.outcome,
          r.orderCode,
        ]);

      const dry = await eventgraph([...args, "--json"], env);
      assert.equal(dry.code, 0, dry.stderr);
      const expected = [
        ["MATCHED", exact.code],
        ["AMOUNT_MISMATCH", short.code],
        ["REFUSED", cancelled.code],
        ["UNMATCHED", null],
        ["UNMATCHED", `${project.id}-ZZZZZZ`],
      ];
      assert.deepEqual(outcomes(dry.stdout), expected);
      let [state] = [(await ctx.services.orders.ordersByIds([exact.id])).get(exact.id)?.state];
      assert.equal(state, "PENDING", "a dry run changes nothing");

      const applied = await eventgraph([...args, "--apply"], env);
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(
        applied.stdout,
        /Marked 1 paid; 0 already paid, 1 amount mismatch, 1 refused, 2 unmatched\./,
      );
      [state] = [(await ctx.services.orders.ordersByIds([exact.id])).get(exact.id)?.state];
      assert.equal(state, "PAID");

      const again = await eventgraph([...args, "--apply", "--json"], env);
      assert.deepEqual(outcomes(again.stdout)[0], ["ALREADY_PAID", exact.code]);
      const paidEvents = await ctx.database.db
        .selectFrom("audit_events")
        .select("action")
        .where("object_id", "=", exact.id)
        .where("action", "=", "order.paid")
        .execute();
      assert.equal(paidEvents.length, 1, "importing twice pays once");

      await writeFile(file, "Date;Purpose\n2026-11-28;x");
      assert.equal((await eventgraph(args, env)).code, 1);
      assert.equal(
        (await eventgraph(["orders", "import-statement", "--project", "zzzz", "--file", file], env)).code,
        1,
      );
    });
  });
}
