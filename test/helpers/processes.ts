import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root: compiled helpers live in dist/test/helpers/. */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

// Variables the service reads: a child starts from none of them, so the developer's own
// environment (a DATABASE_URL, a PORT) cannot leak into what a test observes.
const serviceVariables = [
  "PORT",
  "HOST",
  "BASE_URL",
  "DATABASE_URL",
  "REDIS_URL",
  "SMTP_URL",
  "MAIL_FROM",
  "LOG_LEVEL",
  "WEB_CONCURRENCY",
  "TRUST_PROXY",
  "RATE_LIMIT_APP_POINTS_PER_HOUR",
  "RATE_LIMIT_PUBLIC_POINTS_PER_HOUR",
  "RATE_LIMIT_IDEMPOTENCY_KEYS_PER_HOUR",
  "MAX_QUERY_COST",
  "MAX_QUERY_DEPTH",
  "MAX_BODY_BYTES",
  "METRICS_TOKEN",
  "METRICS_PORT",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_SERVICE_NAME",
  "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
  "WEBHOOK_RETRY_DELAYS",
  "WEBHOOK_TIMEOUT_MS",
  "STREAMS_PER_APP",
  "STREAMS_PER_IP",
];

/** A child process of the compiled service or CLI, with everything it printed so far. */
export interface Child {
  process: ChildProcess;
  readonly stdout: string;
  readonly stderr: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves with the first stdout JSON log line matching `test`; rejects after `timeoutMs` (45 s by
   * default: a server's start-up alone took over 15 s on a 2-core machine running the whole suite).
   */
  waitForLog(
    test: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** The stdout lines that are JSON objects (the log). */
  logLines(): Record<string, unknown>[];
}

/** Starts `node <args>` from the repository root with only `env` set among the service's variables. */
export function spawnNode(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; input?: string } = {},
): Child {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of serviceVariables) delete env[name];
  Object.assign(env, options.env);
  const child = spawn(process.execPath, args, {
    cwd: options.cwd ?? repoRoot,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    for (const wake of waiters) wake();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  if (options.input !== undefined) child.stdin.end(options.input);
  else child.stdin.end();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  const logLines = () =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => {
        try {
          return JSON.parse(line) as Record<string, unknown>;
        } catch {
          return {};
        }
      });
  return {
    process: child,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    exited,
    logLines,
    waitForLog(test, timeoutMs = 45_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logLines().find(test);
          if (found) {
            cleanup();
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`no matching log line within ${timeoutMs} ms; stdout:\n${stdout}\nstderr:\n${stderr}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        // A child that dies first fails the wait at once, with what it said.
        exited.then(() => {
          if (waiters.has(check)) {
            cleanup();
            reject(new Error(`process exited before the log line; stdout:\n${stdout}\nstderr:\n${stderr}`));
          }
        });
        waiters.add(check);
        check();
      });
    },
  };
}

/** Runs `node <args>` to completion and returns its exit code and output. */
export async function runNode(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnNode(args, options);
  const timer = setTimeout(() => child.process.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  const { code } = await child.exited;
  clearTimeout(timer);
  return { code, stdout: child.stdout, stderr: child.stderr };
}

/**
 * Starts the compiled server and resolves once it listens, with its URL. `timeoutMs` (45 s by
 * default) is a bound for loaded machines, not a speed goal: a start-up of 3 s on an idle 2-core
 * machine took 10 to 16 s beside the suite's workers and Chromium.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { timeoutMs?: number } = {},
): Promise<{ child: Child; url: string }> {
  const child = spawnNode(["dist/src/main.js"], { env: { HOST: "127.0.0.1", PORT: "0", ...env } });
  try {
    const line = await child.waitForLog(
      (l) => l.msg === "Eventgraph is listening",
      options.timeoutMs ?? 45_000,
    );
    return { child, url: String(line.url) };
  } catch (error) {
    // The caller never gets the child to stop: a server that did not start in time must not outlive
    // its test (with WEB_CONCURRENCY, a primary left running keeps its workers too).
    child.process.kill("SIGKILL");
    await child.exited;
    throw error;
  }
}
