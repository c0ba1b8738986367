import type { Generated } from "kysely";

/*
 * Apps: apps and their links, OAuth, usage, webhooks and bulk operations. The database as a whole:
 * ../schema.ts.
 */

export interface AppsTable {
  id: string;
  /** The home project the app was created in. */
  project_id: string;
  name: string;
  description: string | null;
  /** Space-separated permission names, e.g. "agenda:read tickets:read". */
  permissions: string;
  /** SHA-256 (hex) of the current token; the token itself is never stored. */
  token_hash: string;
  token_last4: string;
  token_created_at: string;
  last_used_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** Where the organizer's browser goes after Authorize or Cancel on the consent page. */
  redirect_url: string | null;
  /** The app's website, linked on the consent page. */
  website_url: string | null;
  /** The app's privacy policy, linked on the consent page. */
  privacy_url: string | null;
  /** The API version its requests are answered in when they name none (graphql/versions/). */
  api_version: Generated<string>;
}

export interface AppLinksTable {
  id: string;
  app_id: string;
  project_id: string;
  authorized_by: string | null;
  authorized_at: string;
  /** The permissions granted at consent, space-separated. */
  permissions: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

/** An app's OAuth client credentials: the secret's hash and the registered redirect URIs. */
export interface OAuthClientsTable {
  app_id: string;
  secret_hash: string;
  secret_last4: string;
  secret_created_at: string;
  /** Newline-separated absolute URLs, matched exactly. */
  redirect_uris: string;
}

/** One consent through the OAuth flow: an app's access to one project, with its scopes. */
export interface OAuthGrantsTable {
  id: string;
  app_id: string;
  project_id: string;
  /** The link the consent created or renewed; a revoked link ends the grant. */
  link_id: string;
  /** Space-separated permission names. */
  scopes: string;
  authorized_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
}

/** An authorization code (its hash), single use, bound to client, redirect URI and PKCE challenge. */
export interface OAuthCodesTable {
  code_hash: string;
  app_id: string;
  project_id: string;
  link_id: string;
  authorized_by: string | null;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  expires_at: string;
  used_at: string | null;
  grant_id: string | null;
}

/** An access or refresh token of a grant (its hash). */
export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: "access" | "refresh";
  scopes: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Requests per app and UTC day. */
export interface AppUsageTable {
  app_id: string;
  day: string;
  requests: number;
}

/** An app's one webhook endpoint (issue #10). */
export interface WebhookEndpointsTable {
  app_id: string;
  url: string;
  /** Subscribed event types, space-separated. */
  events: string;
  /** JSON object: event type -> GraphQL fragment text selecting `data.object`. */
  fragments: string;
  /** The signing secret (`whsec_...`); needed in clear to sign, like any HMAC key. */
  secret: string;
  /** The secret before the last rotation, still signing beside the new one until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** When the endpoint's current run of failed attempts began (null after a success). */
  failing_since: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** PENDING until delivered (2xx), FAILED after the last retry, CANCELLED when the app lost access. */
export type DeliveryStatus = "PENDING" | "DELIVERED" | "FAILED" | "CANCELLED";

/** One event for one app: the outbox row, then its delivery state. */
export interface WebhookDeliveriesTable {
  /** Commit order (per project); bigint on PostgreSQL, read back as a string there. */
  seq: Generated<number | string>;
  id: string;
  app_id: string;
  project_id: string;
  event_type: string;
  object_typename: string;
  object_id: string;
  /** JSON array of the changed field names, for updates. */
  changed: string | null;
  /** The exact body sent, fixed at the first attempt so every retry is byte-identical. */
  payload: string | null;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  /** Who holds the delivery now (a process's claim) and until when; the result counts only under it. */
  lease_token: string | null;
  locked_until: string | null;
  response_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** One HTTP request of a delivery, kept with its answer for the delivery log. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  url: string;
  /** JSON object of the request headers sent (signature included: it is useless without the secret). */
  request_headers: string;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  /** The first 4 KB of the response body. */
  response_body: string | null;
  error: string | null;
}

/** An app's bulk query over a project (modules/bulk): its state, lease and result's lifetime. */
export interface BulkOperationsTable {
  id: string;
  app_id: string;
  project_id: string;
  /** The GraphQL document as the app sent it (validated when started). */
  query: string;
  status: "CREATED" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELED" | "EXPIRED";
  object_count: number;
  /** Why a FAILED job failed, for the app (never a stack). */
  error: string | null;
  /** The process holding the job, and until when its lease holds (renewed each page). */
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  finished_at: string | null;
  /** When the COMPLETED result is pruned (7 days after finishing). */
  expires_at: string | null;
}

/** A piece of a bulk operation's result, in order: JSON Lines, each ending in a newline. */
export interface BulkOperationChunksTable {
  operation_id: string;
  project_id: string;
  seq: number;
  lines: string;
}
