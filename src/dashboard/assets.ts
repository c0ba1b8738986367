import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { StoredBody } from "../http/compression.js";
import { setAssetSecurityHeaders } from "../http/security-headers.js";

// The files live in src/dashboard/assets. Compiled code runs from dist/src/dashboard, which has no
// copy (tsc copies no CSS), so the source folder is found from either place.
const candidates = [
  new URL("./assets/", import.meta.url),
  new URL("../../../src/dashboard/assets/", import.meta.url),
].map((url) => fileURLToPath(url));
const folder = candidates.find((dir) => existsSync(`${dir}dashboard.css`)) ?? candidates[0];

const types: Record<string, string> = {
  "dashboard.css": "text/css; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

interface Asset {
  stored: StoredBody;
  type: string;
  version: string;
}

const assets = new Map<string, Asset>(
  Object.entries(types).map(([name, type]) => {
    const body = readFileSync(`${folder}${name}`);
    const version = createHash("sha256").update(body).digest("hex").slice(0, 12);
    return [name, { stored: new StoredBody(body), type, version }];
  }),
);

/** The URL of an asset, versioned by its content so browsers may cache it for a year. */
export function assetPath(name: keyof typeof types | string): string {
  const asset = assets.get(name);
  return `/assets/${name}?v=${asset?.version ?? "0"}`;
}

// Page scripts that bundle a library (the check-in page's QR decoder) are built by
// scripts/build-bundles.mjs, part of `npm run build:server`, into dist/bundles/. A tree compiled
// without them still serves every page: the pages work without script.
const bundleFolder = fileURLToPath(new URL("../../bundles/", import.meta.url));
for (const name of ["check-in.js"]) {
  if (!existsSync(`${bundleFolder}${name}`)) continue;
  const body = readFileSync(`${bundleFolder}${name}`);
  const version = createHash("sha256").update(body).digest("hex").slice(0, 12);
  assets.set(name, { stored: new StoredBody(body), type: "text/javascript; charset=utf-8", version });
}

/** The URL of a built page script, or undefined when this tree was compiled without it. */
export function bundlePath(name: string): string | undefined {
  return assets.has(name) ? assetPath(name) : undefined;
}

/** Serves the dashboard's own CSS and JS (no CDN), each compressed once per coding. */
export function registerAssetRoutes(app: FastifyInstance): void {
  app.get<{ Params: { name: string } }>("/assets/:name", { logLevel: "warn" }, async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.callNotFound();
    reply.type(asset.type).header("cache-control", "public, max-age=31536000, immutable");
    setAssetSecurityHeaders(reply);
    return asset.stored.send(request, reply);
  });
}
