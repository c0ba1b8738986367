import assert from "node:assert/strict";
import { describe, test } from "node:test";
import SchemaBuilder from "@pothos/core";
import RelayPlugin from "@pothos/plugin-relay";
import { execute, type GraphQLResolveInfo, parse } from "graphql";
import type { Columns } from "../db/projection.js";
import type { GraphQLContext } from "./context.js";
import { requires, restricts } from "./permissions.js";
import { columnSelector, type Preload, preloadSelector, preloads, reads } from "./selection.js";

interface Row {
  id: string;
  title: string;
  room_id: string | null;
  description: string | null;
}

// A fresh schema builder with Relay: each test schema is built on its own.
function relayBuilder() {
  return new SchemaBuilder<{ DefaultEdgesNullability: false }>({
    plugins: [RelayPlugin],
    relay: { cursorType: "String", clientMutationId: "omit" },
  });
}

// The part of a request's context that columnSelector reads: the `projection` switch.
const withProjection = (projection: boolean) =>
  ({ services: { config: { fastPaths: { projection } } } }) as unknown as GraphQLContext;

// A connection of sessions whose resolver records the columns the selection asks for.
function schemaRecording(asked: Columns[], projection = true) {
  const builder = relayBuilder();
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
          asked.push(selected(info, withProjection(projection)));
          return { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } };
        },
      }),
    }),
  });
  return builder.toSchema();
}

function columnsAskedBy(query: string, projection = true): Columns {
  const asked: Columns[] = [];
  execute({ schema: schemaRecording(asked, projection), document: parse(query) });
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

  test("with the projection fast path off, every selection reads every column", () => {
    assert.deepEqual(columnsAskedBy("{ sessions { edges { node { title } } } }", true), ["title"]);
    assert.equal(columnsAskedBy("{ sessions { edges { node { title } } } }", false), undefined);
  });

  test("a guarded field, argument or type also reads the column its guard finds the project in", () => {
    const asked: Columns[] = [];
    const builder = relayBuilder();
    const Attendee = builder.objectRef<{ email: string }>("Attendee");
    Attendee.implement({
      fields: (t) => ({
        name: t.string({ ...reads([]), resolve: () => "" }),
        email: t.exposeString("email", reads(["email"], requires("attendees:read"))),
        talks: t.string({
          ...reads([]),
          args: { status: t.arg.string(restricts("agenda:read", ["PUBLISHED"])) },
          resolve: () => "",
        }),
      }),
    });
    // A type's own permission: checked for the whole object, whichever of its fields is selected.
    const Ticket = builder.objectRef<{ name: string }>("Ticket");
    Ticket.implement({
      ...requires("tickets:read"),
      fields: (t) => ({ name: t.exposeString("name", reads(["name"])) }),
    });
    const selected = columnSelector();
    const recording = <T>(value: T) => ({
      resolve: (_root: unknown, _args: unknown, _context: unknown, info: GraphQLResolveInfo) => {
        asked.push(selected(info, withProjection(true)));
        return value;
      },
    });
    builder.queryType({
      fields: (t) => ({
        attendee: t.field({ type: Attendee, ...recording({ email: "" }) }),
        ticket: t.field({ type: Ticket, ...recording({ name: "" }) }),
      }),
    });
    const schema = builder.toSchema();
    for (const query of ["{ attendee { name } }", "{ attendee { name email } }", "{ attendee { talks } }"])
      execute({ schema, document: parse(query) });
    execute({ schema, document: parse("{ ticket { name } }") });
    assert.deepEqual(asked, [[], ["email", "project_id"], ["project_id"], ["name", "project_id"]]);
  });

  test("keeps the declarations of other extensions that reads merges", () => {
    assert.deepEqual(reads<Row>(["title"], { extensions: { cost: { maxItems: 5 } } }), {
      extensions: { cost: { maxItems: 5 }, columns: ["title"] },
    });
  });
});

interface SpeakerRow {
  name: string;
  bio: string;
}

// A connection of sessions, with the preload of each field of `fields` (by name) and of `speakers`,
// whose resolver runs the preloads its selection asks for and records what they settled to.
function preloadingSchema(
  fields: Record<string, Preload<Row>>,
  settled: unknown[][],
  speakersPreload: Preload<Row> = async () => {},
) {
  const builder = relayBuilder();
  const Speaker = builder.objectRef<SpeakerRow>("Speaker");
  Speaker.implement({
    fields: (t) => ({
      name: t.exposeString("name", reads<SpeakerRow>(["name"])),
      bio: t.exposeString("bio", reads<SpeakerRow>(["bio"])),
    }),
  });
  const Session = builder.objectRef<Row>("Session");
  Session.implement({
    fields: (t) => ({
      title: t.exposeString("title"),
      // A relation loaded per column list, as Session.speakers is.
      speakers: t.field({ type: [Speaker], ...preloads(speakersPreload), resolve: () => [] }),
      ...Object.fromEntries(
        Object.entries(fields).map(([name, preload]) => [
          name,
          t.string({ ...preloads(preload), nullable: true, resolve: () => null }),
        ]),
      ),
    }),
  });
  const preloaded = preloadSelector<Row>(["edges", "node"]);
  builder.queryType({
    fields: (t) => ({
      sessions: t.connection({
        type: Session,
        resolve: async (_root, _args, context, info) => {
          settled.push(await preloaded(info)([], context as GraphQLContext));
          return { edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } };
        },
      }),
    }),
  });
  return builder.toSchema();
}

describe("preloads run for a selection", () => {
  const ran: string[] = [];
  const recording =
    (name: string): Preload<Row> =>
    async () => {
      ran.push(name);
    };
  const rooms = recording("rooms");
  // Two fields of one relation share one preload: it runs once.
  const fields = { room: rooms, roomName: rooms, track: recording("tracks") };

  async function preloadsRunBy(query: string): Promise<string[]> {
    ran.length = 0;
    await execute({
      schema: preloadingSchema(fields, []),
      document: parse(query),
      contextValue: withProjection(true),
    });
    return [...ran].sort();
  }

  test("runs the preload of each selected relation once, through fragments", async () => {
    const query = "{ sessions { edges { node { room roomName ...F } } } } fragment F on Session { track }";
    assert.deepEqual(await preloadsRunBy(query), ["rooms", "tracks"]);
  });

  test("runs none for fields that declare none", async () => {
    assert.deepEqual(await preloadsRunBy("{ sessions { edges { node { title } } } }"), []);
  });

  test("a preload that fails leaves its fields to load on their own", async () => {
    const settled: unknown[][] = [];
    const schema = preloadingSchema(
      { room: () => Promise.reject(new Error("database gone")), track: async () => undefined },
      settled,
    );
    const result = await execute({
      schema,
      document: parse("{ sessions { edges { node { room track } } } }"),
      contextValue: withProjection(true),
    });
    assert.equal(result.errors, undefined);
    assert.deepEqual(settled, [[undefined, undefined]]);
  });
});

describe("a preload is told the columns its field's selection reads", () => {
  async function columnsPreloadedBy(query: string, projection = true): Promise<Columns[]> {
    const told: Columns[] = [];
    const schema = preloadingSchema({}, [], async (_rows, _context, columns) => {
      told.push(columns);
    });
    await execute({ schema, document: parse(query), contextValue: withProjection(projection) });
    return told;
  }

  test("every column, with the projection fast path off", async () => {
    const query = "{ sessions { edges { node { speakers { name } } } } }";
    assert.deepEqual(await columnsPreloadedBy(query, false), [undefined]);
  });

  test("those of the fields selected below it, through fragments, sorted", async () => {
    const query = "{ sessions { edges { node { speakers { name ...S } } } } } fragment S on Speaker { bio }";
    assert.deepEqual(await columnsPreloadedBy(query), [["bio", "name"]]);
  });

  test("once for a field selected under two aliases, with the columns of both", async () => {
    const query = "{ sessions { edges { node { a: speakers { name } b: speakers { bio } } } } }";
    assert.deepEqual(await columnsPreloadedBy(query), [["bio", "name"]]);
  });
});
