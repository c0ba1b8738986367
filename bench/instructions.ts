import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { type Dataset, measureOnDatasets } from "./datasets.js";
import { freePort, unthrottled } from "./processes.js";
import { registeredAttendeeIds, scenarios } from "./scenarios.js";
import { SequentialClient } from "./sequential-client.js";

/**
 * `npm run bench -- --instructions`: the machine instructions the server process executes per
 * request, counted by valgrind's callgrind while one client sends a scenario's requests one after
 * another. CPU time on this shared host moves by a fifth between rounds; an instruction count does
 * not depend on what else the host runs: two runs agree within 2 % (small hits 7 %).
 *
 * The server runs under `valgrind --tool=callgrind --instr-atstart=no`: uninstrumented (about ten
 * times slower than native) through start-up and each scenario's warm-up, then counted from
 * `callgrind_control -i on` to a dump. Node runs with `--single-threaded`, so that the collector's
 * and the compiler's work happens on the main thread at the same points every run (valgrind runs
 * one thread at a time anyway); it is counted with the rest. System calls' kernel time is not
 * counted: loopback writes and reads cost the same in either build.
 *
 * Flags: `--datasets sqlite1,postgres1`, `--scenarios` (default: every read and the check-in),
 * `--requests` (measured, default 300), `--warmup` (default 8000: with `--trace-opt`, a server
 * under small hits still optimized 74 functions in its second 4,000 requests and 6 in its fourth;
 * after 2,000, a quarter of a hit's count was TurboFan compiling), `--compare-tree <dir>` (another
 * built checkout), `--postgres <server url>`.
 * Writes bench/results/instructions.json. Needs valgrind (Debian package `valgrind`).
 */

const { values: flags } = parseArgs({
  options: {
    datasets: { type: "string", default: "sqlite1" },
    scenarios: {
      type: "string",
      default: "small-hit,small-miss,agenda-hit,agenda-miss,attendees-hit,attendees-miss,checkin",
    },
    requests: { type: "string", default: "300" },
    warmup: { type: "string", default: "8000" },
    "compare-tree": { type: "string" },
    postgres: { type: "string", default: "postgres://postgres@127.0.0.1:5432/postgres" },
    out: { type: "string", default: join("bench", "results", "instructions.json") },
  },
});
const requests = Number(flags.requests);
const warmup = Number(flags.warmup);
const wanted = (flags.scenarios ?? "").split(",").filter(Boolean);

for (const tool of ["valgrind", "callgrind_control"]) {
  try {
    execFileSync(tool, ["--version"], { stdio: "ignore" });
  } catch {
    process.stderr.write(`${tool} is missing: apt-get install -y valgrind\n`);
    process.exit(1);
  }
}

interface InstructionsResult {
  dataset: string;
  scenario: string;
  tree: string;
  instructionsPerRequest: number;
}

// vgdb names the pipe to a process under valgrind after the user and the host, each side reading
// them from its own environment (HOST, LOGNAME or USER): the server's HOST is its listen address,
// and a container may set no user. Both sides get the same, or callgrind_control finds no process
// and says so only on its output.
const host = "127.0.0.1";
const vgdbNames = { HOST: host, LOGNAME: "eventgraph-bench", USER: "eventgraph-bench" };
const controlEnv = { ...process.env, ...vgdbNames };

function control(pid: number, ...args: string[]): void {
  const said = spawnSync("callgrind_control", [...args, String(pid)], { env: controlEnv, encoding: "utf8" });
  // It exits 0 when it reached no process: what it writes is the only sign.
  if (said.status !== 0 || /error|failed|cannot/i.test(`${said.stdout}${said.stderr}`)) {
    throw new Error(`callgrind_control ${args.join(" ")} ${pid}: ${said.stdout}${said.stderr}`);
  }
}

/**
 * The instructions of the dump named `label` in `dir`: callgrind's `totals:` line. valgrind writes
 * the file when the process next runs, after `callgrind_control` has returned: wait for it.
 */
async function totalOfDump(dir: string, label: string): Promise<number> {
  for (const started = Date.now(); Date.now() - started < 60_000; await sleep(200)) {
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8");
      if (!text.includes(`\ndesc: Trigger: dump ${label}\n`)) continue;
      const total = /^totals: (\d+)$/m.exec(text)?.[1];
      if (total) return Number(total);
    }
  }
  throw new Error(`callgrind wrote no dump named ${label} in ${dir}: ${readdirSync(dir).join(", ")}`);
}

// Request numbers count on across scenarios and trees: the trees share one database, and check-ins
// starting again from the first attendee would find them already checked in.
let nextRequest = 0;

async function measureTree({ name: dataset, databaseUrl, projectId, token }: Dataset, root: string) {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-callgrind-"));
  const port = await freePort();
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${join(dir, "callgrind.out.%p")}`,
      process.execPath,
      "--single-threaded",
      join(root, "dist", "src", "main.js"),
    ],
    {
      env: {
        ...process.env,
        ...unthrottled,
        DATABASE_URL: databaseUrl,
        LOG_LEVEL: "warn",
        PORT: String(port),
        ...vgdbNames,
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://${host}:${port}`;
  const results: InstructionsResult[] = [];
  const client = new SequentialClient(url, token);
  try {
    await ready(
      url,
      () => child.exitCode !== null,
      () => stderr,
    );
    const pid = child.pid as number;
    const attendeeIds = await registeredAttendeeIds(url, projectId, token, 10);
    for (const scenario of scenarios(projectId, attendeeIds).filter((s) => wanted.includes(s.id))) {
      for (let i = 0; i < warmup; i++) await client.send(scenario, nextRequest++);
      control(pid, "-i", "on");
      for (let i = 0; i < requests; i++) await client.send(scenario, nextRequest++);
      control(pid, "-i", "off");
      const label = `${scenario.id}-${results.length}`;
      control(pid, "-d", label);
      results.push({
        dataset,
        scenario: scenario.id,
        tree: root,
        instructionsPerRequest: Math.round((await totalOfDump(dir, label)) / requests),
      });
    }
  } finally {
    client.close();
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** Waits until /readyz answers 200: under valgrind, start-up takes tens of seconds. */
async function ready(url: string, gone: () => boolean, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (gone()) throw new Error(`Eventgraph under valgrind exited: ${stderr()}`);
    try {
      const response = await fetch(`${url}/readyz`);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new Error(`Eventgraph under valgrind was not ready in 180 s: ${stderr()}`);
}

const all: InstructionsResult[] = await measureOnDatasets(
  flags.datasets ?? "",
  flags["compare-tree"],
  flags.postgres ?? "",
  measureTree,
);

const pad = (value: unknown, width: number) => String(value).padStart(width);
process.stdout.write(
  `Instructions per request (callgrind; ${requests} sequential requests after ${warmup} of warm-up)\n` +
    `${pad("dataset", 12)} ${pad("scenario", 15)} ${pad("instructions", 13)}  tree\n`,
);
for (const r of all) {
  const base = all.find((b) => b.tree === "." && b.dataset === r.dataset && b.scenario === r.scenario);
  const versus =
    r.tree !== "." && base
      ? ` (${(r.instructionsPerRequest / base.instructionsPerRequest).toFixed(3)}×)`
      : "";
  process.stdout.write(
    `${pad(r.dataset, 12)} ${pad(r.scenario, 15)} ${pad(r.instructionsPerRequest.toLocaleString("en"), 13)}  ${r.tree}${versus}\n`,
  );
}
mkdirSync(join("bench", "results"), { recursive: true });
writeFileSync(
  flags.out ?? "",
  `${JSON.stringify({ date: new Date().toISOString(), requests, warmup, results: all }, null, 2)}\n`,
);
