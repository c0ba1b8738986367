import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import type { BulkService } from "./bulk.service.js";

/**
 * `GET /api/bulk/<id>.jsonl?expires=…&token=…`: a finished operation's result, for whoever holds an
 * unexpired signed link (HMAC-SHA256 with a server secret over the id and the expiry), so a plain
 * HTTP client or a storage job can fetch it without the app's token. The signature rides as `token`,
 * which the request log redacts. Every refusal is the same 404.
 */
export function registerBulkDownload(app: FastifyInstance, bulk: BulkService): void {
  app.get<{ Params: { file: string }; Querystring: { expires?: string; token?: string } }>(
    "/api/bulk/:file",
    async (request, reply) => {
      const id = /^([A-Za-z0-9_-]{1,64})\.jsonl$/.exec(request.params.file)?.[1];
      const { expires, token } = request.query;
      const row = id && expires && token ? await bulk.download(id, expires, token) : undefined;
      reply.header("cache-control", "no-store");
      if (!row)
        return reply
          .code(404)
          .send({ error: { code: "NOT_FOUND", message: "File not found or link expired" } });
      const file = Readable.from(bulk.result(row.id), { objectMode: false });
      return reply
        .header("content-type", "application/jsonl; charset=utf-8")
        .header("content-disposition", `attachment; filename="bulk-${row.id}.jsonl"`)
        .send(file);
    },
  );
}
