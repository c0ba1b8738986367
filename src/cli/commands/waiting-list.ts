import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { notFound } from "../../errors.js";
import type { Services } from "../../services.js";
import { type CommandGroup, requiredFlag } from "../command.js";
import { printResult } from "../output.js";

/** The most entries `waiting-list list` prints: `export` writes them all. */
const maxListed = 1_000;

const projectFlag = requiredFlag("ID", "the project's id");
const ticketTypeFlag = {
  type: "string",
  placeholder: "ID",
  description: "only this ticket type's line (its id, as in the dashboard's address)",
} as const;

/** The project's access as the operator, and the ticket type asked for once it is known to be the project's. */
async function scope(services: Services, projectId: string, ticketTypeId: string | undefined) {
  const { systemActor } = await import("../../modules/access/actor.js");
  const access = await services.access.require(systemActor, projectId);
  if (ticketTypeId !== undefined) {
    const found = await services.tickets.findTicketType(systemActor, ticketTypeId);
    // Another project's ticket type reads as a missing one: a typo must not list an empty line.
    if (found?.item.projectId !== access.projectId) throw notFound("Ticket type");
  }
  return access;
}

/** `eventgraph waiting-list …`: the project's waiting lists, as the dashboard's Waiting list page shows them. */
export const waitingListCommands: CommandGroup = {
  name: "waiting-list",
  summary: "list and export a project's waiting lists",
  commands: [
    {
      name: "list",
      summary:
        "Lists the people on the project's waiting lists in line order, with their state (at most 1,000).",
      options: { project: projectFlag, "ticket-type": ticketTypeFlag },
      async run(input) {
        const { withServices } = await import("../context.js");
        const ticketTypeId = input.string("ticket-type");
        const entries = await withServices(input.io, async (services) => {
          const access = await scope(services, input.requiredString("project"), ticketTypeId);
          const found = [];
          for await (const entry of services.waitingList.exportRows(access, ticketTypeId)) {
            found.push(entry);
            if (found.length === maxListed) break;
          }
          return found;
        });
        const lines = entries.map((e) => {
          const place = e.place === null ? "" : `#${e.place}`;
          const until = e.state === "OFFERED" && e.offerExpiresAt ? `  held until ${e.offerExpiresAt}` : "";
          return `${place.padStart(5)}  ${e.state.padEnd(8)}  ${e.ticketTypeName}  ${e.name} <${e.email}>${until}`;
        });
        printResult(
          input.io,
          input.json,
          {
            entries: entries.map((e) => ({
              id: e.id,
              place: e.place,
              ticketTypeId: e.ticketTypeId,
              ticketTypeName: e.ticketTypeName,
              name: e.name,
              email: e.email,
              state: e.state,
              offeredAt: e.offeredAt,
              offerExpiresAt: e.offerExpiresAt,
              attendeeId: e.attendeeId,
              createdAt: e.createdAt,
            })),
          },
          lines.length > 0 ? lines.join("\n") : "Nobody is on a waiting list.",
        );
        return 0;
      },
    },
    {
      name: "export",
      summary:
        "Writes every waiting-list entry (place in line, state, offer times) as CSV to --out, or to stdout.",
      options: {
        project: projectFlag,
        "ticket-type": ticketTypeFlag,
        out: { type: "string", placeholder: "F", description: "the file to write (default: stdout)" },
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const ticketTypeId = input.string("ticket-type");
        const out = input.string("out");
        const rows = await withServices(input.io, async (services) => {
          const access = await scope(services, input.requiredString("project"), ticketTypeId);
          const count = await services.waitingList.count(access, ticketTypeId);
          const csv = services.waitingList.exportCsv(access, ticketTypeId);
          if (out) await pipeline(csv, createWriteStream(out));
          else await pipeline(csv, input.io.stdout, { end: false });
          return count;
        });
        if (out) printResult(input.io, input.json, { out, rows }, `Wrote ${rows} entries to ${out}.`);
        return 0;
      },
    },
  ],
};
