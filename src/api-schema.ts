import { type GraphQLSchema, lexicographicSortSchema, printSchema } from "graphql";
import { assertAccessDeclared, describeAccess } from "./graphql/access-declarations.js";
import { builder, synchronousNodeIds } from "./graphql/builder.js";
import { inlineEdgeNodes } from "./graphql/connections.js";
import { enforcePermissions } from "./graphql/permissions.js";
import { defineRateLimitField } from "./graphql/rate-limit.graphql.js";
import { defineAgendaTypes } from "./modules/agenda/agenda.graphql.js";
import { defineViewerTypes } from "./modules/apps/apps.graphql.js";
import { definePermissionFields } from "./modules/apps/permissions.graphql.js";
import { defineAttendeeTypes } from "./modules/attendees/attendees.graphql.js";
import { defineAuditTypes } from "./modules/audit/audit.graphql.js";
import { defineBulkTypes } from "./modules/bulk/bulk.graphql.js";
import { defineCheckInTypes } from "./modules/checkins/checkins.graphql.js";
import { defineDoorCountTypes } from "./modules/checkins/door-counts.graphql.js";
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

let built: GraphQLSchema | undefined;

/**
 * The API schema, assembled once per process from each module's types (the builder is a singleton,
 * so the modules' definitions must run exactly once), refused unless every field of a project-scoped
 * type declares its access, with permission guards applied and printed in descriptions, and edge
 * nodes and node ids read without a resolver call or a promise.
 */
export function schema(): GraphQLSchema {
  if (!built) {
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
    // Fails here, at assembly, when a field of a project-scoped type declares no access.
    const assembled = assertAccessDeclared(builder.toSchema({ sortSchema: true }));
    built = describeAccess(enforcePermissions(synchronousNodeIds(inlineEdgeNodes(assembled))));
  }
  return built;
}

/** The schema as sorted SDL, as committed in `schema.graphql`. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema()))}\n`;
}
