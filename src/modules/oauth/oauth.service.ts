import type { Config } from "../../config.js";
import type { Db } from "../../db/database.js";
import { inTransaction } from "../../db/transaction.js";
import { AppError, ErrorCode } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { areaBit } from "../../shared/data-areas.js";
import { newId } from "../../shared/ids.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import type { AccessService } from "../access/access.service.js";
import { type Actor, bindOrigin } from "../access/actor.js";
import { type Permission, parsePermissions, serializePermissions } from "../access/permissions.js";
import type { AppsService, AuthenticatedApp } from "../apps/apps.service.js";
import { generateToken, hashToken, isWellFormedToken, oauthPrefixes } from "../apps/tokens.js";
import { type AuthorizationRequest, redirectWith } from "./authorization-request.js";
import { GrantUsage } from "./grant-usage.js";
import { grantLists } from "./grants.js";
import { type AuthenticatedClient, clientOperations } from "./oauth.clients.js";
import { oauthRepository, type TokenRow } from "./oauth.repository.js";
import { OAuthError } from "./oauth-error.js";
import { verifierMatches } from "./pkce.js";

/** How long an authorization code can be exchanged: RFC 9700 §4.2.1 asks for a short life. */
const codeLifetimeMs = 60_000;
/** An access token's life: the issue's hour. */
const accessTokenLifetimeSeconds = 3600;
/** A refresh token's life; each use rotates it, so an app in use never reaches the end. */
const refreshTokenLifetimeMs = 30 * 24 * 3600 * 1000;

/** The token endpoint's successful answer (RFC 6749 §5.1), with the one project it reaches. */
export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
  project_id: string;
}

const invalidGrant = (why: string) => new OAuthError("invalid_grant", why);

function unauthenticated(): AppError {
  // As for app tokens: one message for malformed, unknown, expired and revoked tokens.
  return new AppError(ErrorCode.UNAUTHENTICATED, "The access token is invalid or has been revoked");
}

/** The app as the actor of its own token requests (the audit log's "who"). */
function clientActor(client: AuthenticatedClient, ip: string): Actor {
  return bindOrigin(
    {
      kind: "app",
      appId: client.appId,
      homeProjectId: client.homeProjectId,
      permissions: client.permissions,
      appName: client.name,
    },
    { via: "api", ip },
  );
}

/**
 * The OAuth 2.0 authorization server of the app platform (RFC 6749 with PKCE, RFC 7636; RFC 9700's
 * practices): codes, grants, rotated refresh tokens, revocation (RFC 7009), and the authentication
 * of access tokens for the API. A grant rides on the link its consent created, so everything that
 * ends or narrows a link ends or narrows the grant's tokens.
 */
export function createOAuthService(deps: {
  db: Db;
  config: Config;
  logger: Logger;
  access: AccessService;
  changes: ProjectChanges;
  apps: AppsService;
}) {
  const { db, config, changes, apps } = deps;
  const usage = new GrantUsage(db, deps.logger);
  // Read on every use, as the apps' connect links are: the base URL is configuration.
  const issuer = () => config.baseUrl;

  /** Ends a grant and every token of it, on every process before it returns; false if already ended. */
  async function revokeGrant(actor: Actor, grantId: string, reason: string): Promise<boolean> {
    const grant = await oauthRepository.findGrant(db, grantId);
    if (!grant) return false;
    return changes.write(
      db,
      actor,
      grant.project_id,
      async (trx) => {
        const revoked = await oauthRepository.revokeGrant(trx, grantId, nowIso(), reason);
        if (!revoked) {
          changes.unchanged(trx);
          return false;
        }
        await changes.event(trx, actor, {
          projectId: grant.project_id,
          type: "oauth.grant.revoked",
          object: { typename: "OAuthGrant", id: grantId },
          values: { appId: grant.app_id, reason },
        });
        return true;
      },
      areaBit.project,
    );
  }

  /** A new access and refresh token pair of a grant, as rows to insert and the answer to send. */
  function newTokens(grantId: string, projectId: string, scopes: string, grantScopes: string) {
    const access = generateToken(oauthPrefixes.access);
    const refresh = generateToken(oauthPrefixes.refresh);
    const now = Date.now();
    const created = new Date(now).toISOString();
    const rows: TokenRow[] = [
      {
        token_hash: hashToken(access),
        grant_id: grantId,
        kind: "access",
        scopes,
        created_at: created,
        expires_at: new Date(now + accessTokenLifetimeSeconds * 1000).toISOString(),
        used_at: null,
      },
      {
        token_hash: hashToken(refresh),
        grant_id: grantId,
        kind: "refresh",
        scopes: grantScopes,
        created_at: created,
        expires_at: new Date(now + refreshTokenLifetimeMs).toISOString(),
        used_at: null,
      },
    ];
    const answer: TokenResponse = {
      access_token: access,
      token_type: "Bearer",
      expires_in: accessTokenLifetimeSeconds,
      refresh_token: refresh,
      scope: scopes,
      project_id: projectId,
    };
    return { rows, answer };
  }

  return {
    ...clientOperations(db, changes, apps),
    ...grantLists(db, deps.access, apps, usage),

    /** The issuer identifier (RFC 8414): the service's base URL. */
    get issuer(): string {
      return issuer();
    },

    /**
     * Issues a code for a consented request on the link the consent created or renewed, and answers
     * where to send the organizer's browser (the redirect URI with code, state and iss).
     */
    async issueCode(
      actor: Actor,
      request: AuthorizationRequest,
      link: { id: string; projectId: string },
    ): Promise<string> {
      const code = generateToken(oauthPrefixes.code);
      const now = Date.now();
      // Expired codes go as new ones come, so the table holds about a minute's worth at most.
      await oauthRepository.deleteExpiredCodes(db, new Date(now - codeLifetimeMs).toISOString());
      await oauthRepository.insertCode(db, {
        code_hash: hashToken(code),
        app_id: request.appId,
        project_id: link.projectId,
        link_id: link.id,
        authorized_by: actor.kind === "user" ? actor.userId : null,
        redirect_uri: request.redirectUri,
        code_challenge: request.codeChallenge,
        scopes: serializePermissions(request.scopes),
        expires_at: new Date(now + codeLifetimeMs).toISOString(),
        used_at: null,
        grant_id: null,
      });
      return redirectWith(request.redirectUri, issuer(), { code, state: request.state });
    },

    /** The error answer at the redirect URI when the organizer cancels (access_denied). */
    deniedRedirect(request: AuthorizationRequest): string {
      return redirectWith(request.redirectUri, issuer(), {
        error: "access_denied",
        error_description: "The organizer did not authorize the app",
        state: request.state,
      });
    },

    /**
     * grant_type=authorization_code: the code, bound to this client, its redirect URI and its PKCE
     * challenge, is exchanged once. A second exchange of the same code revokes what the first one got
     * (RFC 6749 §4.1.2): one of the two callers stole it.
     */
    async exchangeCode(
      client: AuthenticatedClient,
      form: Record<string, unknown>,
      ip: string,
    ): Promise<TokenResponse> {
      const { code, redirect_uri: redirectUri, code_verifier: verifier } = form;
      if (typeof code !== "string" || !isWellFormedToken(code, oauthPrefixes.code)) {
        throw invalidGrant("The code is invalid");
      }
      const codeHash = hashToken(code);
      const row = await oauthRepository.findCode(db, codeHash);
      if (!row || row.app_id !== client.appId) throw invalidGrant("The code is invalid");
      const actor = clientActor(client, ip);
      if (row.used_at !== null) {
        if (row.grant_id) await revokeGrant(actor, row.grant_id, "code_reused");
        throw invalidGrant("The code was already used; the access it gave is revoked");
      }
      if (row.expires_at < nowIso()) throw invalidGrant("The code has expired");
      if (redirectUri !== row.redirect_uri)
        throw invalidGrant("redirect_uri differs from the authorization request's");
      if (typeof verifier !== "string" || !verifierMatches(verifier, row.code_challenge)) {
        throw invalidGrant("The code_verifier does not match the code_challenge");
      }
      if (!(await oauthRepository.linkActive(db, row.link_id)))
        throw invalidGrant("The project's link was revoked");
      const grantId = newId();
      const { rows, answer } = newTokens(grantId, row.project_id, row.scopes, row.scopes);
      const outcome = await inTransaction(db, actor, async (trx) => {
        if (!(await oauthRepository.consumeCode(trx, codeHash, nowIso(), grantId))) return "raced" as const;
        await oauthRepository.insertGrant(trx, {
          id: grantId,
          app_id: row.app_id,
          project_id: row.project_id,
          link_id: row.link_id,
          scopes: row.scopes,
          authorized_by: row.authorized_by,
          created_at: nowIso(),
          last_used_at: null,
          revoked_at: null,
          revoked_reason: null,
        });
        await oauthRepository.insertTokens(trx, rows);
        await changes.event(trx, actor, {
          projectId: row.project_id,
          type: "oauth.grant.created",
          object: { typename: "OAuthGrant", id: grantId },
          changed: ["scopes"],
          values: { appId: row.app_id, scopes: row.scopes },
        });
        return "issued" as const;
      });
      if (outcome === "raced") {
        // Another exchange of the same code committed first: the same theft, the same answer.
        const used = await oauthRepository.findCode(db, codeHash);
        if (used?.grant_id) await revokeGrant(actor, used.grant_id, "code_reused");
        throw invalidGrant("The code was already used; the access it gave is revoked");
      }
      return answer;
    },

    /**
     * grant_type=refresh_token: a new pair for a refresh token used once. A rotated refresh token
     * presented again revokes the whole grant (RFC 9700 §4.14.2): either the app or a thief holds a
     * copy, and the server cannot tell which. `scope` may narrow the new access token only.
     */
    async refresh(
      client: AuthenticatedClient,
      form: Record<string, unknown>,
      ip: string,
    ): Promise<TokenResponse> {
      const presented = form.refresh_token;
      if (typeof presented !== "string" || !isWellFormedToken(presented, oauthPrefixes.refresh)) {
        throw invalidGrant("The refresh token is invalid");
      }
      const tokenHash = hashToken(presented);
      const token = await oauthRepository.findToken(db, tokenHash);
      const grant = token && (await oauthRepository.findGrant(db, token.grant_id));
      if (!token || !grant || grant.app_id !== client.appId)
        throw invalidGrant("The refresh token is invalid");
      if (grant.revoked_at !== null) throw invalidGrant("The grant was revoked");
      const actor = clientActor(client, ip);
      if (token.used_at !== null) {
        await revokeGrant(actor, grant.id, "refresh_token_reused");
        throw invalidGrant("The refresh token was already used; the grant is revoked");
      }
      if (token.expires_at < nowIso()) throw invalidGrant("The refresh token has expired");
      if (!(await oauthRepository.linkActive(db, grant.link_id)))
        throw invalidGrant("The project's link was revoked");
      let scopes = grant.scopes;
      if (typeof form.scope === "string" && form.scope.trim() !== "") {
        const held = parsePermissions(grant.scopes);
        const asked = form.scope.trim().split(/ +/);
        if (asked.length > 50 || !asked.every((p) => held.includes(p as Permission))) {
          throw new OAuthError("invalid_scope", "scope may only narrow what the grant holds");
        }
        scopes = serializePermissions(asked as Permission[]);
      }
      const { rows, answer } = newTokens(grant.id, grant.project_id, scopes, grant.scopes);
      const rotated = await inTransaction(db, actor, async (trx) => {
        const now = nowIso();
        if (!(await oauthRepository.useRefreshToken(trx, tokenHash, now))) return false;
        await oauthRepository.insertTokens(trx, rows);
        await oauthRepository.pruneTokens(trx, grant.id, now);
        return true;
      });
      if (!rotated) {
        // Two uses at once: the same reuse, raced.
        await revokeGrant(actor, grant.id, "refresh_token_reused");
        throw invalidGrant("The refresh token was already used; the grant is revoked");
      }
      return answer;
    },

    /**
     * RFC 7009: revoking either token of a grant ends the grant (all its tokens), as §2.1 allows. An
     * unknown token is answered as a success (§2.2): there is nothing left to revoke.
     */
    async revokeToken(client: AuthenticatedClient, form: Record<string, unknown>, ip: string): Promise<void> {
      const presented = form.token;
      if (typeof presented !== "string") throw new OAuthError("invalid_request", "token is required");
      const token =
        presented.length <= 200 ? await oauthRepository.findToken(db, hashToken(presented)) : undefined;
      const grant = token && (await oauthRepository.findGrant(db, token.grant_id));
      if (!grant) return;
      if (grant.app_id !== client.appId) {
        throw new OAuthError("unauthorized_client", "The token was not issued to this client");
      }
      await revokeGrant(clientActor(client, ip), grant.id, "revoked_by_client");
    },

    /**
     * The app and grant behind an OAuth access token, or UNAUTHENTICATED: malformed (no database
     * hit), unknown, expired, of a revoked grant or of a revoked link. The API remembers the answer as
     * it does an app token's (graphql/authentication.ts), and checks `grant.expiresAt` on each use.
     */
    async authenticate(token: string): Promise<AuthenticatedApp> {
      if (!isWellFormedToken(token, oauthPrefixes.access)) throw unauthenticated();
      const owner = await oauthRepository.accessTokenOwner(db, hashToken(token));
      const expiresAt = owner ? Date.parse(owner.expires_at) : 0;
      if (!owner || expiresAt <= Date.now()) throw unauthenticated();
      const scopes = new Set(parsePermissions(owner.scopes));
      return {
        kind: "app",
        appId: owner.app_id,
        homeProjectId: owner.home_project_id,
        // What the app still asks for, narrowed to the token's scopes; the link narrows it further.
        permissions: parsePermissions(owner.app_permissions).filter((p) => scopes.has(p)),
        appName: owner.app_name,
        grant: { id: owner.grant_id, projectId: owner.project_id, expiresAt },
        apiVersion: owner.app_api_version,
      };
    },

    /** Counts a use of a grant (its last-use time); written in the background. */
    recordUse(grantId: string): void {
      usage.record(grantId);
    },

    /** Writes the counted uses now; called at shutdown. */
    flushUse(): Promise<void> {
      return usage.flush();
    },
  };
}
