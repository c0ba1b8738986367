import { AppError, ErrorCode } from "../errors.js";
import { type Actor, publicActor } from "../modules/access/actor.js";
import { Remembered } from "../modules/access/remembered.js";
import type { AuthenticatedApp } from "../modules/apps/apps.service.js";
import { hashToken, oauthPrefixes } from "../modules/apps/tokens.js";
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

// Per service set (tests run several servers in one process).
const knownTokens = new WeakMap<Services, Remembered<AuthenticatedApp>>();

/**
 * The app of a token, remembered under the response cache's credentials epoch (the rule and its
 * lifetime: modules/access/remembered.ts): every change that can end or change a token (rotation,
 * deletion, new permissions, the project's deletion), by any writer, moves the project version of
 * the app's projects in the database, which moves that epoch here at once or as soon as the change
 * is heard from another process. Keyed by the token's hash, never the token itself; unknown tokens are
 * not remembered, so guessing costs a lookup each time. Answers without a promise when it can (no
 * header, a remembered token).
 */
function authenticatedApp(services: Services, token: string): AuthenticatedApp | Promise<AuthenticatedApp> {
  const remembered = rememberedApp(services, token);
  if (remembered.app) return remembered.app;
  const { key, epoch } = remembered;
  // An OAuth access token (modules/oauth) is told by its prefix; it is remembered the same way.
  const authenticated = token.startsWith(oauthPrefixes.access)
    ? services.oauth.authenticate(token)
    : services.apps.authenticate(token);
  return authenticated.then((app) => {
    if (key) known(services).keep(key, epoch, { ...app });
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
  const tokens = known(services);
  const epoch = tokens.now();
  const key = epoch === undefined ? undefined : hashToken(token);
  const recalled = key ? tokens.recall(key, epoch) : undefined;
  // An OAuth access token remembered while live is not remembered past its expiry.
  const found = recalled?.value.grant && recalled.value.grant.expiresAt <= Date.now() ? undefined : recalled;
  // A copy: each request binds its own origin and deadline to its actor object.
  return found ? { app: { ...found.value }, key, epoch } : { key, epoch };
}

function known(services: Services): Remembered<AuthenticatedApp> {
  let tokens = knownTokens.get(services);
  if (!tokens) {
    tokens = new Remembered(() => services.responseCache.credentialsEpoch(), {
      enabled: services.config.fastPaths["remembered-credentials"],
    });
    knownTokens.set(services, tokens);
  }
  return tokens;
}
