import {
  type DocumentNode,
  type GraphQLSchema,
  getOperationAST,
  isCompositeType,
  type OperationDefinitionNode,
  visit,
} from "graphql";
import { costExtension } from "./field-extensions.js";

/**
 * What the measure of an operation (analyzeOperation) can read of its variables, worked out once
 * per document and operation: the value of a variable that feeds a directive or an argument the
 * cost is computed from, and for every other variable only whether it is absent, null or set
 * (a null where a non-null argument needs a value is refused). Two requests that agree on those
 * have the same measure, so a page asked with a new cursor each time is measured once.
 */
export interface VariableShape {
  operation: OperationDefinitionNode;
  /** The declared variables, each with whether its value (not only its presence) is measured. */
  variables: readonly { name: string; measured: boolean }[];
}

/**
 * The argument names the measure reads the value of, anywhere in the schema: the page sizes
 * `first` and `last`, and those that fields name in their cost extension (`multiplierArgs`,
 * `argumentCosts`, see field-extensions.ts).
 */
export function measuredArguments(schema: GraphQLSchema): ReadonlySet<string> {
  const names = new Set(["first", "last"]);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isCompositeType(type) || !("getFields" in type)) continue;
    for (const field of Object.values(type.getFields())) {
      const cost = costExtension(field);
      for (const name of cost?.multiplierArgs ?? []) names.add(name);
      for (const name of Object.keys(cost?.argumentCosts ?? {})) names.add(name);
    }
  }
  return names;
}

/**
 * The variable shape of `operationName` in `document`; undefined when the operation does not exist
 * (the full analysis says why) or the document asks for introspection, whose measure walks its
 * answer with every variable. Conservative: a variable is measured when it appears in any
 * directive or in any argument named in `measured`, wherever that is in the document.
 */
export function variableShape(
  document: DocumentNode,
  operationName: string | undefined,
  measured: ReadonlySet<string>,
): VariableShape | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const read = new Set<string>();
  const collect = (node: Parameters<typeof visit>[0]) =>
    visit(node, {
      Variable: (variable) => {
        read.add(variable.name.value);
      },
    });
  let introspection = false;
  visit(document, {
    Field: (field) => {
      if (field.name.value === "__schema" || field.name.value === "__type") introspection = true;
    },
    Directive: (directive) => {
      collect(directive);
    },
    Argument: (argument) => {
      if (measured.has(argument.name.value)) collect(argument.value);
    },
  });
  if (introspection) return undefined;
  const variables = (operation.variableDefinitions ?? [])
    .map((definition) => definition.variable.name.value)
    .sort()
    .map((name) => ({ name, measured: read.has(name) }));
  return { operation, variables };
}

/** The key of `variables` (defaults applied) under `shape`: equal keys, equal measures. */
export function shapeKey(shape: VariableShape, variables: Record<string, unknown> | undefined): string {
  let key = "";
  // A NUL cannot occur in JSON text (it is escaped), so the parts cannot run into each other.
  for (const { name, measured } of shape.variables) key += `\u0000${part(variables, name, measured)}`;
  return key;
}

function part(variables: Record<string, unknown> | undefined, name: string, measured: boolean): string {
  if (variables === undefined || !Object.hasOwn(variables, name)) return "absent";
  const value = variables[name];
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  return measured ? `=${JSON.stringify(value)}` : "set";
}
