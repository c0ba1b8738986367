import assert from "node:assert/strict";
import { Readable, Writable } from "node:stream";
import { runCli } from "../../src/cli/main.js";
import { runNode } from "./processes.js";

/** What one CLI invocation printed, and its exit code. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A stream that keeps what is written to it. */
class Collector extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/**
 * Runs `eventgraph <args>` in this process through `runCli`, configured from `env` alone (as a child
 * started with only these variables would be), with `input` as its stdin. Spawning the real bin
 * for every usage and exit-code case cost over a third of the suite's time; a few tests still run
 * the bin (`runCliBinary`) to prove the wiring.
 */
export async function runCliInProcess(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<CliRun> {
  const stdout = new Collector();
  const stderr = new Collector();
  const stdin = Readable.from(input === undefined ? [] : [Buffer.from(input)]);
  const code = await runCli(args, { stdout, stderr, stdin, env: { ...env } });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** Runs the real bin in a child process, as `npx eventgraph` does. */
export function runCliBinary(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  return runNode(["bin/eventgraph.js", ...args], { env, ...(input === undefined ? {} : { input }) });
}

/** A line of a stack trace, which the CLI must never print to a user. */
export const stackLine = /^\s+at .+:\d+:\d+\)?$/m;

/** Parses stdout that must be exactly one JSON object on one line. */
export function onlyJson(stdout: string): Record<string, unknown> {
  const lines = stdout.split("\n").filter(Boolean);
  assert.equal(lines.length, 1, `expected one line on stdout, got:\n${stdout}`);
  const value: unknown = JSON.parse(lines[0] ?? "");
  assert.ok(value && typeof value === "object" && !Array.isArray(value));
  return value as Record<string, unknown>;
}
