import * as oidc from "openid-client";
import type { OidcConfig } from "../../../config.js";

/** What the browser keeps between leaving for the provider and coming back (a signed cookie). */
export interface PendingSignOn {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The dashboard path to return to after log-in. */
  next: string;
}

/** The identity the provider vouches for, as the callback read it from the ID token (or UserInfo). */
export interface ProviderIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
}

/** Raised when the provider cannot be reached or its answer does not check out. */
export class SignOnFailed extends Error {
  constructor(
    readonly reason: "unreachable" | "rejected",
    cause: unknown,
  ) {
    super(`OpenID Connect ${reason}: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = "SignOnFailed";
  }
}

// The provider's metadata changes rarely (keys rotate through its JWKS, which openid-client refetches
// on an unknown key id); an hour bounds how long a moved endpoint stays wrong.
const metadataMaxAgeMs = 60 * 60 * 1000;
const requestTimeoutSeconds = 10;

/**
 * The authorization code flow with PKCE, state and nonce against one OpenID Connect provider.
 * Discovery happens on the first log-in, not at start: a provider that is down must not stop the
 * server (password log-in keeps working unless OIDC_ONLY).
 */
export function createOidcClient(config: OidcConfig, redirectUri: () => string) {
  let discovered: { at: number; configuration: Promise<oidc.Configuration> } | undefined;

  function configuration(): Promise<oidc.Configuration> {
    if (discovered && Date.now() - discovered.at < metadataMaxAgeMs) return discovered.configuration;
    const issuer = new URL(config.issuer);
    const pending = oidc
      .discovery(issuer, config.clientId, undefined, oidc.ClientSecretBasic(config.clientSecret), {
        // config.ts allows http:// only for a loopback issuer (development and tests).
        ...(issuer.protocol === "http:" ? { execute: [oidc.allowInsecureRequests] } : {}),
        timeout: requestTimeoutSeconds,
      })
      .catch((error: unknown) => {
        // Forgotten at once, so the next log-in tries again instead of failing for an hour.
        discovered = undefined;
        throw new SignOnFailed("unreachable", error);
      });
    discovered = { at: Date.now(), configuration: pending };
    return pending;
  }

  return {
    /** The provider's authorization URL for a new log-in, and what the browser must keep until it returns. */
    async start(next: string): Promise<{ url: string; pending: PendingSignOn }> {
      const pending: PendingSignOn = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        codeVerifier: oidc.randomPKCECodeVerifier(),
        next,
      };
      const url = oidc.buildAuthorizationUrl(await configuration(), {
        redirect_uri: redirectUri(),
        scope: "openid email profile",
        response_type: "code",
        code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
        code_challenge_method: "S256",
        state: pending.state,
        nonce: pending.nonce,
      });
      return { url: url.href, pending };
    },

    /**
     * Exchanges the code of the callback URL for tokens, checking state, nonce, PKCE and the ID
     * token's signature, issuer, audience and lifetime (openid-client does); then reads the claims.
     */
    async finish(callbackUrl: URL, pending: PendingSignOn): Promise<ProviderIdentity> {
      const configured = await configuration();
      // The callback must be the redirect URI the provider was given; only its query is the provider's.
      const current = new URL(redirectUri());
      current.search = callbackUrl.search;
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(configured, current, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: pending.state,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw new SignOnFailed("rejected", error);
      }
      const claims = tokens.claims();
      if (!claims) throw new SignOnFailed("rejected", new Error("no ID token"));
      let profile: Record<string, unknown> = claims;
      // Many providers put email and name only in UserInfo unless asked for them in the ID token.
      if (claims.email === undefined && tokens.access_token) {
        try {
          profile = { ...claims, ...(await oidc.fetchUserInfo(configured, tokens.access_token, claims.sub)) };
        } catch (error) {
          throw new SignOnFailed("rejected", error);
        }
      }
      return {
        subject: claims.sub,
        email: typeof profile.email === "string" ? profile.email : undefined,
        // Only a literal true: a provider that leaves it out (or says "true" as text) has not verified it.
        emailVerified: profile.email_verified === true,
        name: typeof profile.name === "string" ? profile.name : undefined,
      };
    },
  };
}
