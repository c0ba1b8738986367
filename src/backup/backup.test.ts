import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import SQLite from "better-sqlite3";
import { temporaryFolder } from "../../test/helpers/temporary.js";
import { backupDatabase } from "./backup.js";

// A backup holds every secret and all personal data: only its owner may read it, whatever the umask.
describe("a backup is written owner-only, as one file", () => {
  test("[sqlite] 0600 under umask 022, with no -wal, -shm or .partial files left beside it", async () => {
    const dir = temporaryFolder("eventgraph-backup-mode-");
    const live = join(dir, "live.sqlite");
    const db = new SQLite(live);
    db.pragma("journal_mode = WAL");
    db.exec("create table secrets (value text); insert into secrets values ('whsec_x')");
    const previous = process.umask(0o022);
    try {
      const out = join(dir, "backup.sqlite");
      // The live database stays open with its WAL, as under a running server.
      await backupDatabase(`sqlite:${live}`, out);
      assert.equal(statSync(out).mode & 0o777, 0o600);
      const copy = new SQLite(out, { readonly: true });
      assert.equal(copy.pragma("journal_mode", { simple: true }), "delete");
      assert.equal((copy.prepare("select value from secrets").get() as { value: string }).value, "whsec_x");
      copy.close();
      assert.deepEqual(
        readdirSync(dir)
          .filter((name) => name.startsWith("backup"))
          .sort(),
        ["backup.sqlite"],
      );
    } finally {
      process.umask(previous);
      db.close();
    }
  });

  const postgresUrl = process.env.DATABASE_URL_POSTGRES;
  const pgDump = spawnSync("pg_dump", ["--version"]).status === 0;
  test("[postgres] the pg_dump file is 0600 under umask 022", {
    skip: !postgresUrl ? "DATABASE_URL_POSTGRES is not set" : pgDump ? false : "pg_dump is not on PATH",
  }, async () => {
    const out = join(temporaryFolder("eventgraph-backup-mode-pg-"), "backup.dump");
    const previous = process.umask(0o022);
    try {
      await backupDatabase(postgresUrl ?? "", out);
    } finally {
      process.umask(previous);
    }
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.ok(statSync(out).size > 0);
  });
});
