import { randomUUID } from "node:crypto";

/** A new row id: a random UUID, generated in the process so both engines behave the same. */
export function newId(): string {
  return randomUUID();
}
