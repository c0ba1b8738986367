import { randomInt } from "node:crypto";

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random project id: exactly 4 characters of [A-Za-z0-9] from the CSPRNG. */
export function generateProjectId(): string {
  let id = "";
  for (let i = 0; i < 4; i++) id += alphabet[randomInt(alphabet.length)];
  return id;
}

/** True for a well-formed project id; anything else is treated as an unknown project. */
export function isProjectId(value: string): boolean {
  return /^[A-Za-z0-9]{4}$/.test(value);
}
