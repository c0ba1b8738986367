import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { printedSchema, schema } from "../graphql/schema.js";
import { changelogPage } from "./changelog.js";
import { guidePage, guidesIndexPage, loadGuides } from "./guides.js";
import { docsContentSecurityPolicy, docsPage } from "./layout.js";
import { deprecations, referencePage } from "./reference.js";
import { repositoryRoot, schemaChangelog } from "./schema-history.js";

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".ttf": "font/ttf",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * The files of a folder that may be served, by name. Requests name a file; only names listed here at
 * start are answered, so no path can leave the folder.
 */
function assetFolder(directory: string): Map<string, string> {
  if (!existsSync(directory)) return new Map();
  return new Map(
    readdirSync(directory)
      .filter((name) => contentTypes[extname(name)])
      .map((name) => [name, join(directory, name)]),
  );
}

function html(reply: FastifyReply, body: string): FastifyReply {
  return reply
    .header("content-security-policy", docsContentSecurityPolicy)
    .header("x-content-type-options", "nosniff")
    .header("cache-control", "no-cache")
    .type("text/html; charset=utf-8")
    .send(body);
}

function serveAsset(reply: FastifyReply, files: Map<string, string>, name: string, maxAge: number) {
  const path = files.get(name);
  if (!path) return reply.code(404).type("text/plain; charset=utf-8").send("Not found");
  return reply
    .header("x-content-type-options", "nosniff")
    .header("cache-control", `public, max-age=${maxAge}`)
    .type(contentTypes[extname(name)] ?? "application/octet-stream")
    .send(readFileSync(path));
}

const explorerNotBuilt = `<h1>Explorer</h1><p>The explorer's bundle is missing. Build it with
<code>node scripts/build-explorer.mjs</code> (part of <code>npm run build</code>) and restart the service.</p>`;

/**
 * The developer documentation: the field reference at /graphql/reference/ (generated from the live
 * schema on first request), the guides from docs/guides/, the schema changelog, and the GraphiQL
 * explorer at /graphql/explorer/ served from the bundle in dist/explorer/.
 */
export function registerDocsRoutes(app: FastifyInstance): void {
  const guides = loadGuides(join(repositoryRoot, "docs", "guides"));
  const docsAssets = assetFolder(join(repositoryRoot, "src", "docs", "assets"));
  const explorerAssets = assetFolder(join(repositoryRoot, "dist", "explorer"));
  let reference: string | undefined;
  let changelog: Promise<string> | undefined;

  app.get("/graphql/reference", (_request, reply) => reply.redirect("/graphql/reference/", 301));
  app.get("/graphql/reference/", (_request, reply) => {
    reference ??= referencePage(schema());
    return html(reply, reference);
  });
  app.get("/graphql/reference/schema.graphql", (_request, reply) =>
    reply.header("cache-control", "no-cache").type("text/plain; charset=utf-8").send(printedSchema()),
  );
  app.get("/graphql/reference/changelog", async (_request, reply) => {
    changelog ??= schemaChangelog().then((entries) => changelogPage(entries, deprecations(schema())));
    return html(reply, await changelog);
  });
  app.get("/graphql/reference/guides/", (_request, reply) => html(reply, guidesIndexPage(guides)));
  app.get<{ Params: { slug: string } }>("/graphql/reference/guides/:slug", (request, reply) => {
    const guide = guides.find((g) => g.slug === request.params.slug);
    if (!guide)
      return html(
        reply.code(404),
        docsPage({ title: "Not found", current: "", body: "<h1>No such guide</h1>" }),
      );
    return html(reply, guidePage(guide, guides));
  });
  app.get<{ Params: { name: string } }>("/graphql/reference/assets/:name", (request, reply) =>
    serveAsset(reply, docsAssets, request.params.name, 300),
  );

  app.get("/graphql/explorer", (_request, reply) => reply.redirect("/graphql/explorer/", 301));
  app.get("/graphql/explorer/", (_request, reply) => {
    if (!explorerAssets.has("explorer.js")) {
      return html(
        reply,
        docsPage({ title: "Explorer", current: "/graphql/explorer/", body: explorerNotBuilt }),
      );
    }
    return html(
      reply,
      docsPage({
        title: "Explorer",
        current: "/graphql/explorer/",
        bodyClass: "explorer-page",
        styles: ["/graphql/explorer/assets/explorer.css"],
        scripts: ["/graphql/explorer/assets/explorer.js"],
        body: `<div id="explorer" class="explorer-root"><noscript>The explorer needs JavaScript.</noscript></div>`,
      }),
    );
  });
  // The bundle's file names do not change between builds of one version, so an hour is safe.
  app.get<{ Params: { name: string } }>("/graphql/explorer/assets/:name", (request, reply) =>
    serveAsset(reply, explorerAssets, request.params.name, 3600),
  );
}
