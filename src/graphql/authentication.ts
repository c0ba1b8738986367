import { LRUCache } from "lru-cache";
import { AppError, ErrorCode } from "../errors.js";
import { type Actor, publicActor } from "../modules/access/actor.js";
import type { AuthenticatedApp } from "../modules/apps/apps.service.js";
import { hashToken } from "../modules/apps/tokens.js";
import type { Services } from "../services.js";

const bearer = /^Bearer +([^\s]+) *$/i;

/**
 * Who is calling, from the `Authorization` header alone: no header is the public view; anything
 * else must be `Bearer <token>` of a live app. Cookies and query-string tokens are never read, so a
 * browser session cannot be ridden into the API and tokens do not end up in URLs.
 */
export function authenticate(services: Services, header: string | undefined): Actor | Promise<Actor> {
  if (header === undefined) return publicActor;
  const match = bearer.exec(header);
  if (!match?.[1]) {
    throw new AppError(ErrorCode.UNAUTHENTICATED, "The Authorization header must be `Bearer <token>`");
  }
  return authenticatedApp(services, match[1]);
}

interface KnownToken {
  app: AuthenticatedApp;
  epoch: number;
}

// Per service set (tests run several servers in one process).
const knownTokens = new WeakMap<Services, LRUCache<string, KnownToken>>();

/**
 * The app of a token, remembered while the response cache's credentials epoch stands still: every
 * write that can end or change a token (rotation, deletion, new permissions, the project's
 * deletion) changes the project area of a project, which moves that epoch at once in this process
 * and as soon as it is known from another (SQLite's data_version, PostgreSQL's change feed).
 * Without a push channel the epoch is undefined and every request reads the token's row, as a
 * token lookup per request was a sixth of an authenticated cache hit. Keyed by the token's hash,
 * never the token itself; unknown tokens are not remembered, so guessing costs a lookup each time.
 * Answers without a promise when it can (no header, a remembered token).
 */
function authenticatedApp(services: Services, token: string): AuthenticatedApp | Promise<AuthenticatedApp> {
  const remembered = rememberedApp(services, token);
  if (remembered.app) return remembered.app;
  const { key, epoch } = remembered;
  return services.apps.authenticate(token).then((app) => {
    if (key && epoch !== undefined) known(services).set(key, { app: { ...app }, epoch });
    return app;
  });
}

/**
 * The caller when it is known without reading anything (no header, a remembered token), else
 * undefined: the hit lane serves only such callers, and hands the others on untouched.
 */
export function rememberedCaller(services: Services, header: string | undefined): Actor | undefined {
  if (header === undefined) return publicActor;
  const token = bearer.exec(header)?.[1];
  return token ? rememberedApp(services, token).app : undefined;
}

function rememberedApp(
  services: Services,
  token: string,
): { app?: AuthenticatedApp; key: string | undefined; epoch: number | undefined } {
  const epoch = services.responseCache.credentialsEpoch();
  const key = epoch === undefined ? undefined : hashToken(token);
  const found = key ? known(services).get(key) : undefined;
  // A copy: each request binds its own origin and deadline to its actor object.
  // A remembered token answers without a promise: this is on every authenticated cache hit.
  return found && found.epoch === epoch ? { app: { ...found.app }, key, epoch } : { key, epoch };
}

function known(services: Services): LRUCache<string, KnownToken> {
  return knownTokens.get(services) ?? rememberTokensOf(services);
}

function rememberTokensOf(services: Services): LRUCache<string, KnownToken> {
  const known = new LRUCache<string, KnownToken>({ max: 10_000, ttl: 10 * 60_000 });
  knownTokens.set(services, known);
  return known;
}
