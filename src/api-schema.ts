import { assertValidSchema, type GraphQLSchema, lexicographicSortSchema, printSchema } from "graphql";
import { assertAccessDeclared, describeAccess } from "./graphql/access-declarations.js";
import { builder, synchronousNodeIds } from "./graphql/builder.js";
import { inlineEdgeNodes } from "./graphql/connections.js";
import { enforcePermissions } from "./graphql/permissions.js";
import { defineRateLimitField } from "./graphql/rate-limit.graphql.js";
import { type ApiVersion, latestVersion, versionsAfter } from "./graphql/versions/api-versions.js";
import { defineAgendaTypes } from "./modules/agenda/agenda.graphql.js";
import { defineViewerTypes } from "./modules/apps/apps.graphql.js";
import { definePermissionFields } from "./modules/apps/permissions.graphql.js";
import { defineAttendeeTypes } from "./modules/attendees/attendees.graphql.js";
import { defineAuditTypes } from "./modules/audit/audit.graphql.js";
import { defineBulkTypes } from "./modules/bulk/bulk.graphql.js";
import { defineCheckInTypes } from "./modules/checkins/checkins.graphql.js";
import { defineDoorCountTypes } from "./modules/checkins/door-counts.graphql.js";
import { defineTestProjectTypes } from "./modules/demo/test-projects.graphql.js";
import { defineDiscountCodeTypes } from "./modules/discount-codes/discount-codes.graphql.js";
import { defineEventPageTypes } from "./modules/event-page/event-page.graphql.js";
import { defineLiveTypes } from "./modules/live/live.graphql.js";
import { defineOrderTypes } from "./modules/orders/orders.graphql.js";
import { defineProjectTypes } from "./modules/projects/projects.graphql.js";
import { defineQuestionTypes } from "./modules/questions/questions.graphql.js";
import { defineTicketTypes } from "./modules/tickets/tickets.graphql.js";
import { defineWaitingListTypes } from "./modules/waiting-list/waiting-list.graphql.js";
import { defineWebhookTypes } from "./modules/webhooks/webhooks.graphql.js";

// The composition root of the API: the one file that knows which modules make it up. It lives
// above src/graphql/ (the builder, permissions, limits and transport every module uses) so that
// layer never imports a module's types; scripts/lint-imports.mjs keeps it that way.

const built = new Map<ApiVersion, GraphQLSchema>();
let defined = false;

/**
 * The API schema of `version` (the newest by default), assembled once per version and process from
 * each module's types (the builder is a singleton, so the modules' definitions run exactly once; each
 * version is its own `toSchema`, so no type object is shared between versions), with the breaking
 * changes of every newer version undone (graphql/versions/api-versions.ts), refused unless every
 * field of a project-scoped type declares its access, with permission guards applied and printed in
 * descriptions, and edge nodes and node ids read without a resolver call or a promise.
 */
export function schema(version: ApiVersion = latestVersion): GraphQLSchema {
  let found = built.get(version);
  if (!found) {
    defineOnce();
    const fresh = builder.toSchema({ sortSchema: true });
    for (const newer of [...versionsAfter(version)].reverse()) {
      for (const change of [...newer.changes].reverse()) change.undo(fresh);
    }
    assertValidSchema(fresh);
    // Fails here, at assembly, when a field of a project-scoped type declares no access.
    const assembled = assertAccessDeclared(fresh);
    found = describeAccess(enforcePermissions(synchronousNodeIds(inlineEdgeNodes(assembled))));
    built.set(version, found);
  }
  return found;
}

function defineOnce(): void {
  if (defined) return;
  defined = true;
  defineProjectTypes();
  definePermissionFields();
  defineViewerTypes();
  defineAgendaTypes();
  defineTicketTypes();
  defineAttendeeTypes();
  defineCheckInTypes();
  defineDoorCountTypes();
  defineOrderTypes();
  defineDiscountCodeTypes();
  defineWaitingListTypes();
  defineQuestionTypes();
  defineAuditTypes();
  defineEventPageTypes();
  defineRateLimitField();
  defineWebhookTypes();
  defineLiveTypes();
  defineBulkTypes();
  defineTestProjectTypes();
}

/** The schema of `version` as sorted SDL, as committed in its snapshot file (`snapshotFile`). */
export function printedSchema(version: ApiVersion = latestVersion): string {
  return `${printSchema(lexicographicSortSchema(schema(version)))}\n`;
}
