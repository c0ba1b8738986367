#!/usr/bin/env node
// The import rules `npm run lint` checks, over the TypeScript sources with every import, type-only
// ones included: a type import cycle still ties two modules' meanings together, and it becomes a
// cycle at run time the day someone imports a value along the same edge (compiled JavaScript, where
// tsc has erased type imports, cannot show it). oxc-parser reads the sources (TypeScript 7 has no
// JavaScript API for a tool to parse with, which is why dependency-cruiser could only read dist/).
//
// Rules: no import cycle; src/graphql/ (the layer every module's types build on) never imports a
// module's `*.graphql.ts`, which modules make up the API being src/api-schema.ts's decision; a
// module's repository is imported only by that module, so each table has one owner.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseSync } from "oxc-parser";

// Edges that break the repository rule today, each pending on another change. An edge listed here
// that no longer exists fails the lint too, so the list only shrinks.
const knownViolations = [
  "src/modules/access/access.service.ts -> src/modules/projects/projects.repository.ts",
  "src/modules/attendees/attendees-seats.ts -> src/modules/tickets/tickets.repository.ts",
  "src/modules/projects/projects.service.ts -> src/modules/accounts/users.repository.ts",
];

const rules = [
  {
    name: "graphql-layer-does-not-assemble",
    breaks: (from, to) =>
      from.startsWith("src/graphql/") && /^src\/modules\/[^/]+\/.+\.graphql\.tsx?$/.test(to),
  },
  {
    // About who runs a table's SQL: an import of a row type alone (`import type`) runs none.
    name: "repositories-are-private",
    valuesOnly: true,
    breaks: (from, to) => {
      if (!from.startsWith("src/modules/")) return false;
      const owner = /^src\/modules\/([^/]+)\/.+\.repository\.tsx?$/.exec(to)?.[1];
      return owner !== undefined && !from.startsWith(`src/modules/${owner}/`);
    },
  },
];

const roots = ["src", "test", "bench", "scripts", "examples/typed-client/src"];
const skipped = /(^|\/)(node_modules|dist|generated)(\/|$)|\.d\.ts$/;

function sources(dir) {
  if (!existsSync(dir) || skipped.test(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(tsx?|mjs|jsx?)$/.test(entry.name) && !skipped.test(path) ? [path] : [];
  });
}

// The file a relative specifier names: `./x.js` is written for `./x.ts` (or `.tsx`) under nodenext.
function resolved(from, specifier) {
  const base = join(dirname(from), specifier);
  const written = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.js$/, ".tsx"),
    base.replace(/\.jsx$/, ".tsx"),
  ];
  return written.find((path) => existsSync(path) && statSync(path).isFile());
}

const problems = [];
// Every import, type-only ones included, by importing file; and the edges that bring a value.
const graph = new Map();
const valueEdges = new Set();
for (const file of roots.flatMap(sources)) {
  const text = readFileSync(file, "utf8");
  const { module, errors } = parseSync(file, text);
  if (errors.length > 0) problems.push(`${file}: cannot be parsed (${errors[0].message})`);
  // Each specifier with whether the statement brings only types (`import type`, or every name
  // marked `type`); a bare `import "./x.js"` brings a value: the module runs.
  const specifiers = [
    ...module.staticImports.map((i) => [
      i.moduleRequest.value,
      i.entries.length > 0 && i.entries.every((x) => x.isType),
    ]),
    ...module.staticExports.flatMap((e) =>
      e.entries.flatMap((x) => (x.moduleRequest ? [[x.moduleRequest.value, x.isType]] : [])),
    ),
    // A dynamic import with a literal path (its span includes the quotes).
    ...module.dynamicImports.flatMap((d) => {
      const literal = /^(["'`])([^"'`$]*)\1$/.exec(text.slice(d.moduleRequest.start, d.moduleRequest.end));
      return literal ? [[literal[2], false]] : [];
    }),
  ];
  const edges = new Set();
  const from = relative(".", file);
  for (const [specifier, typeOnly] of specifiers) {
    if (!specifier.startsWith(".")) continue;
    const target = resolved(file, specifier);
    if (!target) {
      problems.push(`${file}: cannot resolve ${specifier}`);
      continue;
    }
    const to = relative(".", target);
    edges.add(to);
    if (!typeOnly) valueEdges.add(`${from} -> ${to}`);
  }
  graph.set(from, edges);
}

const seen = new Set();
for (const [from, edges] of graph) {
  for (const to of edges) {
    const edge = `${from} -> ${to}`;
    for (const rule of rules) {
      if (!rule.breaks(from, to) || (rule.valuesOnly && !valueEdges.has(edge))) continue;
      if (knownViolations.includes(edge)) seen.add(edge);
      else problems.push(`${rule.name}: ${edge}`);
    }
  }
}
for (const edge of knownViolations) {
  if (!seen.has(edge)) problems.push(`a known violation is gone, remove it from the list: ${edge}`);
}

// Cycles: the strongly connected components of the graph (Tarjan's algorithm), each reported with
// one of its cycles spelled out.
let counter = 0;
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
function connect(node) {
  index.set(node, counter);
  low.set(node, counter);
  counter += 1;
  stack.push(node);
  onStack.add(node);
  for (const next of graph.get(node) ?? []) {
    if (!index.has(next)) {
      connect(next);
      low.set(node, Math.min(low.get(node), low.get(next)));
    } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
  }
  if (low.get(node) !== index.get(node)) return;
  const component = new Set();
  let member;
  do {
    member = stack.pop();
    onStack.delete(member);
    component.add(member);
  } while (member !== node);
  if (component.size > 1 || graph.get(node)?.has(node))
    problems.push(`no-circular: ${cycleThrough(node, component)}`);
}

// A shortest path from `start` back to itself inside its component (breadth first).
function cycleThrough(start, component) {
  const previous = new Map();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next) || previous.has(next)) continue;
      previous.set(next, node);
      if (next === start) {
        const path = [];
        for (let at = node; at !== start; at = previous.get(at)) path.unshift(at);
        return [start, ...path, start].join(" -> ");
      }
      queue.push(next);
    }
  }
  return start;
}

for (const node of graph.keys()) if (!index.has(node)) connect(node);

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
console.log(`Import rules: ${graph.size} sources checked, type imports included, no violation.`);
