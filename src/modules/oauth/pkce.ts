import { hash } from "node:crypto";

// RFC 7636 §4.1: 43 to 128 characters of the unreserved set. A challenge of S256 is the 43-character
// base64url of a SHA-256. "plain" is refused (RFC 9700 §2.1.1): it protects nothing once the
// authorization request leaks.
const verifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;
const challengePattern = /^[A-Za-z0-9_-]{43}$/;

/** Whether a code_challenge has the shape of an S256 challenge. */
export function isS256Challenge(challenge: string): boolean {
  return challengePattern.test(challenge);
}

/** Whether `verifier` is the one behind `challenge` (S256). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return verifierPattern.test(verifier) && hash("sha256", verifier, "base64url") === challenge;
}
