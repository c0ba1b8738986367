import { readFile, stat } from "node:fs/promises";
import { badInput } from "../../errors.js";
import { type CommandGroup, requiredFlag } from "../command.js";
import { printResult, writeExport } from "../output.js";

/** Problems printed in the human-readable summary; `--json` lists them all. */
const printedProblems = 20;

/** `eventgraph attendees …`: CSV import and export, with the dashboard's rules. */
export const attendeesCommands: CommandGroup = {
  name: "attendees",
  summary: "import and export attendees as CSV, erase one",
  commands: [
    {
      name: "import",
      summary: "Registers the attendees of a CSV file (columns name, email, ticket type, optional company).",
      details:
        "Columns are found by their header (name, email, company, ticket type). Rows that are invalid, name an\n" +
        "unknown ticket type, find it sold out, or whose email is already registered are skipped and listed;\n" +
        "importing the same file again registers nobody twice. --dry-run checks without writing.",
      options: {
        project: requiredFlag("ID", "the project's id"),
        file: requiredFlag("F", "the CSV file (UTF-8)"),
        "dry-run": { type: "boolean", description: "check every row, import nothing" },
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const { guessMapping, maxImportBytes, parseAttendeeCsv, importFieldLabels } = await import(
          "../../modules/attendees/attendees-csv.js"
        );
        const path = input.requiredString("file");
        if ((await stat(path)).size > maxImportBytes) {
          throw badInput([{ field: ["file"], message: `is larger than ${maxImportBytes / 1024 / 1024} MB` }]);
        }
        const parsed = await parseAttendeeCsv(await readFile(path, "utf8"));
        const mapping = guessMapping(parsed.headers);
        const missing = (["name", "email", "ticketType"] as const).filter((f) => mapping[f] === null);
        if (missing.length > 0) {
          const names = missing.map((f) => importFieldLabels[f].toLowerCase()).join(", ");
          throw badInput([
            {
              field: ["file"],
              message: `has no column for ${names} (its header: ${parsed.headers.join(", ")})`,
            },
          ]);
        }
        const dryRun = input.flag("dry-run");
        const outcome = await withServices(input.io, (services) =>
          services.attendeeFiles.importRows(systemActor, input.requiredString("project"), parsed, mapping, {
            dryRun,
          }),
        );
        const skipped = outcome.problems.length;
        const lines = [
          `${dryRun ? "Would import" : "Imported"} ${outcome.imported} of ${outcome.total} rows; ${skipped} skipped.`,
          ...outcome.problems
            .slice(0, printedProblems)
            .map((p) => `  line ${p.line} (${p.email}): ${p.kind}: ${p.message}`),
          ...(skipped > printedProblems
            ? [`  … and ${skipped - printedProblems} more (--json lists all)`]
            : []),
        ];
        printResult(input.io, input.json, { ...outcome, skipped }, lines.join("\n"));
        return 0;
      },
    },
    {
      name: "export",
      summary: "Writes every attendee (with check-in time) as CSV to --out, or to stdout.",
      options: {
        project: requiredFlag("ID", "the project's id"),
        out: { type: "string", placeholder: "F", description: "the file to write (default: stdout)" },
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const out = input.string("out");
        await withServices(input.io, async (services) => {
          const access = await services.access.require(systemActor, input.requiredString("project"));
          const count = await services.attendees.countAttendees(access, {});
          await writeExport(input, out, services.attendeeFiles.exportCsv(access, {}), count, "attendees");
        });
        return 0;
      },
    },
    {
      name: "erase",
      summary: "Erases an attendee's personal data everywhere it is stored (GDPR Art. 17); cannot be undone.",
      details:
        "Name, email and company are replaced in the registration, the audit log's values, webhook payloads\n" +
        "and logs, imported files and the orders they bought; the registration, its ticket and check-ins stay\n" +
        "so counts add up. The audit log records the erasure; subscribed apps get attendee.erased.",
      options: {
        attendee: requiredFlag("ID", "the attendee's id (as in the dashboard's address)"),
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const id = input.requiredString("attendee");
        const attendee = await withServices(input.io, (services) =>
          services.attendees.eraseAttendee(systemActor, { id }),
        );
        printResult(
          input.io,
          input.json,
          { id: attendee.id, erased: true },
          `Erased attendee ${attendee.id}.`,
        );
        return 0;
      },
    },
  ],
};
