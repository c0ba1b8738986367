#!/usr/bin/env node
// Compiles the TypeScript sources (src/, test/, bench/, examples/) into dist/ file by file with
// esbuild: no bundling, the same module layout tsc would write. esbuild only strips types, which
// tsconfig.json's isolatedModules and verbatimModuleSyntax guarantee is safe for every file; the
// type check is `npm run lint`'s `tsc --noEmit`. Compiling with tsc cost a newcomer's `npm ci` about
// 45 s of CPU; this takes about one.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const folders = ["src", "test", "bench", "examples"];

const entryPoints = folders.flatMap((folder) =>
  readdirSync(new URL(`../${folder}`, import.meta.url), { recursive: true })
    .map((file) => `${folder}/${file}`)
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts")),
);

await build({
  absWorkingDir: root,
  entryPoints,
  outdir: "dist",
  outbase: ".",
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  // JSX as tsconfig.json sets it: the dashboard's pages render with Preact.
  jsx: "automatic",
  jsxImportSource: "preact",
  logLevel: "warning",
});
