import { hash, randomInt } from "node:crypto";
import { crc32 } from "../../shared/crc32.js";

/**
 * API tokens: `evg_` + 32 random base62 characters + a 6-character base62 CRC32 of the random part
 * (the scheme GitHub uses). The prefix lets secret scanners recognise a leaked token; the checksum
 * lets the API reject a mistyped or truncated token without a database lookup.
 * @internal Exported for its tests only (knip --production checks that nothing else uses it).
 */
export const tokenPrefix = "evg_";

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const randomLength = 32;
const checksumLength = 6;
/**
 * The prefixes of the OAuth credentials (modules/oauth), in GitHub's manner (ghu_, ghr_): a scanner
 * tells an hour-long access token from a refresh token or a client secret, and each kind is refused
 * where another is expected without a database lookup.
 */
export const oauthPrefixes = { access: "evo_", refresh: "evr_", secret: "evs_", code: "evc_" } as const;

type TokenPrefix = typeof tokenPrefix | (typeof oauthPrefixes)[keyof typeof oauthPrefixes];

const bodyPattern = new RegExp(`^[0-9A-Za-z]{${randomLength + checksumLength}}$`);

// 62^6 > 2^32, so six characters hold any CRC-32; left-padded with "0" to a fixed width.
function checksumOf(randomPart: string): string {
  let value = crc32(randomPart);
  let out = "";
  for (let i = 0; i < checksumLength; i++) {
    out = alphabet[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** A new token from the CSPRNG (an app token unless another prefix is named); shown once, never stored. */
export function generateToken(prefix: TokenPrefix = tokenPrefix): string {
  let randomPart = "";
  // randomInt draws without modulo bias, so every character is uniform over the 62.
  for (let i = 0; i < randomLength; i++) randomPart += alphabet[randomInt(alphabet.length)];
  return `${prefix}${randomPart}${checksumOf(randomPart)}`;
}

/** True when the token has the right prefix, length, alphabet and checksum (no database needed). */
export function isWellFormedToken(token: string, prefix: TokenPrefix = tokenPrefix): boolean {
  if (!token.startsWith(prefix)) return false;
  const body = token.slice(prefix.length);
  if (!bodyPattern.test(body)) return false;
  return checksumOf(body.slice(0, randomLength)) === body.slice(randomLength);
}

/**
 * The stored form of a token: SHA-256, hex. A token has 190 random bits, so no salt or KDF is needed.
 * Every authenticated request hashes its token, so it uses the one-shot `hash`, cheaper than a Hash object.
 */
export function hashToken(token: string): string {
  return hash("sha256", token, "hex");
}

/** The last 4 characters, kept so the app page can say which token is current. */
export function tokenLast4(token: string): string {
  return token.slice(-4);
}
