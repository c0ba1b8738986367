import { spawn } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";

/**
 * Online backup and restore of the database DATABASE_URL names. SQLite goes through its backup
 * API (a consistent snapshot while the server keeps writing); PostgreSQL through pg_dump and
 * pg_restore, which must be on PATH (the same major version as the server or newer).
 */

/** A failure an operator can act on: printed as one line, exit code 1. */
class BackupError extends Error {
  override name = "BackupError";
}

const sqlitePath = (url: string) => url.slice("sqlite:".length);

/**
 * A backup holds everything: attendees' personal data, password hashes, the cookie-signing and
 * form secrets, webhook signing secrets. It is created owner-only (0600) before a byte is written,
 * whatever the umask, so no other account on the machine can read it even while it is written.
 */
const ownerOnly = 0o600;

function createOwnerOnly(path: string): void {
  closeSync(openSync(path, "wx", ownerOnly));
  // The umask can only narrow the mode; chmod makes it exact.
  chmodSync(path, ownerOnly);
}

/** Removes a SQLite file with its write-ahead log and shared-memory index. */
function removeSqliteFiles(path: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
}

/** Copies the database to `out` (which must not exist); returns what was written. */
export async function backupDatabase(
  databaseUrl: string,
  out: string,
): Promise<{ bytes?: number; tool: string }> {
  if (existsSync(out)) throw new BackupError(`${out} exists; choose a new file name`);
  if (databaseUrl.startsWith("sqlite:")) {
    const path = sqlitePath(databaseUrl);
    if (!existsSync(path)) throw new BackupError(`There is no database at ${path}`);
    // Written beside the target and renamed once checked: a crash never leaves a half backup
    // under the final name.
    const partial = `${out}.partial`;
    removeSqliteFiles(partial);
    try {
      createOwnerOnly(partial);
      const source = new SQLite(path, { readonly: true, fileMustExist: true });
      try {
        await source.backup(partial);
      } finally {
        source.close();
      }
      selfContained(partial);
      assertIntact(partial);
      renameSync(partial, out);
    } finally {
      removeSqliteFiles(partial);
    }
    return { tool: "sqlite backup API" };
  }
  createOwnerOnly(out);
  try {
    await run("pg_dump", ["--format=custom", "--no-owner", `--file=${out}`, `--dbname=${databaseUrl}`]);
  } catch (error) {
    rmSync(out, { force: true });
    throw error;
  }
  return { tool: "pg_dump --format=custom" };
}

/**
 * Takes the copy out of WAL mode (the live database's, which the backup API copies): its log is
 * checkpointed into the file and removed, so the backup is one file and leaves no -wal or -shm
 * files beside it, neither under the partial name nor later when it is opened.
 */
function selfContained(path: string): void {
  const db = new SQLite(path, { fileMustExist: true });
  try {
    db.pragma("journal_mode = DELETE");
  } finally {
    db.close();
  }
}

/** Whether the target already holds an Eventgraph database (restoring over it needs --force). */
async function holdsData(databaseUrl: string): Promise<boolean> {
  if (databaseUrl.startsWith("sqlite:")) {
    const path = sqlitePath(databaseUrl);
    if (!existsSync(path)) return false;
    const db = new SQLite(path, { readonly: true });
    try {
      const row = db.prepare("select count(*) as n from sqlite_master where type = 'table'").get() as {
        n: number;
      };
      return row.n > 0;
    } finally {
      db.close();
    }
  }
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  // A lost connection surfaces as the failure of the statement under way; no crash on the event.
  client.on("error", () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "select count(*) as n from information_schema.tables where table_schema = 'public'",
    );
    return Number(rows[0]?.n ?? 0) > 0;
  } finally {
    await client.end();
  }
}

/** Replaces the database with the backup `from`; refuses to overwrite data unless `force`. */
export async function restoreDatabase(
  databaseUrl: string,
  from: string,
  force: boolean,
): Promise<{ tool: string }> {
  if (!existsSync(from)) throw new BackupError(`There is no backup at ${from}`);
  if (!force && (await holdsData(databaseUrl))) {
    throw new BackupError(
      "The target database holds data; stop every server using it and pass --force to replace it",
    );
  }
  if (databaseUrl.startsWith("sqlite:")) {
    assertIntact(from);
    // A restore onto a fresh machine names a folder nothing has made yet; the server makes it on
    // start too (openDatabase), so the two agree on what a DATABASE_URL may point at.
    const target = sqlitePath(databaseUrl);
    mkdirSync(dirname(target), { recursive: true });
    const backup = new SQLite(from, { readonly: true, fileMustExist: true });
    try {
      // Through the backup API rather than a file copy: the target's WAL and locks are honoured,
      // so a reader left open never sees a torn file.
      await backup.backup(target);
    } finally {
      backup.close();
    }
    assertIntact(target);
    return { tool: "sqlite backup API" };
  }
  await run("pg_restore", [
    "--clean",
    "--if-exists",
    "--no-owner",
    "--single-transaction",
    `--dbname=${databaseUrl}`,
    from,
  ]);
  return { tool: "pg_restore --clean --single-transaction" };
}

function assertIntact(path: string): void {
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    const result = db.pragma("integrity_check", { simple: true });
    if (result !== "ok") throw new BackupError(`${path} failed PRAGMA integrity_check: ${String(result)}`);
  } finally {
    db.close();
  }
}

// The URL goes as an argument of a program we start, never through a shell.
function run(program: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new BackupError(
          error.code === "ENOENT"
            ? `${program} is not installed (PATH); install the PostgreSQL client tools of the server's major version`
            : `${program} failed: ${error.message}`,
        ),
      ),
    );
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(
            new BackupError(
              `${program} failed (exit ${code}): ${stderr.trim().split("\n").slice(-3).join(" ")}`,
            ),
          ),
    );
  });
}
