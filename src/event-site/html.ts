import type { FastifyReply } from "fastify";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** A page as the document it is sent as. */
export const html = (page: VNode) => `<!doctype html>${renderToString(page)}`;

/** Sends an HTML page with `status`. */
export function sendHtml(reply: FastifyReply, body: string | Buffer, status = 200): FastifyReply {
  return reply.code(status).type("text/html; charset=utf-8").send(body);
}
