import { randomFillSync } from "node:crypto";
import { v7 } from "uuid";

// Random bytes for ids, drawn from the system's CSPRNG 4 KiB (256 ids) at a time. Drawn 16 bytes
// per id, as uuid does, each draw went through OpenSSL's generator and its fork check (a `getpid`
// system call): a visible share of a check-in, which makes two ids.
const pool = new Uint8Array(4096);
let used = pool.length;
// The last id's millisecond and counter. uuid's `v7()` keeps ids in order only when it draws its own
// bytes, so the order is kept here, the way it does: RFC 9562's counter in the 32 bits after the
// time, restarted from random bits each new millisecond, counted up within one.
let lastMs = Number.NEGATIVE_INFINITY;
let counter = 0;

/**
 * A new row id, made in the process so both engines behave the same: a UUIDv7 (the time in
 * milliseconds, then a counter, then random bits), which sorts after every earlier id this process
 * made. Lists page by (created_at, id), so rows made in the same millisecond (three ticket types
 * created back to back, an import, the audit entries of one write) keep the order they were made in;
 * with random ids they came out in any order. Inserts also land at the end of the primary-key index
 * instead of on a random page of it. Ids are not secrets: nothing grants access by knowing one.
 */
export function newId(): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const random = pool.subarray(used, used + 16);
  used += 16;
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter =
      ((random[6] as number) & 0x7f) * 0x1000000 +
      ((random[7] as number) << 16) +
      ((random[8] as number) << 8) +
      (random[9] as number);
  } else {
    // Wraps as uuid's does; only 2^32 ids in one millisecond would move the time on.
    counter = (counter + 1) | 0;
    if (counter === 0) lastMs++;
  }
  return v7({ random, msecs: lastMs, seq: counter });
}
