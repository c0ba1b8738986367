import { AppError, ErrorCode } from "../errors.js";
import { type Actor, publicActor } from "../modules/access/actor.js";
import type { Services } from "../services.js";

const bearer = /^Bearer +([^\s]+) *$/i;

/**
 * Who is calling, from the `Authorization` header alone: no header is the public view; anything
 * else must be `Bearer <token>` of a live app. Cookies and query-string tokens are never read, so a
 * browser session cannot be ridden into the API and tokens do not end up in URLs.
 */
export async function authenticate(services: Services, header: string | undefined): Promise<Actor> {
  if (header === undefined) return publicActor;
  const match = bearer.exec(header);
  if (!match?.[1]) {
    throw new AppError(ErrorCode.UNAUTHENTICATED, "The Authorization header must be `Bearer <token>`");
  }
  return services.apps.authenticate(match[1]);
}
