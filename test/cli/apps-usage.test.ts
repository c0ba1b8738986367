import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runCliInProcess } from "../helpers/cli.js";
import { temporaryFolder } from "../helpers/temporary.js";

const eventgraph = runCliInProcess;

// `eventgraph apps` usage: exit 2 and the usage for bad flags, and the help of each command.

describe("eventgraph apps: usage", () => {
  const env = {
    DATABASE_URL: `sqlite:${join(temporaryFolder("eventgraph-apps-"), "db.sqlite")}`,
  };

  test("exits 2 with the usage on stderr for a missing flag, a flag without value or an unknown flag", async () => {
    const cases: [string[], RegExp][] = [
      [["apps", "create", "--project", "Ab12", "--name", "X"], /^error: missing required --permissions\n/],
      [["apps", "create", "--name", "X", "--permissions", ""], /^error: missing required --project\n/],
      [
        ["apps", "create", "--project", "Ab12", "--permissions", "agenda:read"],
        /^error: missing required --name\n/,
      ],
      [["apps", "create", "--project", "Ab12", "--name", "X", "--permissions"], /^error: option /],
      [["apps", "link", "--app", "a", "--project", "Ab12"], /^error: missing required --as\n/],
      [["apps", "link", "--app", "a", "--project", "Ab12", "--as", ""], /^error: missing required --as\n/],
      [["apps", "revoke", "--app", "a"], /^error: missing required --project\n/],
      [["apps", "rotate-token"], /^error: missing required --app\n/],
      [["apps", "rotate-token", "--app", "a", "--project", "Ab12"], /^error: unknown option --project\n/],
      [["apps", "delete", "--app", "a"], /^error: unknown command "apps delete"\n/],
    ];
    for (const [args, message] of cases) {
      const { code, stdout, stderr } = await eventgraph([...args, "--json"], env);
      assert.equal(code, 2, `eventgraph ${args.join(" ")}: ${stderr}`);
      assert.equal(stdout, "");
      assert.match(stderr, message, args.join(" "));
      assert.match(stderr, /\n\nUsage: eventgraph apps /);
    }
  });

  test("lists the apps commands in the help, and each one's flags in its own help", async () => {
    const top = await eventgraph(["--help"], env);
    const group = await eventgraph(["apps", "--help"], env);
    const expected: Record<string, string> = {
      create:
        "--project ID --name N --permissions a,b [--description D] [--redirect-url URL] [--website-url URL] [--privacy-url URL]",
      update:
        "--app A [--name N] [--description D] [--permissions a,b] [--redirect-url URL] [--website-url URL] [--privacy-url URL] [--api-version V]",
      link: "--app A --project ID --as E",
      revoke: "--app A --project ID",
      "rotate-token": "--app A",
    };
    for (const [command, synopsis] of Object.entries(expected)) {
      assert.ok(top.stdout.includes(`  apps ${command} `), `main help lacks apps ${command}`);
      assert.ok(group.stdout.includes(`  ${command} `), `apps help lacks ${command}`);
      const help = await eventgraph(["apps", command, "--help"], env);
      assert.equal(help.code, 0, command);
      assert.ok(help.stdout.startsWith(`Usage: eventgraph apps ${command} ${synopsis} [--json] [--help]\n`));
    }
    const create = await eventgraph(["apps", "create", "--help"], env);
    assert.match(create.stdout, /project:write, agenda:read, .*checkins:write/);
    assert.match(create.stdout, /--permissions "" creates an app with none/);
  });
});
