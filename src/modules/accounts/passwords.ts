import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from "node:crypto";

// scrypt from Node's crypto (OpenSSL): memory-hard, no native addon to build. Parameters are stored
// with each hash so they can be raised later without invalidating existing passwords.
// N, the cost, comes from the config (Config.passwordCost).
const params = { r: 8, p: 1, keyLength: 32 };

function derive(
  password: string,
  salt: Buffer,
  N: number,
  r: number,
  p: number,
  keyLength: number,
): Promise<Buffer> {
  const options: ScryptOptions = { N, r, p, maxmem: 64 * 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, keyLength, options, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** Hashes a password as `scrypt$N$r$p$salt$hash` (base64 parts), at cost `N`. */
export async function hashPassword(password: string, N: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, params.r, params.p, params.keyLength);
  return ["scrypt", N, params.r, params.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** Checks a password against a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const key = await derive(
    password,
    Buffer.from(salt, "base64"),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(key, expected);
}

const dummies = new Map<number, Promise<string>>();

/** A hash of a random password at cost `N`: lets login spend the same time for unknown users. */
export function dummyPasswordHash(N: number): Promise<string> {
  let dummy = dummies.get(N);
  if (!dummy) {
    dummy = hashPassword(randomBytes(16).toString("hex"), N);
    dummies.set(N, dummy);
  }
  return dummy;
}
