import { type GraphQLSchema, validate } from "graphql";
import type { Config } from "../../config.js";
import { AppError, ErrorCode } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { analyzeOperation } from "../../graphql/limits/analyze-operation.js";
import { assertWithinLimits, operationLimitsFrom } from "../../graphql/limits/operation-limits.js";
import { payloadType, runMutation } from "../../graphql/mutations.js";
import type { BulkOperation } from "./bulk.service.js";
import { planBulkQuery } from "./bulk-query.js";

/**
 * Refuses, before anything is stored, a bulk query that is not valid against the API or whose one
 * page would exceed a request's limits (depth, cost): a page must cost what a request may.
 */
function checkBulkQuery(
  schema: GraphQLSchema,
  config: Pick<Config, "limits">,
  query: string,
  projectId: string,
) {
  const { document } = planBulkQuery(query, projectId);
  const [invalid] = validate(schema, document, undefined, { maxErrors: 1 });
  if (invalid) {
    throw new AppError(ErrorCode.BAD_USER_INPUT, invalid.message, {
      fieldErrors: [{ field: ["query"], message: invalid.message }],
    });
  }
  const limits = operationLimitsFrom(config);
  assertWithinLimits(analyzeOperation({ schema, document, variables: { bulkAfter: null }, limits }), limits);
}

const BulkOperationRef = builder.objectRef<BulkOperation>("BulkOperation");

/**
 * Defines bulk operations (issue #44): `bulkOperationRunQuery`, `bulkOperationCancel` and
 * `currentBulkOperation`. No permission of their own: each page of the query is executed as the app
 * at that moment, so every field it selects needs the permission it needs in a request.
 */
export function defineBulkTypes(): void {
  const StatusEnum = builder.enumType("BulkOperationStatus", {
    description: "Where a bulk operation stands.",
    values: {
      CREATED: { description: "Waiting for a server process to start it." },
      RUNNING: { description: "Being written, page by page." },
      COMPLETED: { description: "Finished: `url` downloads the JSON Lines file (kept 7 days)." },
      FAILED: { description: "Stopped: `errorMessage` says why (a revoked link, a deleted app, a restart)." },
      CANCELED: { description: "Cancelled by the app; its partial file was removed." },
      EXPIRED: { description: "Finished more than 7 days ago: its file was deleted." },
    } satisfies Record<BulkOperation["status"], { description: string }>,
  });

  BulkOperationRef.implement({
    description:
      "A query over a project's attendees, orders or sessions, run in the background into a JSON Lines file.",
    fields: (t) => ({
      id: t.exposeID("id", { description: "The operation's id." }),
      status: t.field({ type: StatusEnum, description: "Where it stands.", resolve: (o) => o.status }),
      objectCount: t.exposeInt("objectCount", { description: "Rows (lines) written so far." }),
      errorMessage: t.exposeString("errorMessage", { nullable: true, description: "Why it FAILED." }),
      createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was started." }),
      finishedAt: t.expose("finishedAt", {
        type: "DateTime",
        nullable: true,
        description: "When it completed, failed or was cancelled.",
      }),
      url: t.exposeString("url", {
        nullable: true,
        description:
          "A signed link to the file, without a token (GET it as it is), working for one hour; ask again for a fresh one. Null unless COMPLETED.",
      }),
    }),
  });

  const Payload = payloadType(
    "BulkOperationPayload",
    "bulkOperation",
    BulkOperationRef,
    "The bulk operation, or why it could not be started or cancelled.",
  );

  builder.queryField("currentBulkOperation", (t) =>
    t.field({
      type: BulkOperationRef,
      nullable: true,
      description:
        "The app's newest bulk operation in a project; null when it never started one. App tokens only.",
      args: { projectId: t.arg.id({ required: true, description: "The project." }) },
      resolve: (_root, args, c) => {
        c.noCache();
        return c.services.bulk.current(c.actor, String(args.projectId));
      },
    }),
  );

  builder.mutationFields((t) => ({
    bulkOperationRunQuery: t.field({
      type: Payload,
      description:
        'Starts a bulk query: `{ project(id: "…") { attendees { edges { node { … } } } } }` (or orders, sessions), read to the end in the background, one node per line. One open operation per app and project. App tokens only.',
      args: {
        projectId: t.arg.id({ required: true, description: "The project the query reads." }),
        query: t.arg.string({
          required: true,
          description: "The GraphQL query (no paging arguments needed).",
        }),
      },
      resolve: (_root, args, c, info) =>
        runMutation("bulkOperation", async () => {
          checkBulkQuery(info.schema, c.services.config, args.query, String(args.projectId));
          return c.services.bulk.start(c.actor, String(args.projectId), args.query);
        }),
    }),
    bulkOperationCancel: t.field({
      type: Payload,
      description: "Cancels the app's running bulk operation in a project. App tokens only.",
      args: { projectId: t.arg.id({ required: true, description: "The project." }) },
      resolve: (_root, args, c) =>
        runMutation("bulkOperation", () => c.services.bulk.cancel(c.actor, String(args.projectId))),
    }),
  }));
}
