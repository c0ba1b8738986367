import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

/** A raw exchange: the bytes as sent on the wire (fetch would decode them). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Sends one request to `baseUrl + path` with node:http and reads the answer as bytes. */
export function raw(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, {
      method: options.method ?? "GET",
      headers: options.headers,
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** POSTs a JSON body to the API (or `path`). */
export function postJson(
  baseUrl: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  path = "/api/graphql",
): Promise<RawAnswer> {
  return raw(baseUrl, path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

/** The answer's body as text, decompressed as its Content-Encoding says. */
export function decoded(answer: RawAnswer): string {
  const coding = answer.headers["content-encoding"];
  if (coding === "gzip") return gunzipSync(answer.body).toString("utf8");
  if (coding === "br") return brotliDecompressSync(answer.body).toString("utf8");
  assert.equal(coding, undefined);
  return answer.body.toString("utf8");
}
