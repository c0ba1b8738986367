import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "../../test/helpers/processes.js";

/**
 * Runs the built bench `dist/bench/<script>.js` with `args` as `npm run bench` would, writing to a
 * fresh folder, and returns the JSON it wrote there (the folder is removed either way).
 */
export async function benchOutput<T>(script: string, args: string[], timeout: number): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `eventgraph-${script}-`));
  try {
    const out = join(dir, `${script}.json`);
    await promisify(execFile)(process.execPath, [`dist/bench/${script}.js`, ...args, `--out=${out}`], {
      cwd: repoRoot,
      timeout,
    });
    return JSON.parse(readFileSync(out, "utf8")) as T;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
