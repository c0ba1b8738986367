/**
 * The error codes of RFC 6749 §5.2 (token endpoint) and §4.1.2.1 (authorization endpoint) that this
 * server answers with. Thrown by the OAuth service; the routes turn them into the RFC's JSON body or
 * the redirect's query (oauth.routes.ts), and never into GraphQL errors.
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "unsupported_response_type"
  | "invalid_scope"
  | "access_denied"
  | "unsupported_token_type";

/** A refusal in the words of the OAuth specifications. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}
