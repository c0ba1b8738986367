import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import type { FastifyReply, FastifyRequest } from "fastify";
import { StoredBody } from "../http/compression.js";
import { setAssetSecurityHeaders } from "../http/security-headers.js";

const contentTypes: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".ttf": "font/ttf",
  ".txt": "text/plain; charset=utf-8",
};

interface LoadedFile {
  stored: StoredBody;
  type: string;
  /** Content hash: the `?v=` of versioned URLs and the strong ETag. */
  version: string;
}

/**
 * The files of a folder that may be served, by name. Requests name a file; only names listed at
 * start are answered, so no path can leave the folder. Each file is read once, on first use, and
 * compressed once per content coding; a URL carrying the file's content hash (`url`) is cached by
 * browsers for a year (immutable), since another content gets another URL.
 */
export class AssetFolder {
  private readonly paths: Map<string, string>;
  private readonly loaded = new Map<string, LoadedFile>();

  constructor(directory: string) {
    this.paths = existsSync(directory)
      ? new Map(
          readdirSync(directory)
            .filter((name) => contentTypes[extname(name)])
            .map((name) => [name, join(directory, name)]),
        )
      : new Map();
  }

  has(name: string): boolean {
    return this.paths.has(name);
  }

  /** `base` + name, versioned by content when the file exists. */
  url(base: string, name: string): string {
    const file = this.load(name);
    return file ? `${base}${name}?v=${file.version}` : `${base}${name}`;
  }

  /** Answers a request for `name`: 404, 304, or the file in the best coding the client accepts. */
  async serve(
    request: FastifyRequest<{ Querystring: { v?: string } }>,
    reply: FastifyReply,
    name: string,
    maxAgeSeconds: number,
  ): Promise<FastifyReply> {
    const file = this.load(name);
    if (!file) return reply.code(404).type("text/plain; charset=utf-8").send("Not found");
    const immutable = request.query.v === file.version;
    const etag = `"${file.version}"`;
    setAssetSecurityHeaders(reply);
    reply
      .header(
        "cache-control",
        immutable ? "public, max-age=31536000, immutable" : `public, max-age=${maxAgeSeconds}`,
      )
      .header("etag", etag)
      .header("vary", "accept-encoding")
      .type(file.type);
    if (request.headers["if-none-match"] === etag) return reply.code(304).send();
    return file.stored.send(request, reply);
  }

  private load(name: string): LoadedFile | undefined {
    const found = this.loaded.get(name);
    if (found) return found;
    const path = this.paths.get(name);
    if (!path) return undefined;
    const body = readFileSync(path);
    const file: LoadedFile = {
      stored: new StoredBody(body),
      type: contentTypes[extname(name)] ?? "application/octet-stream",
      version: createHash("sha256").update(body).digest("base64url").slice(0, 16),
    };
    this.loaded.set(name, file);
    return file;
  }
}
