import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Seals a provider's secret key for storage: AES-256-GCM under a key derived from the server's
 * secret, with the project id as associated data, so a sealed key copied into another project's
 * row does not open there. Format `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export interface KeyBox {
  seal(projectId: string, plain: string): string;
  /** The plain text, or undefined when the sealed text is not ours (another server key, tampered). */
  open(projectId: string, sealed: string): string | undefined;
}

/** A key box under `serverSecret` (PAYMENT_KEYS_SECRET or the generated server secret). */
export function keyBox(serverSecret: string): KeyBox {
  const key = createHash("sha256").update(`eventgraph payment keys\0${serverSecret}`).digest();
  return {
    seal(projectId, plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(projectId));
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), body]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    open(projectId, sealed) {
      const [version, iv, tag, body] = sealed.split(".");
      if (version !== "v1" || !iv || !tag || body === undefined) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAAD(Buffer.from(projectId));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
          "utf8",
        );
      } catch {
        return undefined;
      }
    },
  };
}
