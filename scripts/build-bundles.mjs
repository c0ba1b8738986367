#!/usr/bin/env node
// Bundles the dashboard's page scripts that need a library (the check-in page's QR decoder) into
// dist/bundles/ with esbuild: served from the service's own assets, no CDN. Part of
// `npm run build:server`; takes well under a second.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

await build({
  absWorkingDir: root,
  entryPoints: { "check-in": "src/dashboard/check-in/door.browser.js" },
  outdir: "dist/bundles",
  bundle: true,
  minify: true,
  format: "iife",
  // Phones at the door run whatever browser they have; ES2020 covers every one with a camera API.
  target: "es2020",
  legalComments: "linked",
  logLevel: "warning",
});
