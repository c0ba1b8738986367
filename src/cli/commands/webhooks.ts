import { type Command, integerFlag, requiredFlag, UsageError } from "../command.js";
import { printResult } from "../output.js";

const statuses = ["pending", "delivered", "failed", "cancelled"] as const;

/** `apps webhook`, `apps deliveries`, `apps redeliver`: an app's webhook, as the operator. */
export const webhookCommands: Command[] = [
  {
    name: "webhook",
    summary: "Sets an app's webhook URL and events; prints the signing secret when it is new.",
    details:
      "--events takes event types separated by commas, e.g. attendee.registered,checkin.created.\n" +
      "The secret (whsec_…) is printed only when the endpoint is first set up or with --rotate-secret;\n" +
      "after a rotation the old secret keeps signing beside the new one for 24 hours.",
    options: {
      app: requiredFlag("A", "the app's id"),
      url: { type: "string", placeholder: "URL", description: "https:// address that receives the events" },
      events: { type: "string", placeholder: "a,b", description: "event types separated by commas" },
      "rotate-secret": { type: "boolean", description: "issue a new signing secret" },
    },
    async run(input) {
      const appId = input.requiredString("app");
      const { withServices } = await import("../context.js");
      const { systemActor } = await import("../../modules/access/actor.js");
      const result = await withServices(input.io, async (services) => {
        const existing = await services.webhooks.endpointOf(systemActor, appId);
        const url = input.string("url") ?? existing?.url;
        const events =
          input
            .string("events")
            ?.split(/[\s,]+/)
            .filter(Boolean) ?? existing?.events;
        if (!url || !events) throw new UsageError("--url and --events are required to set up a webhook");
        return services.webhooks.configure(systemActor, {
          appId,
          url,
          events,
          fragments: existing?.fragments,
          rotateSecret: input.flag("rotate-secret"),
        });
      });
      const { endpoint, secret } = result;
      printResult(
        input.io,
        input.json,
        { appId: endpoint.appId, url: endpoint.url, events: endpoint.events, secret: secret ?? null },
        [
          `Webhook of app ${endpoint.appId}`,
          `  URL:     ${endpoint.url}`,
          `  Events:  ${endpoint.events.join(", ")}`,
          secret
            ? `  Secret:  ${secret}\n\nThe secret is shown only this once: receivers verify signatures with it.`
            : `  Secret:  …${endpoint.secretLastFour} (unchanged; --rotate-secret issues a new one)`,
        ].join("\n"),
      );
      return 0;
    },
  },
  {
    name: "deliveries",
    summary: "Lists an app's webhook deliveries, newest first.",
    options: {
      app: requiredFlag("A", "the app's id"),
      status: { type: "string", placeholder: "S", description: `only this status: ${statuses.join(", ")}` },
      limit: {
        type: "string",
        placeholder: "N",
        description: "at most N deliveries (1 to 1000, default 100)",
      },
    },
    async run(input) {
      const status = input.string("status")?.toLowerCase();
      if (status !== undefined && !statuses.includes(status as (typeof statuses)[number])) {
        throw new UsageError(`--status must be one of ${statuses.join(", ")}`);
      }
      const limit = integerFlag(input, "limit", 1, 1000) ?? 100;
      const { withServices } = await import("../context.js");
      const { systemActor } = await import("../../modules/access/actor.js");
      const deliveries = await withServices(input.io, (services) =>
        services.webhooks.deliveries(systemActor, input.requiredString("app"), {
          status: status?.toUpperCase() as "PENDING" | undefined,
          limit,
        }),
      );
      const rows = deliveries.map((d) => ({
        id: d.id,
        type: d.type,
        projectId: d.projectId,
        status: d.status,
        attempts: d.attempts,
        responseStatus: d.responseStatus,
        createdAt: d.createdAt,
        deliveredAt: d.deliveredAt,
      }));
      printResult(
        input.io,
        input.json,
        { deliveries: rows },
        rows.length === 0
          ? "No deliveries"
          : rows
              .map(
                (d) =>
                  `${d.createdAt}  ${d.status.padEnd(9)} ${String(d.responseStatus ?? "-").padEnd(4)} ${d.type.padEnd(20)} ${d.projectId}  ${d.id}`,
              )
              .join("\n"),
      );
      return 0;
    },
  },
  {
    name: "redeliver",
    summary: "Sends a webhook delivery once more (same webhook-id), from the next dispatcher round on.",
    options: {
      delivery: requiredFlag("ID", "the delivery's id"),
    },
    async run(input) {
      const { withServices } = await import("../context.js");
      const { systemActor } = await import("../../modules/access/actor.js");
      const delivery = await withServices(input.io, (services) =>
        services.webhooks.redeliver(systemActor, input.requiredString("delivery")),
      );
      printResult(
        input.io,
        input.json,
        { id: delivery.id, status: delivery.status },
        `Queued delivery ${delivery.id} (${delivery.type}) again; a running server sends it.`,
      );
      return 0;
    },
  },
];
