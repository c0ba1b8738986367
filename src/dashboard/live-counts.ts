import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError, ErrorCode } from "../errors.js";
import { type Actor, bindOrigin } from "../modules/access/actor.js";
import { attendeeEventTypes } from "../shared/live/live-events.js";
import { sessionClient, sessionCookie } from "./context.js";
import type { ProjectPageData } from "./pages/project-page.js";

/** Bytes a page's counter stream may hold unsent before it is cut: an event is ~200 bytes. */
const maxUnsentBytes = 64 * 1024;
/** A comment line this often keeps proxies and phones from closing an idle stream. */
const keepAliveMs = 15_000;

/**
 * Streams a project's door counts to a dashboard page as Server-Sent Events (`event: counts`, the
 * JSON of `read`), for the page's session: the door page and the Overview follow them with a few
 * lines of script (an EventSource), and show what the server rendered without it. The stream rides
 * on the subscriptions' hub (shared/live/live-hub.ts): the same events after their commit, a burst
 * read as one update, the same limits of open streams (per user and per IP), and it ends when the
 * session ends or the member loses the check-in permission. A browser whose stream ends reconnects
 * after 5 s (`retry`); one refused (401, 403, 404) does not retry.
 */
export async function streamDoorCounts<Counts>(
  request: FastifyRequest,
  reply: FastifyReply,
  data: ProjectPageData,
  read: (actor: Actor) => Promise<Counts>,
): Promise<void> {
  const { live, sessions, checkins } = request.server.services;
  const projectId = data.project.id;
  // The same permission the counts' JSON and the API's doorCounts need: refused as a page would be.
  await checkins.doorCounts(data.actor, projectId);
  const cookie = request.cookies[sessionCookie] ?? "";
  const client = sessionClient(request);
  const reauthenticate = async (): Promise<Actor> => {
    const session = await sessions.resume(cookie, client);
    if (!session) throw new AppError(ErrorCode.UNAUTHENTICATED, "The session ended; sign in again");
    return bindOrigin({ kind: "user", userId: session.user.id }, { via: "dashboard", ip: request.ip });
  };
  const res = reply.raw;
  const userId = data.actor.kind === "user" ? data.actor.userId : "";
  live.open(request.id, { appId: `user:${userId}`, ip: request.ip, reauthenticate }, (reason) => {
    if (!res.writableEnded) res.end(`event: ended\ndata: ${JSON.stringify({ code: reason.code })}\n\n`);
  });
  reply.hijack();
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
  });
  res.write("retry: 5000\n\n");
  const signals = live.listen(request.id, {
    projectId,
    types: attendeeEventTypes,
    coalesce: true,
    stillAllowed: async (caller) => {
      await checkins.doorCounts(caller as Actor, projectId);
    },
  });
  const stop = () => void signals.return?.();
  res.once("close", stop);
  const beat = setInterval(() => res.write(":\n\n"), keepAliveMs);
  try {
    for await (const _signal of signals) {
      const counts = await read(data.actor);
      if (res.writableEnded) break;
      if (res.writableLength > maxUnsentBytes) break;
      res.write(`event: counts\ndata: ${JSON.stringify(counts)}\n\n`);
    }
  } catch (error) {
    request.log.warn({ err: error }, "A live counter stream failed");
  } finally {
    clearInterval(beat);
    res.off("close", stop);
    live.close(request.id);
    if (!res.writableEnded) res.end();
  }
}
