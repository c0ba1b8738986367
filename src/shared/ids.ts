import { randomUUID } from "node:crypto";
import { v7 } from "uuid";

/** A new row id: a random UUID, generated in the process so both engines behave the same. */
export function newId(): string {
  return randomUUID();
}

/**
 * A new id that sorts after every earlier one this process made (UUIDv7: the time in milliseconds,
 * then a counter, then random bits), for append-only rows listed or paged by (time, id): the audit
 * log and check-ins. Two entries written in the same millisecond keep the order they were written
 * in (with random ids, "newest first" showed them in any order), and inserts land at the end of the
 * primary-key index instead of on a random page of it.
 */
export function newTimeOrderedId(): string {
  return v7();
}
