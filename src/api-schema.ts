import { type GraphQLSchema, lexicographicSortSchema, printSchema } from "graphql";
import { defineAgendaTypes } from "../modules/agenda/agenda.graphql.js";
import { defineViewerTypes } from "../modules/apps/apps.graphql.js";
import { definePermissionFields } from "../modules/apps/permissions.graphql.js";
import { defineAttendeeTypes } from "../modules/attendees/attendees.graphql.js";
import { defineCheckInTypes } from "../modules/checkins/checkins.graphql.js";
import { defineProjectTypes } from "../modules/projects/projects.graphql.js";
import { defineTicketTypes } from "../modules/tickets/tickets.graphql.js";
import { builder } from "./builder.js";
import { enforcePermissions } from "./permissions.js";
import { defineRateLimitField } from "./rate-limit.graphql.js";

let built: GraphQLSchema | undefined;

/**
 * The API schema, assembled once per process from each module's types (the builder is a singleton,
 * so the modules' definitions must run exactly once), with permission guards applied.
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
    defineRateLimitField();
    built = enforcePermissions(builder.toSchema({ sortSchema: true }));
  }
  return built;
}

/** The schema as sorted SDL, as committed in `schema.graphql`. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema()))}\n`;
}
