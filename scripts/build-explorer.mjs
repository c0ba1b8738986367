#!/usr/bin/env node
// Bundles the API explorer (GraphiQL, React and Monaco's workers) into dist/explorer/ with esbuild,
// so the service serves it from its own assets: no CDN, works offline, no inline script.
// Run by `npm run build`; the server serves whatever this wrote.
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Builds the explorer bundle into `outdir` (relative to the repository root). */
export async function buildExplorer(outdir = "dist/explorer") {
  await rm(new URL(`../${outdir}`, import.meta.url), { recursive: true, force: true });
  const common = {
    absWorkingDir: root,
    bundle: true,
    minify: true,
    outdir,
    logLevel: "warning",
    legalComments: "linked",
    define: { "process.env.NODE_ENV": '"production"' },
  };
  await build({
    ...common,
    entryPoints: { explorer: "src/docs/explorer/explorer.browser.jsx" },
    format: "esm",
    jsx: "automatic",
    // The repository's tsconfig points JSX at Preact (the dashboard); GraphiQL needs React's.
    jsxImportSource: "react",
    tsconfigRaw: "{}",
    loader: { ".ttf": "file", ".woff": "file", ".woff2": "file" },
    assetNames: "[name]-[hash]",
  });
  // Classic (non-module) workers: every browser that runs the explorer can start them.
  await build({
    ...common,
    entryPoints: {
      "editor.worker": "monaco-editor/esm/vs/editor/editor.worker.js",
      "json.worker": "monaco-editor/esm/vs/language/json/json.worker.js",
      "graphql.worker": "monaco-graphql/esm/graphql.worker.js",
    },
    format: "iife",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildExplorer();
  console.log("Built the explorer into dist/explorer/");
}
