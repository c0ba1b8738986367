import { timingSafeEqual } from "node:crypto";
import type { Db } from "../../db/database.js";
import { inTransaction } from "../../db/transaction.js";
import { badInput } from "../../errors.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { parseInput } from "../../shared/validation.js";
import type { Actor } from "../access/actor.js";
import type { Permission } from "../access/permissions.js";
import type { AppsService } from "../apps/apps.service.js";
import { generateToken, hashToken, isWellFormedToken, oauthPrefixes, tokenLast4 } from "../apps/tokens.js";
import { clientInput } from "./oauth.inputs.js";
import { type ClientRow, oauthRepository } from "./oauth.repository.js";
import { OAuthError } from "./oauth-error.js";

/** An app's OAuth client as its developers see it (the secret itself is never part of it). */
export interface OAuthClient {
  /** The client_id: the app's id. */
  clientId: string;
  secretLast4: string;
  secretCreatedAt: string;
  redirectUris: string[];
}

/** The app behind authenticated client credentials. */
export interface AuthenticatedClient {
  appId: string;
  homeProjectId: string;
  name: string;
  permissions: Permission[];
}

/** What a token request presented to authenticate its client (RFC 6749 §2.3.1). */
export interface ClientCredentials {
  /** The `Authorization` header, if any (client_secret_basic). */
  authorization: string | undefined;
  /** The form's client_id and client_secret (client_secret_post). */
  clientId: unknown;
  clientSecret: unknown;
}

function presentClient(row: ClientRow): OAuthClient {
  return {
    clientId: row.app_id,
    secretLast4: row.secret_last4,
    secretCreatedAt: row.secret_created_at,
    redirectUris: row.redirect_uris.split("\n"),
  };
}

const badClient = () => new OAuthError("invalid_client", "Client authentication failed");

/** The credentials of a Basic header: `urlencode(id):urlencode(secret)`, base64 (RFC 6749 §2.3.1). */
function basicCredentials(header: string): { id: string; secret: string } | undefined {
  const match = /^Basic +([A-Za-z0-9+/=]{1,1000}) *$/i.exec(header);
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** The client id a token request names (Basic header or form), to count its requests by; unchecked. */
export function claimedClientId(authorization: string | undefined, formClientId: unknown): string {
  const basic = authorization ? basicCredentials(authorization) : undefined;
  const id = basic?.id ?? formClientId;
  return typeof id === "string" ? id.slice(0, 100) : "";
}

/** Client registration (redirect URIs, the secret shown once) and client authentication. */
export function clientOperations(db: Db, changes: ProjectChanges, apps: AppsService) {
  /** Writes the client row and its audit entry in the app's home project. */
  async function save(actor: Actor, row: ClientRow, homeProjectId: string, secretRotated: boolean) {
    await inTransaction(db, actor, async (trx) => {
      await oauthRepository.upsertClient(trx, row);
      await changes.event(trx, actor, {
        projectId: homeProjectId,
        type: secretRotated ? "app.client_secret_rotated" : "app.oauth_client.updated",
        object: { typename: "App", id: row.app_id },
        // The secret never enters the log; the redirect URIs are the app's public settings.
        changed: secretRotated ? [] : ["redirectUris"],
        values: secretRotated ? {} : { redirectUris: row.redirect_uris.split("\n") },
      });
    });
  }

  return {
    /** The app's OAuth client, or null before one is set up; for the managers of its home project. */
    async clientOf(actor: Actor, appId: string): Promise<OAuthClient | null> {
      const app = await apps.getApp(actor, appId);
      const row = await oauthRepository.findClient(db, app.id);
      return row ? presentClient(row) : null;
    },

    /**
     * Sets the app's redirect URIs. The first time, this creates the client and returns its secret,
     * shown once; later, the secret stays as it is and none is returned.
     */
    async saveClient(
      actor: Actor,
      input: { appId: string; redirectUris: string },
    ): Promise<{ client: OAuthClient; secret: string | undefined }> {
      const data = parseInput(clientInput, input);
      const app = await apps.getApp(actor, data.appId);
      const existing = await oauthRepository.findClient(db, app.id);
      const secret = existing ? undefined : generateToken(oauthPrefixes.secret);
      const row: ClientRow = {
        app_id: app.id,
        secret_hash: secret ? hashToken(secret) : (existing?.secret_hash ?? ""),
        secret_last4: secret ? tokenLast4(secret) : (existing?.secret_last4 ?? ""),
        secret_created_at: secret ? nowIso() : (existing?.secret_created_at ?? nowIso()),
        redirect_uris: data.redirectUris.join("\n"),
      };
      await save(actor, row, app.projectId, false);
      return { client: presentClient(row), secret };
    },

    /**
     * Issues a new client secret (returned once); the old one fails at the next token request.
     * Grants and their tokens stay: the secret proves the client, it grants nothing by itself.
     */
    async rotateClientSecret(actor: Actor, appId: string): Promise<{ client: OAuthClient; secret: string }> {
      const app = await apps.getApp(actor, appId);
      const existing = await oauthRepository.findClient(db, app.id);
      if (!existing) throw badInput([{ field: ["redirectUris"], message: "must be set before a secret" }]);
      const secret = generateToken(oauthPrefixes.secret);
      const row: ClientRow = {
        ...existing,
        secret_hash: hashToken(secret),
        secret_last4: tokenLast4(secret),
        secret_created_at: nowIso(),
      };
      await save(actor, row, app.projectId, true);
      return { client: presentClient(row), secret };
    },

    /** The registered client with this id and its app, or undefined (no app, or OAuth not set up). */
    async registeredClient(clientId: unknown) {
      if (typeof clientId !== "string" || clientId.length > 100) return undefined;
      const client = await oauthRepository.findClient(db, clientId);
      if (!client) return undefined;
      const info = await apps.connectInfo(clientId);
      return { client: presentClient(client), info };
    },

    /**
     * The app whose client credentials the request presents, by exactly one method; invalid_client
     * for anything else. The secret is checked by its hash, compared in constant time.
     */
    async authenticateClient(credentials: ClientCredentials): Promise<AuthenticatedClient> {
      const basic = credentials.authorization?.startsWith("Basic ")
        ? basicCredentials(credentials.authorization)
        : undefined;
      if (credentials.authorization !== undefined && !basic) throw badClient();
      if (basic && credentials.clientSecret !== undefined) {
        throw new OAuthError("invalid_request", "Use one client authentication method, not two");
      }
      const id = basic?.id ?? credentials.clientId;
      const secret = basic?.secret ?? credentials.clientSecret;
      if (basic && credentials.clientId !== undefined && credentials.clientId !== basic.id) throw badClient();
      if (typeof id !== "string" || typeof secret !== "string") throw badClient();
      if (!isWellFormedToken(secret, oauthPrefixes.secret) || id.length > 100) throw badClient();
      const client = await oauthRepository.findClient(db, id);
      if (!client) throw badClient();
      // Both are 64 hex characters (SHA-256): compared in constant time all the same.
      const presented = Buffer.from(hashToken(secret));
      const stored = Buffer.from(client.secret_hash);
      if (stored.length !== presented.length || !timingSafeEqual(presented, stored)) throw badClient();
      const app = await apps.clientApp(id);
      if (!app) throw badClient();
      return app;
    },
  };
}
