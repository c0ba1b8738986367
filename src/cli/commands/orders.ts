import type { OrderFilter } from "../../modules/orders/orders.service.js";
import { type CommandGroup, integerFlag } from "../command.js";
import { printResult } from "../output.js";

/** The most orders `orders list` prints: the dashboard's Orders tab pages through more. */
const maxListed = 1_000;

/** `eventgraph orders …`: the project's orders, as the Orders tab shows them. */
export const ordersCommands: CommandGroup = {
  name: "orders",
  summary: "list a project's orders, refund one",
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
              refundedMinor: o.refundedMinor,
            })),
          },
          text,
        );
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
  ],
};
