import type { CopyProgress } from "../../copy-data/copy-data.js";
import type { CliIo, Command } from "../command.js";
import { printResult } from "../output.js";

/** Draws the progress on stderr: a bar redrawn in place on a terminal, a line per table otherwise. */
function progressPrinter(io: CliIo) {
  const terminal = (io.stderr as NodeJS.WritableStream & { isTTY?: boolean }).isTTY === true;
  return (progress: CopyProgress) => {
    if (progress.step === "verify") {
      io.stderr.write(`${terminal ? "\r\x1b[K" : ""}verified ${progress.table}: ${progress.rows} rows\n`);
      return;
    }
    const { table, done, total } = progress;
    if (terminal) {
      const width = 30;
      const filled = total === 0 ? width : Math.min(width, Math.round((done / total) * width));
      io.stderr.write(
        `\r\x1b[K${table} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}`,
      );
    } else if (done === total) {
      io.stderr.write(`copied ${table}: ${done} rows\n`);
    }
  };
}

/** `eventgraph copy-data --from URL --to URL [--force]`: moves every row between two databases. */
export const copyDataCommand: Command = {
  name: "copy-data",
  summary: "Copies every table from one database to another (SQLite to PostgreSQL, or back), verified.",
  details:
    "Stop every server using either database first. The target is migrated, filled in one\n" +
    "transaction and checked table by table (row count and checksum) before it commits; a failed\n" +
    "copy leaves it as it was. Ids, timestamps and versions are kept. Progress goes to stderr.",
  options: {
    from: {
      type: "string",
      placeholder: "URL",
      required: true,
      description: "the database to copy (sqlite:<path> or postgres://…), read only",
    },
    to: { type: "string", placeholder: "URL", required: true, description: "the database to fill" },
    force: { type: "boolean", description: "replace a target that holds data" },
  },
  async run(input) {
    const { copyData } = await import("../../copy-data/copy-data.js");
    const report = await copyData(input.requiredString("from"), input.requiredString("to"), {
      force: input.flag("force"),
      onProgress: progressPrinter(input.io),
    });
    const seconds = (report.milliseconds / 1000).toFixed(1);
    printResult(
      input.io,
      input.json,
      report,
      `Copied ${report.rows} rows in ${report.tables.length} tables from ${report.from} to ${report.to} in ${seconds} s; every table verified (rows and checksum)`,
    );
    return 0;
  },
};
