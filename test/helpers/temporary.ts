import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The folders this test process made in the system's temporary folder, removed when it exits: a
// whole run used to leave over a hundred behind.
const folders: string[] = [];
process.once("exit", () => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A new folder in the system's temporary folder, removed when this test process exits. */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
}
