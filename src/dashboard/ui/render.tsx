import type { FastifyReply } from "fastify";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** Renders a page component to a full HTML document; preact escapes every text and attribute. */
export function sendPage(reply: FastifyReply, page: VNode, status = 200): FastifyReply {
  return reply
    .code(status)
    .type("text/html; charset=utf-8")
    .send(`<!doctype html>${renderToString(page)}`);
}
