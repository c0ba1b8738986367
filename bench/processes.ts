import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

/** A child process the bench started, and how to stop it. */
export interface ChildServer {
  process: ChildProcess;
  url: string;
  /** Lines the child wrote to stderr (warnings, a crash), for the report when something fails. */
  stderr: string[];
  /** Sends SIGTERM and waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** A free TCP port on loopback (the OS picks it; it is released before the server binds it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * Peak resident set size (VmHWM) in MiB of a process or, when it has live child processes (a
 * cluster's workers), of the largest of them; undefined once it has exited.
 */
export function peakRssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const peaks = withChildren(pid).flatMap((id) => {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${id}/status`, "utf8"));
      return match?.[1] ? [Number(match[1]) / 1024] : [];
    } catch {
      return [];
    }
  });
  return peaks.length > 0 ? Math.max(...peaks) : undefined;
}

/**
 * CPU time (user + system) a process and its live child processes (a cluster's workers) have used so
 * far, in seconds, or undefined once it has exited. Divided by the requests of a round it gives CPU
 * per request, which a busy machine disturbs far less than requests per second: a process that gets
 * half a core does half the requests, each at about the same cost. Clock ticks are 10 ms; a 2 s
 * round of thousands of requests resolves a few µs.
 */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined || !statOf(pid)) return undefined;
  return withChildren(pid).reduce((sum, id) => sum + (statOf(id)?.ticks ?? 0), 0) / 100;
}

// The process and its live children, found by their parent in /proc (this kernel has no
// /proc/<pid>/task/<tid>/children).
function withChildren(pid: number): number[] {
  const children = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((id) => statOf(id)?.parent === pid);
  return [pid, ...children];
}

// A process's parent and its user + system clock ticks, from /proc/<pid>/stat; undefined once gone.
function statOf(pid: number): { parent: number; ticks: number } | undefined {
  try {
    // The command name (field 2) may hold spaces; fields after its closing parenthesis are fixed.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return undefined;
  }
}

function track(child: ChildProcess, url: string): ChildServer {
  const stderr: string[] = [];
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr.push(...chunk.split("\n").filter(Boolean));
    if (stderr.length > 200) stderr.splice(0, stderr.length - 200);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    process: child,
    url,
    stderr,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Rate limits raised out of reach: the benches measure the API, not the rate limiter's refusals. */
export const unthrottled = {
  RATE_LIMIT_APP_POINTS_PER_HOUR: "1000000000",
  RATE_LIMIT_PUBLIC_POINTS_PER_HOUR: "1000000000",
};

/**
 * Starts Eventgraph (`node dist/src/main.js`, of the tree at `root`) on a free port with `env` added
 * to this process's environment, and waits until `/readyz` answers 200 (the database is reachable).
 * `onStdout` hears each line the process prints (V8's GC trace, for bench/allocation.ts).
 */
export async function startEventgraph(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  root = ".",
  onStdout?: (line: string) => void,
): Promise<ChildServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, join(root, "dist", "src", "main.js")], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", onStdout ? "pipe" : "ignore", "pipe"],
  });
  if (onStdout) {
    let partial = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) onStdout(line);
    });
  }
  const server = track(child, `http://127.0.0.1:${port}`);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`Eventgraph exited with ${child.exitCode}: ${server.stderr.join("\n")}`);
    }
    try {
      const response = await fetch(`${server.url}/readyz`);
      await response.arrayBuffer();
      if (response.ok) return server;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  await server.stop();
  throw new Error(`Eventgraph did not become ready in 30 s: ${server.stderr.join("\n")}`);
}

/** Starts the limit server over the precomputed responses in `file` (in `workers` processes). */
export function startLimitServer(file: string, workers = 1): Promise<ChildServer> {
  return startPortPrinter(["dist/bench/limit-server.js", file, String(workers)]);
}

/** Starts the Fastify floor: the bytes of `file` (as for the limit server) sent through Fastify. */
export function startFastifyBytes(file: string): Promise<ChildServer> {
  return startPortPrinter(["dist/bench/peers/fastify-bytes.js", file]);
}

/** Starts the Mercurius peer over the SQLite file at `path`, reading rows per request or from memory. */
export function startPeer(path: string, memory: boolean): Promise<ChildServer> {
  return startPortPrinter(["dist/bench/peers/graphql-peer.js", path, ...(memory ? ["--memory"] : [])]);
}

/** Starts the write peer (Mercurius check-ins) over its own copy of the database, at `url` (`sqlite:…` or `postgres://…`). */
export function startCheckInPeer(url: string): Promise<ChildServer> {
  return startPortPrinter(["dist/bench/peers/checkin-peer.js", url]);
}

// A helper process that prints {"port": n} on its first line once listening.
async function startPortPrinter(args: string[]): Promise<ChildServer> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}: ${stderr}`)));
    lines.once("line", (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return track(child, `http://127.0.0.1:${port}`);
}
