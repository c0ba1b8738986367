import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type DatabaseHandle, openDatabase } from "../../src/db/database.js";
import { onlyJson, runCliBinary, runCliInProcess, stackLine } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import { uniqueEmail } from "../helpers/factories.js";
import { spawnNode } from "../helpers/processes.js";
import { temporaryFolder } from "../helpers/temporary.js";

const password = "correct horse battery staple";

// Most cases run in-process; the ones through the real bin prove the wiring: exit codes, stdin,
// no stack trace, and the first migration of a new database.
const eventgraph = runCliInProcess;

describe("eventgraph CLI: usage", () => {
  const env = { DATABASE_URL: `sqlite:${join(temporaryFolder("eventgraph-cli-"), "db.sqlite")}` };

  test("exits 2 with the usage on stderr for an unknown command, flag or subcommand", async () => {
    for (const args of [
      [],
      ["frobnicate"],
      ["users"],
      ["users", "delete"],
      ["users", "verify", "--email", "a@b.co", "--force"],
      ["migrate", "extra"],
    ]) {
      const { code, stdout, stderr } = await eventgraph(args, env);
      assert.equal(code, 2, `eventgraph ${args.join(" ")}`);
      assert.equal(stdout, "");
      assert.match(stderr, /^error: .+\n\nUsage: eventgraph /);
    }
  });

  test("the real bin exits 2 with the usage for an unknown command and 0 with the help", async () => {
    const bad = await runCliBinary(["frobnicate"], env);
    assert.deepEqual([bad.code, bad.stdout], [2, ""]);
    assert.match(bad.stderr, /^error: unknown command "frobnicate"\n\nUsage: eventgraph /);
    const help = await runCliBinary(["--help"], env);
    assert.deepEqual([help.code, help.stderr], [0, ""]);
    assert.match(help.stdout, /^Usage: eventgraph <command>/);
  });

  test("exits 2 naming a missing required flag, and for a malformed number", async () => {
    const missing = await eventgraph(["projects", "create", "--name", "X"], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^error: missing required --owner\n/);
    const badScale = await eventgraph(["demo", "--scale", "ten", "--no-serve"], env);
    assert.equal(badScale.code, 2);
    assert.match(badScale.stderr, /--scale must be a whole number from 1 to 1000/);
    const noValue = await eventgraph(["users", "verify", "--email"], env);
    assert.equal(noValue.code, 2);
  });

  test("refuses users create without --password on a terminal-less empty stdin only after reading it", async () => {
    const { code, stderr } = await eventgraph(
      ["users", "create", "--email", uniqueEmail(), "--name", "Ada"],
      env,
      "",
    );
    assert.equal(code, 1);
    assert.match(stderr, /^error: password: must be at least 10 characters\n$/);
  });

  test("prints the help of every command on stdout with exit 0", async () => {
    const top = await eventgraph(["--help"], env);
    assert.equal(top.code, 0);
    for (const command of ["serve", "migrate", "demo", "users create", "users verify", "projects create"]) {
      assert.ok(top.stdout.includes(`  ${command} `), `main help lacks ${command}`);
      const help = await eventgraph([...command.split(" "), "--help"], env);
      assert.equal(help.code, 0, command);
      assert.match(help.stdout, new RegExp(`^Usage: eventgraph ${command} `));
      assert.equal(help.stderr, "");
    }
  });

  test("fails with exit 1 and one line when DATABASE_URL is invalid", async () => {
    const { code, stderr } = await runCliBinary(["migrate"], { DATABASE_URL: "mysql://nope" });
    assert.equal(code, 1);
    assert.match(stderr, /DATABASE_URL: must be sqlite:<path> or postgres:/);
    assert.doesNotMatch(stderr, stackLine);
  });
});

for (const engine of testEngines()) {
  describe(`eventgraph CLI commands (${engine.name})`, () => {
    const url = engine.newDatabaseUrl();
    const env = { DATABASE_URL: url };
    let database: DatabaseHandle;
    before(async () => {
      // The CLI migrates by itself; a first command proves it on a new SQLite file.
      const { code, stderr } = await runCliBinary(["migrate", "--json"], env);
      assert.equal(code, 0, stderr);
      database = openDatabase(url);
    });
    after(() => database.close());

    test("refuses a duplicate email (any case) with exit 1 and a one-line message", async () => {
      const email = uniqueEmail("Dup");
      assert.equal(
        (await eventgraph(["users", "create", "--email", email, "--name", "A", "--password", password], env))
          .code,
        0,
      );
      const again = await eventgraph(
        ["users", "create", "--email", email.toUpperCase(), "--name", "B", "--password", password, "--json"],
        env,
      );
      assert.equal(again.code, 1);
      assert.equal(again.stdout, "");
      assert.equal(again.stderr, "error: An account with this email already exists\n");
    });

    test("answers exit 1 for verifying an unknown email and for a project of an unknown owner", async () => {
      const verify = await eventgraph(["users", "verify", "--email", uniqueEmail(), "--json"], env);
      assert.deepEqual([verify.code, verify.stdout, verify.stderr], [1, "", "error: User not found\n"]);
      const project = await eventgraph(["projects", "create", "--owner", uniqueEmail(), "--name", "X"], env);
      assert.deepEqual([project.code, project.stderr], [1, "error: User not found\n"]);
    });

    test("lists every invalid field of users create in one line", async () => {
      const { code, stderr } = await eventgraph(
        ["users", "create", "--email", "nope", "--name", " ", "--password", "short"],
        env,
      );
      assert.equal(code, 1);
      assert.equal(
        stderr,
        "error: email: must be a valid email address; name: must not be empty; password: must be at least 10 characters\n",
      );
    });

    test("creates and verifies a user and a published project, printing {id, email} and {id, name}", async () => {
      const email = uniqueEmail("Owner");
      const created = await eventgraph(
        ["users", "create", "--email", email, "--name", "Ada", "--password", password, "--json"],
        env,
      );
      assert.equal(created.code, 0, created.stderr);
      const user = onlyJson(created.stdout);
      assert.deepEqual(Object.keys(user).sort(), ["email", "id"]);
      assert.equal(user.email, email);
      const row = await database.db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", String(user.id))
        .executeTakeFirstOrThrow();
      assert.equal(row.email_verified_at, null);

      const verified = await eventgraph(["users", "verify", "--email", email.toUpperCase(), "--json"], env);
      assert.deepEqual(onlyJson(verified.stdout), user);
      const after = await database.db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", String(user.id))
        .executeTakeFirstOrThrow();
      assert.notEqual(after.email_verified_at, null);

      const published = await eventgraph(
        ["projects", "create", "--owner", email, "--name", "CLI Conf", "--publish", "--json"],
        env,
      );
      assert.equal(published.code, 0, published.stderr);
      const project = onlyJson(published.stdout);
      assert.deepEqual(Object.keys(project).sort(), ["id", "name"]);
      assert.match(String(project.id), /^[A-Za-z0-9]{4}$/);
      assert.equal(project.name, "CLI Conf");
      const draft = onlyJson(
        (await eventgraph(["projects", "create", "--owner", email, "--name", "Draft", "--json"], env)).stdout,
      );
      const rows = await database.db
        .selectFrom("projects")
        .innerJoin("project_members", "project_members.project_id", "projects.id")
        .select(["projects.id", "projects.status", "project_members.role", "project_members.user_id"])
        .where("projects.id", "in", [String(project.id), String(draft.id)])
        .orderBy("projects.name")
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.id, r.status, r.role, r.user_id]),
        [
          [project.id, "PUBLISHED", "OWNER", user.id],
          [draft.id, "DRAFT", "OWNER", user.id],
        ],
      );
    });

    test("reads the password from stdin when --password is absent", async () => {
      const email = uniqueEmail("Stdin");
      const piped = "a piped password, not in argv";
      const { code, stdout, stderr } = await runCliBinary(
        ["users", "create", "--email", email, "--name", "Pipe", "--json"],
        env,
        `${piped}\n`,
      );
      assert.equal(code, 0, stderr);
      assert.equal(onlyJson(stdout).email, email);
      const row = await database.db
        .selectFrom("users")
        .select("password_hash")
        .where("email", "=", email)
        .executeTakeFirstOrThrow();
      const { verifyPassword } = await import("../../src/modules/accounts/passwords.js");
      assert.equal(await verifyPassword(piped, row.password_hash), true);
      assert.equal(await verifyPassword(`${piped}\n`, row.password_hash), false);
    });

    test("demo --no-serve seeds a published conference and prints {url, email, password, projectId, token}", async () => {
      const { code, stdout, stderr } = await eventgraph(["demo", "--no-serve", "--json"], env);
      assert.equal(code, 0, stderr);
      const result = onlyJson(stdout);
      assert.deepEqual(Object.keys(result).sort(), ["email", "password", "projectId", "token", "url"]);
      assert.match(String(result.token), /^evg_/);
      assert.match(stderr, /^Seeded in [\d.]+ s: 6 tracks, 3 rooms, 80 speakers, 60 sessions, /);
      const project = await database.db
        .selectFrom("projects")
        .selectAll()
        .where("id", "=", String(result.projectId))
        .executeTakeFirstOrThrow();
      assert.equal(project.status, "PUBLISHED");
      const attendees = await database.db
        .selectFrom("attendees")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("project_id", "=", project.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(attendees.n), 2000);
      // The printed login works: the organizer is verified and owns the project.
      const user = await database.db
        .selectFrom("users")
        .selectAll()
        .where("email", "=", String(result.email))
        .executeTakeFirstOrThrow();
      assert.notEqual(user.email_verified_at, null);
      const { verifyPassword } = await import("../../src/modules/accounts/passwords.js");
      assert.equal(await verifyPassword(String(result.password), user.password_hash), true);
    });
  });
}

describe("eventgraph demo (serving)", () => {
  test("uses ./data/demo.sqlite when DATABASE_URL is unset, serves on --port and stops on SIGTERM", async () => {
    const cwd = temporaryFolder("eventgraph-demo-");
    const child = spawnNode([join(process.cwd(), "bin/eventgraph.js"), "demo", "--port", "0", "--json"], {
      cwd,
    });
    try {
      const deadline = Date.now() + 30_000;
      while (!child.stdout.includes("\n") && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      const result = onlyJson(child.stdout);
      assert.match(String(result.url), /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(
        existsSync(join(cwd, "data", "demo.sqlite")),
        "the demo database is not at ./data/demo.sqlite",
      );
      assert.ok(!existsSync(join(cwd, "data", "eventgraph.sqlite")), "the main database was touched");
      // The printed token reads the demo project's private data through the API.
      const response = await fetch(`${result.url}/api/graphql`, {
        method: "POST",
        headers: { authorization: `Bearer ${result.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          query:
            "query ($id: ID!) { viewer { permissions } project(id: $id) { status attendees { totalCount } } }",
          variables: { id: result.projectId },
        }),
      });
      assert.deepEqual((await response.json()).data, {
        viewer: {
          permissions: ["AGENDA_READ", "TICKETS_READ", "ATTENDEES_READ", "ORDERS_READ", "AUDIT_READ"],
        },
        project: { status: "PUBLISHED", attendees: { totalCount: 2000 } },
      });
    } finally {
      child.process.kill("SIGTERM");
    }
    assert.deepEqual(await child.exited, { code: 0, signal: null });
    // With --json the server's log went to stderr: stdout still holds the one object.
    assert.equal(child.stdout.split("\n").filter(Boolean).length, 1);
  });
});
