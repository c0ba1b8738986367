import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * A Node server running under valgrind's callgrind, uninstrumented until asked: `count` switches
 * counting on around what it is given to do and returns the instructions executed meanwhile. Node
 * runs with `--single-threaded`, so that the collector's and the compiler's work happens on the main
 * thread at the same points every run (valgrind runs one thread at a time anyway).
 */
export interface CountedServer {
  url: string;
  /** The instructions the server executed while `work` ran. */
  count(work: () => Promise<void>): Promise<number>;
  stop(): Promise<void>;
}

/** How to tell that a server is listening, and where. */
export type Readiness =
  /** It listens on `port` and answers `/readyz` with 200 once ready (Eventgraph). */
  | { port: number }
  /** It prints `{"port": n}` as its first line once listening (the bench's peers). */
  | "port-line";

// vgdb names the pipe to a process under valgrind after the user and the host, each side reading
// them from its own environment (HOST, LOGNAME or USER): Eventgraph's HOST is its listen address,
// and a container may set no user. Both sides get the same, or callgrind_control finds no process
// and says so only on its output.
const host = "127.0.0.1";
const vgdbNames = { HOST: host, LOGNAME: "eventgraph-bench", USER: "eventgraph-bench" };

/** Whether valgrind and callgrind_control are installed; the name of the missing one otherwise. */
export function missingCallgrindTool(): string | undefined {
  for (const tool of ["valgrind", "callgrind_control"]) {
    if (spawnSync(tool, ["--version"], { stdio: "ignore" }).status !== 0) return tool;
  }
  return undefined;
}

/** Starts `node --single-threaded <args>` under callgrind with `env` added, and waits until it is ready. */
export async function startCounted(
  args: string[],
  env: Record<string, string>,
  readiness: Readiness,
): Promise<CountedServer> {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-callgrind-"));
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${join(dir, "callgrind.out.%p")}`,
      process.execPath,
      "--single-threaded",
      ...args,
    ],
    { env: { ...process.env, ...env, ...vgdbNames }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  const gone = () => {
    if (child.exitCode !== null) throw new Error(`${args[0]} under valgrind exited: ${stderr}`);
  };
  try {
    const url = await listening(child.stdout as NodeJS.ReadableStream, readiness, gone, () => stderr);
    const pid = child.pid as number;
    let dumps = 0;
    return {
      url,
      async count(work) {
        control(pid, "-i", "on");
        await work();
        control(pid, "-i", "off");
        const label = `count-${++dumps}`;
        control(pid, "-d", label);
        return totalOfDump(dir, label);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

// Under valgrind, start-up takes tens of seconds.
const startSeconds = 180;

async function listening(
  stdout: NodeJS.ReadableStream,
  readiness: Readiness,
  gone: () => void,
  stderr: () => string,
): Promise<string> {
  const deadline = Date.now() + startSeconds * 1000;
  if (readiness === "port-line") {
    const lines = createInterface({ input: stdout });
    const line = await Promise.race([
      new Promise<string>((resolve) => lines.once("line", resolve)),
      sleep(startSeconds * 1000).then(() => ""),
    ]);
    lines.close();
    stdout.resume();
    gone();
    if (!line) throw new Error(`No port printed in ${startSeconds} s: ${stderr()}`);
    return `http://${host}:${(JSON.parse(line) as { port: number }).port}`;
  }
  stdout.resume();
  const url = `http://${host}:${readiness.port}`;
  while (Date.now() < deadline) {
    gone();
    try {
      const response = await fetch(`${url}/readyz`);
      await response.arrayBuffer();
      if (response.ok) return url;
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  throw new Error(`Not ready in ${startSeconds} s: ${stderr()}`);
}

function control(pid: number, ...args: string[]): void {
  const said = spawnSync("callgrind_control", [...args, String(pid)], {
    env: { ...process.env, ...vgdbNames },
    encoding: "utf8",
  });
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
