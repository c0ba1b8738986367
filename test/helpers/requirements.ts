import { existsSync } from "node:fs";
import { connect } from "node:net";
import { relative } from "node:path";
import { describe, test } from "node:test";
import { redisTestUrl } from "./redis.js";

// What the suite needs beyond Node: PostgreSQL, Redis and Chromium (and bench:check, valgrind). Outside CI a missing one turns
// the tests that need it into skips that name the reason (node:test counts them in "skipped N" and
// scripts/test.mjs lists them at the end); in CI (CI=true) a missing one fails the file instead,
// so a broken CI machine can never pass by running less.

const inCi = process.env.CI === "true";

/**
 * The test file running now, as its source path: the skips registered here name it, since node:test
 * would name this helper instead. A worker of scripts/test.mjs runs many files, one at a time, and
 * sets TEST_FILE to each in turn; a file run on its own is the process's own script.
 */
export function thisTestFile(): string {
  if (process.env.TEST_FILE) return process.env.TEST_FILE;
  return relative(process.cwd(), process.argv[1] ?? "")
    .replace(/^dist\//, "")
    .replace(/\.js$/, ".ts");
}

/**
 * A skip reason, or false when the requirement is met (`missing` undefined); in CI a missing
 * requirement throws. For requirements of one file (a tmpfs it mounts, a binary it starts).
 */
export function requirement(missing: string | undefined): string | false {
  if (missing === undefined) return false;
  if (inCi) throw new Error(`CI=true, so this cannot be skipped: ${missing}`);
  return missing;
}

/** Why PostgreSQL tests cannot run here (DATABASE_URL_POSTGRES unset), or false. */
export function postgresMissing(): string | false {
  return requirement(process.env.DATABASE_URL_POSTGRES ? undefined : "DATABASE_URL_POSTGRES is not set");
}

/** The Chromium the browser tests launch: CHROMIUM_PATH, else Debian's. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Why browser tests cannot run here (no Chromium at chromiumPath), or false. */
export function chromiumMissing(): string | false {
  return requirement(
    existsSync(chromiumPath) ? undefined : `no Chromium at ${chromiumPath} (set CHROMIUM_PATH)`,
  );
}

/** Why the instruction-count bench cannot be tested here (no valgrind on PATH), or false. */
export function valgrindMissing(): string | false {
  const found = (process.env.PATH ?? "").split(":").some((dir) => existsSync(`${dir}/callgrind_control`));
  return requirement(found ? undefined : "no valgrind on PATH (Debian: apt-get install valgrind)");
}

let redisProbe: Promise<string | undefined> | undefined;

/**
 * Why Redis tests cannot run here, or false. One PING over a plain socket with a 2 s bound (not an
 * ioredis client, which would reconnect for ever and keep the test process alive).
 */
export async function redisMissing(): Promise<string | false> {
  redisProbe ??= pingRedis(redisTestUrl);
  return requirement(await redisProbe);
}

function pingRedis(url: string): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  const where = `${hostname}:${port || 6379}`;
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname.replace(/^\[|\]$/g, ""));
    const done = (problem: string | undefined) => {
      socket.destroy();
      resolve(problem === undefined ? undefined : `Redis at ${where} ${problem} (set REDIS_URL_TEST)`);
    };
    socket.setTimeout(2000, () => done("did not answer within 2 s"));
    socket.on("error", (error) => done(`did not answer: ${error.message}`));
    // Any reply proves a Redis is there: +PONG, or -NOAUTH when the URL carries a password.
    socket.on("data", (data) => done(/^[+-]/.test(data.toString()) ? undefined : "answered something else"));
    socket.on("connect", () => socket.write("PING\r\n"));
  });
}

/**
 * `describe(name, body)` when `missing` is false; otherwise one skipped test named after the suite,
 * so the skip is visible, counted, and carries its reason (a skipped suite is not counted).
 */
export function describeNeeding(missing: string | false, name: string, body: () => void): void {
  if (missing) test(`${name} in ${thisTestFile()}`, { skip: missing }, () => {});
  else describe(name, body);
}
