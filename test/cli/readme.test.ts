import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runCliInProcess } from "../helpers/cli.js";
import { createProject } from "../helpers/factories.js";
import { temporaryFolder } from "../helpers/temporary.js";

const readme = readFileSync(join(import.meta.dirname, "..", "..", "..", "README.md"), "utf8");

/** The README's table rows documenting `command` (their first cell starts with it). */
function rowsOf(command: string): string[] {
  return readme
    .split("\n")
    .filter((line) => line.startsWith(`| \`${command} `) || line.startsWith(`| \`${command}\``));
}

describe("the README's command table", () => {
  const env = { DATABASE_URL: `sqlite:${join(temporaryFolder("eventgraph-readme-"), "db.sqlite")}` };

  test("documents each command at most once", async () => {
    const help = await runCliInProcess(["--help"], env);
    const commands = help.stdout
      .split("Commands:\n")[1]
      ?.split("\n\n")[0]
      ?.split("\n")
      .map((line) => line.trim().split(/\s{2,}/)[0] ?? "");
    assert.ok(commands && commands.length > 10, help.stdout);
    for (const command of commands)
      assert.ok(rowsOf(command).length <= 1, `${command}: ${rowsOf(command).join("\n")}`);
  });

  test("apps update: the row names every flag of its usage and the keys its --json prints", async () => {
    const [row, ...more] = rowsOf("apps update");
    assert.ok(row, "apps update is documented");
    assert.deepEqual(more, []);
    const usage = (await runCliInProcess(["apps", "update", "--help"], env)).stdout.split("\n")[0] ?? "";
    for (const flag of usage.match(/--[a-z-]+/g) ?? []) {
      if (flag !== "--json" && flag !== "--help") assert.ok(row.includes(flag), `${flag} in ${row}`);
    }

    const { migrateToLatest } = await import("../../src/db/migrate.js");
    const { openDatabase } = await import("../../src/db/database.js");
    const { loadConfig } = await import("../../src/config.js");
    const { createLogger } = await import("../../src/logger.js");
    const { createServices } = await import("../../src/services.js");
    const database = openDatabase(env.DATABASE_URL);
    await migrateToLatest(database.db);
    const services = createServices(database, loadConfig(env), createLogger("silent"));
    const { project } = await createProject(services);
    await database.close();
    const created = await runCliInProcess(
      [
        "apps",
        "create",
        "--project",
        project.id,
        "--name",
        "Readme app",
        "--permissions",
        "agenda:read",
        "--json",
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    const appId = (JSON.parse(created.stdout) as { id: string }).id;
    const updated = await runCliInProcess(
      ["apps", "update", "--app", appId, "--name", "Renamed", "--json"],
      env,
    );
    assert.equal(updated.code, 0, updated.stderr);
    const documented = /\| `\{([^}]*)\}` \|$/.exec(row)?.[1]?.split(", ");
    assert.deepEqual(Object.keys(JSON.parse(updated.stdout)).sort(), documented?.sort());
  });
});
