import { randomInt } from "node:crypto";

// Crockford's base32: digits and capitals without I, L, O and U, so a code read aloud or typed from
// a printout cannot mix up 0/O or 1/I/L. 16 characters carry 80 random bits: guessing one code of a
// project with 100,000 attendees takes about 10^19 tries, and check-in answers one try at a time.
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const codeLength = 16;
const groupLength = 4;

/** A new unguessable ticket code from a CSPRNG, as shown and stored: `7K3M-9QXR-2D4F-HV8N`. */
export function generateTicketCode(): string {
  let raw = "";
  for (let i = 0; i < codeLength; i++) raw += alphabet[randomInt(alphabet.length)];
  return group(raw);
}

function group(raw: string): string {
  return raw.match(new RegExp(`.{${groupLength}}`, "g"))?.join("-") ?? raw;
}

/**
 * The stored form of a code someone typed or a camera read (any case, spaces or dashes anywhere,
 * O for 0 and I or L for 1), or null when it cannot be a ticket code. Lookups use the result.
 */
export function normalizeTicketCode(input: string): string | null {
  if (input.length > 64) return null;
  const raw = input.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (raw.length !== codeLength) return null;
  for (const c of raw) if (!alphabet.includes(c)) return null;
  return group(raw);
}
