import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "../../logger.js";
import type { Services } from "../../services.js";
import { addressKey } from "../../shared/client-address.js";
import { allPermissions } from "../access/permissions.js";
import { throttleRules } from "../accounts/throttle.js";
import { claimedClientId } from "./oauth.clients.js";
import { OAuthError, type OAuthErrorCode } from "./oauth-error.js";

/** The token and revocation endpoints' bodies are a few hundred bytes; anything near this is garbage. */
const maxFormBytes = 8 * 1024;

/** The endpoint paths, named once for the routes and the metadata. */
export const oauthPaths = {
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  revoke: "/oauth/revoke",
  metadata: "/.well-known/oauth-authorization-server",
} as const;

const statusOf: Partial<Record<OAuthErrorCode, number>> = { invalid_client: 401 };

/** RFC 6749 §5.2: a JSON body with `error` and `error_description`, never cached. */
function sendError(reply: FastifyReply, error: OAuthError, basicUsed: boolean) {
  const status = statusOf[error.code] ?? 400;
  // §5.2: a failed Basic authentication answers 401 with the scheme the client used.
  if (status === 401 && basicUsed) reply.header("www-authenticate", 'Basic realm="eventgraph"');
  return noStore(reply).code(status).send({ error: error.code, error_description: error.description });
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header("cache-control", "no-store").header("pragma", "no-cache");
}

function formOf(request: FastifyRequest): Record<string, unknown> {
  if (!request.headers["content-type"]?.toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded");
  }
  const body = request.body;
  if (typeof body !== "object" || body === null) return {};
  // A parameter sent twice is refused (RFC 6749 §3.2): the parser hands those over as arrays.
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value)) throw new OAuthError("invalid_request", `${name} is repeated`);
  }
  return body as Record<string, unknown>;
}

/**
 * The authorization server's HTTP endpoints (the authorization endpoint is the consent page, in the
 * dashboard: dashboard/apps/oauth-consent.tsx): metadata (RFC 8414), token (RFC 6749 §3.2) and
 * revocation (RFC 7009). Token requests are throttled per client address and per client id.
 */
export async function registerOAuthRoutes(app: FastifyInstance, services: Services, logger: Logger) {
  const { oauth, throttle } = services;
  app.get(oauthPaths.metadata, async (_request, reply) => {
    const issuer = oauth.issuer;
    return reply.header("cache-control", "public, max-age=3600").send({
      issuer,
      authorization_endpoint: `${issuer}${oauthPaths.authorize}`,
      token_endpoint: `${issuer}${oauthPaths.token}`,
      revocation_endpoint: `${issuer}${oauthPaths.revoke}`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
      scopes_supported: allPermissions,
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/graphql/reference/guides/oauth`,
    });
  });

  await app.register(async (endpoints) => {
    await endpoints.register(formbody, { bodyLimit: maxFormBytes });

    /** Runs an endpoint: throttle, client authentication, then `work`; errors as RFC 6749 says. */
    async function clientRequest(
      request: FastifyRequest,
      reply: FastifyReply,
      work: (
        form: Record<string, unknown>,
        client: Awaited<ReturnType<typeof oauth.authenticateClient>>,
      ) => Promise<unknown>,
    ) {
      const authorization = request.headers.authorization;
      const basicUsed = authorization?.startsWith("Basic ") ?? false;
      try {
        const form = formOf(request);
        const claimed = claimedClientId(authorization, form.client_id);
        const allowed = await throttle.take([
          { rule: throttleRules.oauthTokenIp, key: addressKey(request.ip) },
          { rule: throttleRules.oauthTokenClient, key: claimed },
        ]);
        if (!allowed) {
          return noStore(reply)
            .code(429)
            .header("retry-after", "60")
            .send({ error: "slow_down", error_description: "Too many token requests; retry later" });
        }
        const client = await oauth.authenticateClient({
          authorization,
          clientId: form.client_id,
          clientSecret: form.client_secret,
        });
        const answer = await work(form, client);
        return noStore(reply)
          .code(200)
          .send(answer ?? {});
      } catch (error) {
        if (error instanceof OAuthError) return sendError(reply, error, basicUsed);
        logger.error({ err: error }, "OAuth endpoint failed");
        return noStore(reply).code(500).send({ error: "server_error", error_description: "Try again later" });
      }
    }

    endpoints.post(oauthPaths.token, async (request, reply) =>
      clientRequest(request, reply, (form, client) => {
        if (form.grant_type === "authorization_code") return oauth.exchangeCode(client, form, request.ip);
        if (form.grant_type === "refresh_token") return oauth.refresh(client, form, request.ip);
        throw new OAuthError(
          typeof form.grant_type === "string" ? "unsupported_grant_type" : "invalid_request",
          "grant_type must be authorization_code or refresh_token",
        );
      }),
    );

    // RFC 7009 §2.2: 200 with an empty body whether or not the token was known.
    endpoints.post(oauthPaths.revoke, async (request, reply) =>
      clientRequest(request, reply, async (form, client) => {
        await oauth.revokeToken(client, form, request.ip);
        return {};
      }),
    );
  });
}
