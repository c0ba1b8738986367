import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** A person the provider knows: what they type to log in, and the claims it vouches for. */
export interface ProviderAccount {
  login: string;
  email: string;
  emailVerified: boolean;
  name: string;
}

const clientId = "eventgraph-test";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

async function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return new URLSearchParams(body);
}

/**
 * A real OpenID Connect provider (`oidc-provider`, the certified implementation) on a free loopback
 * port, with one confidential client and an account store the test fills. Its log-in page is ours
 * (a username field and "Sign in"); consent is given with the log-in, as a company's provider does
 * for its own applications. Start it before the server (whose OIDC_ISSUER it is), then `allow` the
 * server's callback address once that server listens.
 */
export class TestOidcProvider {
  readonly clientId = clientId;
  readonly clientSecret = randomBytes(24).toString("base64url");
  private readonly accounts = new Map<string, ProviderAccount>();
  private readonly http: Server;
  private provider: Provider | undefined;
  private issuerUrl = "";
  /**
   * Sees (and may replace) each redirect to Eventgraph's callback before the browser gets it: a
   * browser's request interception does not reach requests that are redirects.
   */
  onCallbackRedirect: ((location: URL) => string) | undefined;

  constructor() {
    this.http = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
    });
  }

  /** The issuer URL (http://127.0.0.1:<port>), for OIDC_ISSUER. */
  get issuer(): string {
    return this.issuerUrl;
  }

  /** The OIDC_* environment of a server that logs in through this provider. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      OIDC_ISSUER: this.issuer,
      OIDC_CLIENT_ID: this.clientId,
      OIDC_CLIENT_SECRET: this.clientSecret,
      ...extra,
    };
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.http.listen(0, "127.0.0.1", resolve));
    this.issuerUrl = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
    return this;
  }

  /** Registers the client with the server's callback address: a provider redirects nowhere else. */
  allow(serverUrl: string): void {
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    this.provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: clientId,
          client_secret: this.clientSecret,
          redirect_uris: [`${serverUrl}/login/oidc/callback`],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
      jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), kid: "test", use: "sig", alg: "RS256" }] },
      cookies: { keys: [randomBytes(16).toString("hex")] },
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      findAccount: (_ctx, id) => {
        const account = this.accounts.get(id);
        if (!account) return undefined;
        return {
          accountId: id,
          claims: () => ({
            sub: id,
            email: account.email,
            email_verified: account.emailVerified,
            name: account.name,
          }),
        };
      },
    });
  }

  /** Adds (or replaces) an account; returns it. */
  addAccount(account: ProviderAccount): ProviderAccount {
    this.accounts.set(account.login, account);
    return account;
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  /** The address a test's `onCallbackRedirect` sends the browser to instead of Eventgraph's callback. */
  get stoppedUrl(): string {
    return `${this.issuer}/stopped`;
  }

  private rewriteCallbackRedirects(response: ServerResponse): void {
    const setHeader = response.setHeader.bind(response);
    response.setHeader = (name, value) => {
      const hook = this.onCallbackRedirect;
      if (
        hook &&
        name.toLowerCase() === "location" &&
        typeof value === "string" &&
        value.includes("/login/oidc/callback")
      )
        return setHeader(name, hook(new URL(value)));
      return setHeader(name, value);
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const provider = this.provider;
    if (!provider) {
      response.statusCode = 503;
      response.end("the test provider has no client yet: call allow(serverUrl)");
      return;
    }
    if (request.url === "/stopped") {
      response.end("Stopped before Eventgraph's callback.");
      return;
    }
    this.rewriteCallbackRedirects(response);
    if (!request.url?.startsWith("/interaction/")) {
      provider.callback()(request, response);
      return;
    }
    const details = await provider.interactionDetails(request, response);
    if (request.method === "GET") {
      response.setHeader("content-type", "text/html; charset=utf-8");
      response.end(
        `<!doctype html><html lang="en"><head><meta name="viewport" content="width=device-width"><title>Test provider</title></head>` +
          `<body><h1>Test provider</h1><form method="post" action="/interaction/${escapeHtml(details.uid)}">` +
          `<label>Username <input name="login" required></label> <button type="submit">Sign in</button></form></body></html>`,
      );
      return;
    }
    const login = (await formBody(request)).get("login") ?? "";
    if (!this.accounts.has(login)) {
      await provider.interactionFinished(request, response, {
        error: "access_denied",
        error_description: "unknown user",
      });
      return;
    }
    const grant = new provider.Grant({ accountId: login, clientId });
    grant.addOIDCScope("openid email profile");
    const grantId = await grant.save();
    await provider.interactionFinished(
      request,
      response,
      { login: { accountId: login }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }
}
