import assert from "node:assert/strict";
import { describe, test } from "node:test";
import SchemaBuilder from "@pothos/core";
import RelayPlugin from "@pothos/plugin-relay";
import { execute, parse } from "graphql";
import type { Columns } from "../db/projection.js";
import { columnSelector, reads } from "./selection.js";

interface Row {
  id: string;
  title: string;
  room_id: string | null;
  description: string | null;
}

// A connection of sessions whose resolver records the columns the selection asks for.
function schemaRecording(asked: Columns[]) {
  const builder = new SchemaBuilder<{ DefaultEdgesNullability: false }>({
    plugins: [RelayPlugin],
    relay: { cursorType: "String", clientMutationId: "omit" },
  });
  const Session = builder.objectRef<Row>("Session");
  Session.implement({
    fields: (t) => ({
      id: t.exposeID("id", reads<Row>([])),
      title: t.exposeString("title", reads<Row>(["title"])),
      room: t.string({ ...reads<Row>(["room_id"]), nullable: true, resolve: (s) => s.room_id }),
      // Declares nothing: whoever selects it gets every column.
      description: t.exposeString("description", { nullable: true }),
    }),
  });
  const selected = columnSelector(["edges", "node"]);
  builder.queryType({
    fields: (t) => ({
      sessions: t.connection({
        type: Session,
        resolve: (_root, _args, _context, info) => {
          asked.push(selected(info));
          return { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } };
        },
      }),
    }),
  });
  return builder.toSchema();
}

function columnsAskedBy(query: string): Columns {
  const asked: Columns[] = [];
  execute({ schema: schemaRecording(asked), document: parse(query) });
  assert.equal(asked.length, 1);
  return asked[0];
}

describe("columns read for a selection", () => {
  test("a selected field that declares no columns reads every column", () => {
    assert.equal(columnsAskedBy("{ sessions { edges { node { title description } } } }"), undefined);
  });

  test("reads the declared columns of the selected fields, through fragments, sorted", () => {
    const query = `{ sessions { pageInfo { hasNextPage } edges { cursor node { __typename id ...F ... on Session { title } } } } }
      fragment F on Session { room }`;
    assert.deepEqual(columnsAskedBy(query), ["room_id", "title"]);
  });

  test("reads no column beyond the key when only the id is selected", () => {
    assert.deepEqual(columnsAskedBy("{ sessions { edges { node { id } } } }"), []);
  });

  test("keeps the declarations of other extensions that reads merges", () => {
    assert.deepEqual(reads<Row>(["title"], { extensions: { cost: { maxItems: 5 } } }), {
      extensions: { cost: { maxItems: 5 }, columns: ["title"] },
    });
  });
});
