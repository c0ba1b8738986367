import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import { runCliInProcess as eventgraph } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { createProject, createTicketType, userActor } from "../helpers/factories.js";
import { temporaryFolder } from "../helpers/temporary.js";
import { createTestContext, type TestContext } from "../helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`eventgraph attendees import / export (${engine.name})`, () => {
    let ctx: TestContext;
    let env: Record<string, string>;
    const dir = temporaryFolder("eventgraph-cli-attendees-");
    before(async () => {
      ctx = await createTestContext(engine);
      env = { DATABASE_URL: ctx.config.databaseUrl };
    });
    after(() => ctx.close());

    async function projectWithTickets() {
      const { project, ownerId } = await createProject(ctx.services);
      await createTicketType(ctx.services, userActor(ownerId), project.id, { name: "Standard", quantity: 2 });
      return project;
    }

    test("exits 2 without --project or --file, and 1 for a missing file or unknown project", async () => {
      assert.equal((await eventgraph(["attendees", "import", "--file", "x.csv"], env)).code, 2);
      assert.equal((await eventgraph(["attendees", "export"], env)).code, 2);
      const project = await projectWithTickets();
      const missing = await eventgraph(
        ["attendees", "import", "--project", project.id, "--file", join(dir, "none.csv")],
        env,
      );
      assert.equal(missing.code, 1);
      const file = join(dir, "one.csv");
      writeFileSync(file, "name,email,ticket\nAda,ada@example.org,Standard\n");
      const unknown = await eventgraph(["attendees", "import", "--project", "zzzz", "--file", file], env);
      assert.deepEqual([unknown.code, unknown.stderr], [1, "error: Project not found\n"]);
      const noColumns = join(dir, "no-columns.csv");
      writeFileSync(noColumns, "who,where\nAda,Paris\n");
      const bad = await eventgraph(
        ["attendees", "import", "--project", project.id, "--file", noColumns],
        env,
      );
      assert.equal(bad.code, 1);
      assert.match(
        bad.stderr,
        /has no column for name \(or first name\), email, ticket type \(its header: who, where\)/,
      );
    });

    test("--dry-run reports per-row problems without writing; the import then registers the valid rows once", async () => {
      const project = await projectWithTickets();
      const file = join(dir, `${project.id}.csv`);
      writeFileSync(
        file,
        [
          "Name,Email,Ticket type",
          `Ada,ada-${project.id}@example.org,Standard`,
          `Bob,bob-${project.id}@example.org,Standard`,
          `Cy,cy-${project.id}@example.org,Standard`,
          "Bad,nope,Standard",
        ].join("\n"),
      );
      const args = ["attendees", "import", "--project", project.id, "--file", file, "--json"];
      const dry = await eventgraph([...args, "--dry-run"], env);
      assert.equal(dry.code, 0, dry.stderr);
      const dryResult = JSON.parse(dry.stdout);
      assert.deepEqual(
        [dryResult.dryRun, dryResult.total, dryResult.imported, dryResult.skipped],
        [true, 4, 2, 2],
      );
      assert.deepEqual(
        dryResult.problems.map((p: { line: number; kind: string }) => [p.line, p.kind]),
        [
          [4, "sold-out"],
          [5, "invalid"],
        ],
      );
      const real = JSON.parse((await eventgraph(args, env)).stdout);
      assert.equal(real.imported, 2);
      const again = JSON.parse((await eventgraph(args, env)).stdout);
      assert.equal(again.imported, 0, "a second run registers nobody twice");

      const human = await eventgraph(
        ["attendees", "import", "--project", project.id, "--file", file, "--dry-run"],
        env,
      );
      assert.match(human.stdout, /^Would import 0 of 4 rows; 4 skipped\.\n {2}line 2 \(ada-/);

      const out = join(dir, `${project.id}-export.csv`);
      const exported = await eventgraph(
        ["attendees", "export", "--project", project.id, "--out", out, "--json"],
        env,
      );
      assert.equal(exported.code, 0, exported.stderr);
      assert.deepEqual(JSON.parse(exported.stdout), { out, rows: 2 });
      const rows = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
      assert.deepEqual(rows.map((r) => r.name).sort(), ["Ada", "Bob"]);
      const toStdout = await eventgraph(["attendees", "export", "--project", project.id], env);
      assert.equal(toStdout.code, 0);
      assert.equal(toStdout.stdout, readFileSync(out, "utf8"));
    });
  });
}
