import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Database and Redis servers of a test's own, on random ports, for fault drills: the shared servers
 * of the machine (5432, 6379) are never stopped. Each is started, stopped and removed by its test.
 */

/** A free TCP port on 127.0.0.1 (asked of the OS, then released for the server to take). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The folder holding initdb and pg_ctl (Debian's layout, newest version first), or undefined. */
function postgresBinaries(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, "bin")).find((bin) => existsSync(join(bin, "pg_ctl")));
}

/** Why the drills needing a throwaway PostgreSQL cannot run here, or undefined when they can. */
export function postgresDrillSkipReason(): string | undefined {
  if (postgresBinaries()) return undefined;
  const reason = "PostgreSQL server binaries (initdb, pg_ctl under /usr/lib/postgresql/*/bin) are absent";
  // CI installs them: a drill that silently stops running there would hide the fault it guards.
  if (process.env.CI === "true") throw new Error(`CI=true but ${reason}: the outage drills must run in CI`);
  return reason;
}

/** A throwaway PostgreSQL cluster: its URL, and how to stop, start and remove it. */
export interface ThrowawayPostgres {
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: disconnects every client, as an operator's restart does. */
  stop(): void;
  start(): void;
  /** Stops the server (if running) and deletes its files. */
  remove(): void;
}

/**
 * initdb + pg_ctl start in a temp folder, as the `postgres` OS user when the tests run as root
 * (PostgreSQL refuses to run as root). Trust authentication on 127.0.0.1 only.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = postgresBinaries();
  if (!bin) throw new Error("PostgreSQL binaries are absent");
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-pg-drill-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const run = (program: string, args: string[]) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", join(bin, program), ...args], { stdio: "pipe" })
      : execFileSync(join(bin, program), args, { stdio: "pipe" });
  const data = join(dir, "data");
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "start"]);
  const stop = () => run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
  start();
  let removed = false;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    remove() {
      if (removed) return;
      removed = true;
      try {
        stop();
      } catch {
        // Already stopped.
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A throwaway `redis-server` (no persistence): its URL, and how to stop and start it again. */
export interface ThrowawayRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Whether `redis-server` can be started here. */
export function redisServerPath(): string | undefined {
  return ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].find((path) => existsSync(path));
}

/** Starts `redis-server --port <free>` and resolves once it accepts connections. */
export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const path = redisServerPath();
  if (!path) throw new Error("redis-server is absent");
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(path, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
      stdio: "ignore",
    });
    await waitForPort(port);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.on("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.on("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listens on port ${port}`);
}
