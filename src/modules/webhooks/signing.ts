import { createHmac, randomBytes } from "node:crypto";

const secretPrefix = "whsec_";

/** A new signing secret in the Standard Webhooks form: `whsec_` and 32 random bytes in base64. */
export function generateSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString("base64")}`;
}

/**
 * The `webhook-signature` value for one message: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * per secret, space-separated, so a receiver holding either the new or the previous secret (during
 * a rotation) verifies it with the Standard Webhooks libraries.
 */
export function signatureHeader(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.slice(secretPrefix.length), "base64");
      const mac = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
      return `v1,${mac}`;
    })
    .join(" ");
}

/** The last four characters, the only part of a secret shown after it was issued. */
export function secretLastFour(secret: string): string {
  return secret.slice(-4);
}
