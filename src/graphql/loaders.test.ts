import assert from "node:assert/strict";
import { test } from "node:test";
import type { Services } from "../services.js";
import { createLoaders, RelationLoader } from "./loaders.js";

// A relation of three rooms, recording each batch it is asked for.
function rooms() {
  const batches: string[][] = [];
  const known = new Map([
    ["r1", "Hall A"],
    ["r2", "Hall B"],
  ]);
  const loader = new RelationLoader<string | undefined>(async (ids) => {
    batches.push([...ids]);
    return new Map(ids.flatMap((id) => (known.has(id) ? [[id, known.get(id)]] : [])));
  }, undefined);
  return { loader, batches };
}

test("a preloaded relation answers at once, a missing row included, in one batch", async () => {
  const { loader, batches } = rooms();
  await loader.preload(["r1", "r2", "r1", "gone"]);
  assert.equal(loader.get("r1"), "Hall A");
  assert.equal(loader.get("r2"), "Hall B");
  assert.equal(loader.get("gone"), undefined);
  assert.deepEqual(batches, [["r1", "r2", "gone"]]);
});

test("what was not preloaded comes through a promise, batched per tick", async () => {
  const { loader, batches } = rooms();
  await loader.preload(["r1"]);
  const later = [loader.get("r2"), loader.get("gone")];
  assert.ok(later.every((value) => value instanceof Promise));
  assert.deepEqual(await Promise.all(later), ["Hall B", undefined]);
  await loader.preload(["r1"]);
  assert.deepEqual(batches, [["r1"], ["r2", "gone"]], "a known id is not loaded again");
});

test("a request's loader of a relation is made on first use, kept for the request, and never shared", async () => {
  const asked: string[][] = [];
  const services = {
    agenda: {
      roomsByIds: async (ids: string[]) => {
        asked.push(ids);
        return new Map(ids.map((id) => [id, { id, name: `Hall ${id}` }]));
      },
    },
  } as unknown as Services;
  const request = createLoaders(services);
  const other = createLoaders(services);
  assert.equal(request.room, request.room);
  assert.notEqual(request.room, other.room);
  await request.room.preload(["r1"]);
  assert.deepEqual(request.room.get("r1"), { id: "r1", name: "Hall r1" });
  // The other request's loader knows nothing of it: it asks for itself.
  assert.deepEqual(await other.room.get("r1"), { id: "r1", name: "Hall r1" });
  assert.deepEqual(asked, [["r1"], ["r1"]]);
});
