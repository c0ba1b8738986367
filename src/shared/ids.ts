import { v7 } from "uuid";

/**
 * A new row id, made in the process so both engines behave the same: a UUIDv7 (the time in
 * milliseconds, then a counter, then random bits), which sorts after every earlier id this process
 * made. Lists page by (created_at, id), so rows made in the same millisecond (three ticket types
 * created back to back, an import, the audit entries of one write) keep the order they were made in;
 * with random ids they came out in any order. Inserts also land at the end of the primary-key index
 * instead of on a random page of it. Ids are not secrets: nothing grants access by knowing one.
 */
export function newId(): string {
  return v7();
}
