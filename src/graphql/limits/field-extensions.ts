import {
  type GraphQLField,
  type GraphQLSchema,
  getNamedType,
  isCompositeType,
  isIntrospectionType,
  isListType,
  isNonNullType,
} from "graphql";
import { isPermission, type Permission } from "../../modules/access/permissions.js";

// What the schema's fields declare for the operation limits: their `cost` and `permission`
// extensions (the convention is at the top of analyze-operation.ts), read there and in
// analysis-key.ts, and checked once by a schema test.

/** The `cost` field extension: see the convention at the top of analyze-operation.ts. */
export interface CostExtension {
  value?: number;
  multiplierArgs?: string[];
  maxItems?: number;
  /** Extra cost when the named argument is given (not null): `{search: 100}` for an index search. */
  argumentCosts?: Record<string, number>;
}

/** The field extensions the operation limits read. */
interface AnalyzedFieldExtensions {
  cost?: CostExtension;
  permission?: Permission;
}

/**
 * Lists every malformed `cost` or `permission` field extension in the schema (empty when all are
 * well-formed). Call it in a schema test so a typo fails CI instead of silently costing 1.
 * @internal Exported for its tests only (knip --production checks that nothing else uses it).
 */
export function checkSchemaExtensions(schema: GraphQLSchema): string[] {
  const problems: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || !("getFields" in type) || !isCompositeType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const where = `${type.name}.${field.name}`;
      const extensions = field.extensions as { cost?: unknown; permission?: unknown };
      if (extensions.permission !== undefined) {
        if (typeof extensions.permission !== "string" || !isPermission(extensions.permission)) {
          problems.push(
            `${where}: permission ${JSON.stringify(extensions.permission)} is not in the catalogue`,
          );
        }
      }
      const cost = extensions.cost as CostExtension | undefined;
      if (unboundedList(type.name, field) && cost?.maxItems === undefined && !cost?.multiplierArgs) {
        problems.push(`${where}: a list of objects must declare cost.maxItems (see list-bounds.ts)`);
      }
      if (cost === undefined) continue;
      if (cost.maxItems !== undefined && !(Number.isInteger(cost.maxItems) && cost.maxItems >= 0)) {
        problems.push(`${where}: cost.maxItems must be an integer ≥ 0`);
      }
      if (cost.value !== undefined && !(Number.isFinite(cost.value) && cost.value >= 0)) {
        problems.push(`${where}: cost.value must be a number ≥ 0`);
      }
      for (const name of [...(cost.multiplierArgs ?? []), ...Object.keys(cost.argumentCosts ?? {})]) {
        if (!field.args.some((arg) => arg.name === name)) {
          problems.push(`${where}: cost names the argument "${name}", which is not an argument of the field`);
        }
      }
    }
  }
  return problems;
}

// A list of objects that nothing multiplies: a connection's `edges` are multiplied by the
// connection field above them, every other list must say how long it can be.
function unboundedList(typeName: string, field: GraphQLField<unknown, unknown>): boolean {
  let type = field.type;
  if (isNonNullType(type)) type = type.ofType;
  if (!isListType(type) || !isCompositeType(getNamedType(type))) return false;
  const paged = field.args.some((arg) => arg.name === "first" || arg.name === "last");
  return !paged && !(typeName.endsWith("Connection") && field.name === "edges");
}

/** A field's `cost` extension, if it declares one. */
export function costExtension(field: GraphQLField<unknown, unknown>): CostExtension | undefined {
  return (field.extensions as AnalyzedFieldExtensions).cost;
}

/** The permission a field declares it needs; a name outside the catalogue fails loudly. */
export function permissionExtension(field: GraphQLField<unknown, unknown>): Permission | undefined {
  const permission = (field.extensions as AnalyzedFieldExtensions).permission;
  if (permission === undefined) return undefined;
  // A misspelt permission must not make a field public by accident.
  if (!isPermission(permission)) {
    throw new Error(`Field ${field.name} declares unknown permission ${JSON.stringify(permission)}`);
  }
  return permission;
}
