import { type GraphQLSchema, lexicographicSortSchema, printSchema } from "graphql";
import { definePermissionFields } from "../modules/apps/permissions.graphql.js";
import { defineProjectTypes } from "../modules/projects/projects.graphql.js";
import { builder } from "./builder.js";
import { enforcePermissions } from "./permissions.js";

let built: GraphQLSchema | undefined;

/**
 * The API schema, assembled once per process from each module's types (the builder is a singleton,
 * so the modules' definitions must run exactly once), with permission guards applied.
 */
export function schema(): GraphQLSchema {
  if (!built) {
    defineProjectTypes();
    definePermissionFields();
    built = enforcePermissions(builder.toSchema({ sortSchema: true }));
  }
  return built;
}

/** The schema as sorted SDL, as committed in `schema.graphql`. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema()))}\n`;
}
