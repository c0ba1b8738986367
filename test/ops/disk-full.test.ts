import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { createApp, createProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { describeNeeding, requirement } from "../helpers/requirements.js";
import { startTestServer } from "../helpers/test-server.js";

// The drill needs a filesystem it can fill: a small tmpfs, mounted here (root, or CAP_SYS_ADMIN).
function mountTmpfs(sizeMiB: number): { dir: string; unmount(): void } | string {
  const dir = mkdtempSync(join(tmpdir(), "eventgraph-diskfull-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMiB}m`, "tmpfs", dir], { stdio: "pipe" });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `cannot mount a tmpfs here (${String((error as Error).message).split("\n")[0]})`;
  }
  return {
    dir,
    unmount() {
      execFileSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the filesystem of `dir` up to the last `leaveBytes` with one file; deleting it frees the space. */
function fill(dir: string, leaveBytes: number): string {
  const path = join(dir, "filler");
  const stats = statfsSync(dir);
  const free = stats.bavail * stats.bsize;
  const fd = openSync(path, "w");
  try {
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let left = free - leaveBytes;
    while (left > 0) left -= writeSync(fd, chunk, 0, Math.min(chunk.length, left));
  } finally {
    closeSync(fd);
  }
  return path;
}

const createSpeaker = `mutation($input: CreateSpeakerInput!) {
  createSpeaker(input: $input) { speaker { id } userErrors { message } }
}`;
const countSpeakers = `query($id: ID!) { project(id: $id) { speakers(includeUnpublished: true, first: 1) { totalCount } } }`;

const mount = mountTmpfs(16);

// Where no tmpfs can be mounted (not root, outside CI) the drill is a named skip; CI runs as root, so
// there a failed mount fails the file.
const skip = requirement(typeof mount === "string" ? mount : undefined);

describeNeeding(skip, "disk-full drill (SQLite on a 16 MiB tmpfs)", () => {
  test("writes fail with 503 SERVICE_UNAVAILABLE (DISK_FULL), reads keep working, nothing is corrupted, and writing resumes once space is freed", async () => {
    if (typeof mount === "string") return;
    const file = join(mount.dir, "db.sqlite");
    const server = await startTestServer({ name: "sqlite", newDatabaseUrl: () => `sqlite:${file}` });
    let filler: string | undefined;
    try {
      const { project, ownerId } = await createProject(server.services);
      const { token } = await createApp(server.services, {
        projectId: project.id,
        ownerId,
        permissions: ["agenda:read", "agenda:write"],
      });
      const write = (n: number) =>
        gql(server.url, createSpeaker, {
          token,
          variables: {
            input: { projectId: project.id, name: `Speaker ${n}`, bio: `${n} ${"x".repeat(9000)}` },
          },
        });
      const count = async () => {
        const answer = await gql(server.url, countSpeakers, { token, variables: { id: project.id } });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body.data.project.speakers.totalCount as number;
      };
      assert.equal((await write(0)).status, 200);

      // Leave less room than the writes below need: each adds ~10 KB of bio to the WAL.
      filler = fill(mount.dir, 256 * 1024);
      let acknowledged = 1;
      let refused: Awaited<ReturnType<typeof write>> | undefined;
      for (let n = 1; n < 500 && !refused; n++) {
        const answer = await write(n);
        if (answer.status === 200 && answer.body.data?.createSpeaker?.speaker) acknowledged++;
        else refused = answer;
      }
      assert.ok(refused, "the disk never filled up");
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(refused.body.errors[0].extensions.code, "SERVICE_UNAVAILABLE");
      assert.equal(refused.body.errors[0].extensions.reason, "DISK_FULL");
      assert.match(refused.body.errors[0].message, /disk is full/);
      assert.equal(refused.headers.get("retry-after"), "60");

      // Reads keep working while the disk is full, and every acknowledged write is there.
      assert.equal(await count(), acknowledged);
      // A smaller write may still fit where the refused one's pages were given back; either it is
      // acknowledged and kept, or refused the same way, never half done.
      const again = await gql(server.url, createSpeaker, {
        token,
        variables: { input: { projectId: project.id, name: "Small" } },
      });
      if (again.body.data?.createSpeaker?.speaker) acknowledged++;
      else assert.equal(again.body.errors[0].extensions.reason, "DISK_FULL", JSON.stringify(again.body));
      assert.equal(await count(), acknowledged);

      // Nothing corrupted: a second connection checks the file as it is now.
      const check = new Database(file, { readonly: true, fileMustExist: true });
      try {
        assert.equal(check.pragma("integrity_check", { simple: true }), "ok");
      } finally {
        check.close();
      }

      // Space back: writes succeed again, without a restart.
      rmSync(filler);
      filler = undefined;
      const resumed = await write(10_000);
      assert.ok(resumed.body.data?.createSpeaker?.speaker, JSON.stringify(resumed.body));
      assert.equal(await count(), acknowledged + 1);
    } finally {
      if (filler) rmSync(filler, { force: true });
      await server.close();
      mount.unmount();
    }
  });
});
