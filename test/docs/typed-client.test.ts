import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { generate, loadCodegenConfig } from "@graphql-codegen/cli";
import { repositoryRoot } from "../../src/docs/schema-history.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createSession } from "../helpers/factories.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";

const exampleDir = join(repositoryRoot, "examples", "typed-client");
const entry = join(repositoryRoot, "dist", "examples", "typed-client", "src", "main.js");

/** Runs the example's compiled entry as a developer would, and collects what it printed. */
async function runExample(env: Record<string, string>, args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [entry, ...args], {
      env: { PATH: process.env.PATH ?? "", ...env },
      timeout: 30_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Runs the example's codegen (its codegen.yml) against the API at `url`: the generated file. */
async function generateTypes(url: string): Promise<string> {
  const { config } = await loadCodegenConfig({ configFilePath: join(exampleDir, "codegen.yml") });
  const [output] = await generate(
    {
      ...config,
      silent: true,
      schema: `${url}/api/graphql`,
      documents: join(exampleDir, "src", "*.graphql"),
    },
    false,
  );
  assert.ok(output, "codegen produced a file");
  return output.content;
}

/** A published project with `count` sessions, and an app holding agenda:read in it. */
async function agenda(server: TestServer, count: number) {
  const { token, projectId, ownerId } = await createApp(server.services, { name: "Agenda Printer" });
  const owner = { kind: "user" as const, userId: ownerId ?? "" };
  await server.services.projects.update(owner, projectId, { status: "PUBLISHED" });
  for (let i = 0; i < count; i++) {
    await createSession(server.services, owner, projectId, {
      title: `Talk ${i + 1}`,
      status: "PUBLISHED",
      startsAt: `2026-05-04T${String(9 + i).padStart(2, "0")}:00:00.000Z`,
    });
  }
  return { token, projectId };
}

for (const engine of testEngines()) {
  describe(`the typed client example (${engine.name})`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(engine);
    });
    after(() => server?.close());

    test("stops with a clear message and exit code 2 when the token is refused", async () => {
      const { projectId } = await agenda(server, 1);
      const run = await runExample(
        { EVENTGRAPH_URL: server.url, EVENTGRAPH_TOKEN: `evg_${"x".repeat(40)}` },
        [projectId],
      );
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /UNAUTHENTICATED/);
      assert.equal(run.stdout, "");
    });

    test("fails with exit code 1 for a project it cannot see", async () => {
      const { token } = await agenda(server, 0);
      const run = await runExample({ EVENTGRAPH_URL: server.url, EVENTGRAPH_TOKEN: token }, ["zzzz"]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /NOT_FOUND|not found/);
    });

    test("generates the committed types from the live endpoint by introspection", async () => {
      const output = await generateTypes(server.url);
      const committed = readFileSync(join(exampleDir, "src", "generated", "graphql.ts"), "utf8");
      assert.ok(
        output === committed,
        "examples/typed-client/src/generated/graphql.ts is stale: run `npm run codegen` in the example against a running server",
      );
    });

    test("runs codegen again and again on a small public budget: a kept introspection costs 1 point", async () => {
      // 150 points an hour: the first run's introspection costs about 99 (its answer counts ~9,900
      // fields), as much as it would cost anew, so a second run at that price would not fit.
      const small = await startTestServer(engine, { RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "150" });
      try {
        const first = await generateTypes(small.url);
        for (let i = 0; i < 5; i++) assert.equal(await generateTypes(small.url), first);
      } finally {
        await small.close();
      }
    });

    test("pages through every session of a project with its token", async () => {
      const { token, projectId } = await agenda(server, 5);
      const run = await runExample(
        { EVENTGRAPH_URL: server.url, EVENTGRAPH_TOKEN: token, EVENTGRAPH_PAGE_SIZE: "2" },
        [projectId],
      );
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.trim().split("\n");
      assert.equal(lines[0], "App: Agenda Printer (AGENDA_READ)");
      assert.equal(lines[1], "Test Conference: 5 sessions");
      assert.deepEqual(
        lines.slice(2).map((line) => line.split("  ")[1]),
        ["Talk 1", "Talk 2", "Talk 3", "Talk 4", "Talk 5"],
        "three pages of two, in order, none twice",
      );
    });

    test("reports RATE_LIMITED with Retry-After instead of hammering the API", async () => {
      const limited = await startTestServer(engine, { RATE_LIMIT_APP_POINTS_PER_HOUR: "1" });
      try {
        const { token, projectId } = await agenda(limited, 3);
        const run = await runExample(
          { EVENTGRAPH_URL: limited.url, EVENTGRAPH_TOKEN: token, EVENTGRAPH_PAGE_SIZE: "1" },
          [projectId],
        );
        assert.equal(run.code, 3, run.stderr);
        assert.match(run.stderr, /RATE_LIMITED\): retry after \d+ s/);
      } finally {
        await limited.close();
      }
    });
  });
}
