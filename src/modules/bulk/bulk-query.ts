import {
  type ArgumentNode,
  type DocumentNode,
  type FieldNode,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
} from "graphql";
import { AppError, ErrorCode } from "../../errors.js";

/** The connections of a project a bulk query may read (issue #44). */
const bulkConnections = new Set(["attendees", "orders", "sessions"]);

/** Rows read per page: the connections' own maximum, so a page costs what an app's request may. */
const bulkPageSize = 100;

/** A bulk query made ready to run page by page: the document, and where its rows are in an answer. */
export interface BulkPlan {
  document: DocumentNode;
  /** The project's field name in the answer (an alias when given). */
  projectKey: string;
  /** The connection's field name in the answer. */
  connectionKey: string;
}

function refuse(message: string): never {
  throw new AppError(ErrorCode.BAD_USER_INPUT, message, { fieldErrors: [{ field: ["query"], message }] });
}

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
const pageInfo: FieldNode = {
  kind: Kind.FIELD,
  alias: name("bulkPageInfo"),
  name: name("pageInfo"),
  selectionSet: {
    kind: Kind.SELECTION_SET,
    selections: [
      { kind: Kind.FIELD, name: name("hasNextPage") },
      { kind: Kind.FIELD, name: name("endCursor") },
    ],
  },
};

/**
 * Checks the shape of a bulk query — one query operation, `project(id:)` with one of its
 * attendees, orders or sessions connections, no variables, fragments allowed — and rewrites it to
 * read one page after `$bulkAfter`: the app's own paging arguments are replaced. The rest (types,
 * permissions of each field) is the schema's, validated and enforced as for any request.
 */
export function planBulkQuery(query: string, projectId: string): BulkPlan {
  if (query.length > 20_000) refuse("The query is longer than 20,000 characters");
  let parsed: DocumentNode;
  try {
    parsed = parse(query, { maxTokens: 2_000 });
  } catch (error) {
    refuse(`The query does not parse: ${(error as Error).message}`);
  }
  const operations = parsed.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations[0];
  if (operations.length !== 1 || !operation || operation.operation !== "query") {
    refuse("A bulk query is exactly one query operation");
  }
  if (operation.variableDefinitions?.length)
    refuse("A bulk query takes no variables: write the values in it");
  const project = onlyField(operation.selectionSet, "project");
  const idArgument = project.arguments?.find((a) => a.name.value === "id");
  if (idArgument?.value.kind !== Kind.STRING || idArgument.value.value !== projectId) {
    refuse("The query must read project(id:) with the id of the project the operation runs in");
  }
  const connection = project.selectionSet && onlyField(project.selectionSet);
  if (!connection || !bulkConnections.has(connection.name.value)) {
    refuse("Inside project, select exactly one of attendees, orders or sessions");
  }
  const paging = new Set(["first", "last", "after", "before"]);
  const args: ArgumentNode[] = [
    ...(connection.arguments ?? []).filter((a) => !paging.has(a.name.value)),
    { kind: Kind.ARGUMENT, name: name("first"), value: { kind: Kind.INT, value: String(bulkPageSize) } },
    { kind: Kind.ARGUMENT, name: name("after"), value: { kind: Kind.VARIABLE, name: name("bulkAfter") } },
  ];
  const rewrittenConnection: FieldNode = {
    ...connection,
    arguments: args,
    selectionSet: {
      kind: Kind.SELECTION_SET,
      selections: [...(connection.selectionSet?.selections ?? []), pageInfo],
    },
  };
  const rewritten: OperationDefinitionNode = {
    ...operation,
    variableDefinitions: [
      {
        kind: Kind.VARIABLE_DEFINITION,
        variable: { kind: Kind.VARIABLE, name: name("bulkAfter") },
        type: { kind: Kind.NAMED_TYPE, name: name("String") },
      },
    ],
    selectionSet: {
      kind: Kind.SELECTION_SET,
      selections: [
        {
          ...project,
          selectionSet: { kind: Kind.SELECTION_SET, selections: [rewrittenConnection] },
        },
      ],
    },
  };
  return {
    document: {
      ...parsed,
      definitions: parsed.definitions.map((d) => (d === operation ? rewritten : d)),
    },
    projectKey: project.alias?.value ?? project.name.value,
    connectionKey: connection.alias?.value ?? connection.name.value,
  };
}

/** The one field of a selection set (named `expected` when given); refused otherwise. */
function onlyField(set: SelectionSetNode, expected?: string): FieldNode {
  const [field, ...rest] = set.selections;
  if (!field || rest.length > 0 || field.kind !== Kind.FIELD || (expected && field.name.value !== expected)) {
    refuse(expected ? `The query must select only ${expected}` : "Select exactly one connection in project");
  }
  return field;
}
