import { Readable } from "node:stream";
import type { OrderFilter } from "../../modules/orders/orders.service.js";
import type { ExportedOrder } from "../../modules/orders/orders-export.js";
import { type CommandGroup, integerFlag, requiredFlag, UsageError } from "../command.js";
import { printResult, writeExport } from "../output.js";

/** The most orders `orders list` prints: the dashboard's Orders tab pages through more. */
const maxListed = 1_000;

/** `eventgraph orders …`: the project's orders, as the Orders tab shows them. */
export const ordersCommands: CommandGroup = {
  name: "orders",
  summary: "list, export and refund a project's orders",
  commands: [
    {
      name: "list",
      summary: "Lists the project's orders by the time they were placed (at most 1,000).",
      options: {
        project: { type: "string", placeholder: "ID", required: true, description: "the project's id" },
        state: {
          type: "string",
          placeholder: "S",
          description: "only orders in this state: PENDING, PAID, EXPIRED, CANCELLED or REFUNDED",
        },
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const { resolvePageArgs } = await import("../../shared/pagination.js");
        const { formatMoney } = await import("../../shared/money.js");
        // Checked by the service's filter: anything but the four states is refused, naming the flag.
        const state = input.string("state")?.toUpperCase() as OrderFilter["state"];
        const orders = await withServices(input.io, async (services) => {
          const access = await services.access.require(systemActor, input.requiredString("project"));
          const found = [];
          let after: string | null = null;
          do {
            const page = await services.orders.listOrders(
              access,
              { state },
              resolvePageArgs({ first: 100, after }),
            );
            found.push(...page.items);
            after = page.hasNextPage ? page.endCursor : null;
          } while (after && found.length < maxListed);
          return found.slice(0, maxListed);
        });
        const lines = orders.map(
          (o) =>
            `${o.code}  ${o.state.padEnd(9)}  ${formatMoney(o.totalMinor, o.currency).padStart(12)}  ${o.provider.padEnd(13)}  ${o.buyerName} <${o.buyerEmail}>`,
        );
        const text = lines.length > 0 ? lines.join("\n") : "No orders.";
        printResult(
          input.io,
          input.json,
          {
            orders: orders.map((o) => ({
              id: o.id,
              code: o.code,
              state: o.state,
              totalMinor: o.totalMinor,
              currency: o.currency,
              provider: o.provider,
              paymentReference: o.paymentReference,
              buyerName: o.buyerName,
              buyerEmail: o.buyerEmail,
              createdAt: o.createdAt,
              paidAt: o.paidAt,
            })),
          },
          text,
        );
        return 0;
      },
    },
    {
      name: "export",
      summary:
        "Writes every order (tickets, total, tax, invoice numbers) as CSV or JSON to --out, or to stdout.",
      options: {
        project: requiredFlag("ID", "the project's id"),
        format: { type: "string", placeholder: "csv|json", description: "the file's format (default: csv)" },
        state: {
          type: "string",
          placeholder: "S",
          description: "only orders in this state: PENDING, PAID, EXPIRED, CANCELLED or REFUNDED",
        },
        out: { type: "string", placeholder: "F", description: "the file to write (default: stdout)" },
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const format = input.string("format") ?? "csv";
        if (format !== "csv" && format !== "json") throw new UsageError("--format must be csv or json");
        const state = input.string("state")?.toUpperCase() as OrderFilter["state"];
        const out = input.string("out");
        await withServices(input.io, async (services) => {
          const access = await services.access.require(systemActor, input.requiredString("project"));
          const count = await services.orders.countOrders(access, { state });
          // JSON is written as it is read, one order at a time: `{"orders":[…]}` never sits in memory whole.
          const body =
            format === "csv"
              ? services.orders.exportCsv(access, { state })
              : Readable.from(jsonChunks(services.orders.exportRows(access, { state })));
          await writeExport(input, out, body, count, "orders");
        });
        return 0;
      },
    },
    {
      name: "refund",
      summary:
        "Refunds all or part of a paid order, as the operator: through Stripe for a card order, recorded as made by hand otherwise.",
      options: {
        order: {
          type: "string",
          placeholder: "ID",
          required: true,
          description: "the order's id (orders list --json)",
        },
        amount: {
          type: "string",
          placeholder: "MINOR",
          description: "minor units to refund (cents); omitted: everything not refunded yet",
        },
      },
      async run(input) {
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const { formatMoney } = await import("../../shared/money.js");
        const amountMinor = integerFlag(input, "amount", 1, 2_147_483_647);
        const order = await withServices(input.io, (services) =>
          services.refunds.refundOrder(systemActor, { id: input.requiredString("order"), amountMinor }),
        );
        printResult(
          input.io,
          input.json,
          { id: order.id, code: order.code, state: order.state, refundedMinor: order.refundedMinor },
          `${order.code}: ${formatMoney(order.refundedMinor, order.currency)} refunded in all (${order.state}).`,
        );
        return 0;
      },
    },
    {
      name: "import-statement",
      summary:
        "Matches a CSV bank statement's payment references and amounts to pending bank-transfer orders; marks them paid only with --apply.",
      options: {
        project: { type: "string", placeholder: "ID", required: true, description: "the project's id" },
        file: {
          type: "string",
          placeholder: "F",
          required: true,
          description: "the statement as CSV with a header; an Amount (Betrag, …) column",
        },
        apply: { type: "boolean", description: "mark the matched orders paid (without it: a dry run)" },
      },
      async run(input) {
        const { readFile, stat } = await import("node:fs/promises");
        const { withServices } = await import("../context.js");
        const { systemActor } = await import("../../modules/access/actor.js");
        const { maxImportBytes } = await import("../../modules/attendees/attendees-csv.js");
        const { badInput } = await import("../../errors.js");
        const path = input.requiredString("file");
        if ((await stat(path)).size > maxImportBytes) {
          throw badInput([{ field: ["file"], message: `is larger than ${maxImportBytes / 1024 / 1024} MB` }]);
        }
        const csv = await readFile(path, "utf8");
        const dryRun = !input.flag("apply");
        const rows = await withServices(input.io, (services) =>
          services.importBankStatement(systemActor, {
            projectId: input.requiredString("project"),
            csv,
            dryRun,
          }),
        );
        const count = (outcome: string) => rows.filter((r) => r.outcome === outcome).length;
        const lines = rows.map(
          (r) =>
            `line ${r.line}: ${r.outcome}${r.orderCode ? ` ${r.orderCode}` : ""}${r.message ? ` (${r.message})` : ""}`,
        );
        const summary = `${dryRun ? "Dry run: would mark" : "Marked"} ${count("MATCHED")} paid; ${count("ALREADY_PAID")} already paid, ${count("AMOUNT_MISMATCH")} amount mismatch, ${count("REFUSED")} refused, ${count("UNMATCHED")} unmatched.`;
        printResult(input.io, input.json, { dryRun, rows }, [...lines, summary].join("\n"));
        return 0;
      },
    },
  ],
};

async function* jsonChunks(orders: AsyncIterable<ExportedOrder>) {
  yield '{"orders":[';
  let first = true;
  for await (const order of orders) {
    yield `${first ? "" : ","}\n${JSON.stringify(order)}`;
    first = false;
  }
  yield "\n]}\n";
}
