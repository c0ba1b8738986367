import { createWriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError } from "../errors.js";
import type { CliIo } from "./command.js";

/** Prints a command's result: the JSON object with `--json`, else the human-readable lines. */
export function printResult(io: CliIo, json: boolean, value: object, text: string): void {
  io.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/**
 * Writes an export to the file `out`, then says how many `noun` it wrote there; without `out`, to
 * stdout, left open for whatever the CLI writes after it (the rows speak for themselves there).
 */
export async function writeExport(
  input: { io: CliIo; json: boolean },
  out: string | undefined,
  body: Readable,
  rows: number,
  noun: string,
): Promise<void> {
  if (!out) return pipeline(body, input.io.stdout, { end: false });
  await pipeline(body, createWriteStream(out));
  printResult(input.io, input.json, { out, rows }, `Wrote ${rows} ${noun} to ${out}.`);
}

/**
 * One line for stderr saying what went wrong. Domain errors are written for people already; every
 * field problem is named so a script's author can fix all of them at once. No stack traces.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof AppError) {
    const fields = error.details.fieldErrors ?? [];
    if (fields.length > 1) return fields.map((f) => `${f.field.join(".")}: ${f.message}`).join("; ");
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Reads all of stdin as text (a piped password), without its final line break. */
export async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}
