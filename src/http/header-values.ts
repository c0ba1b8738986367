import type { IncomingMessage } from "node:http";
import { LRUCache } from "lru-cache";

/**
 * What reading a request's header fields needs of it: Fastify's request and Node's own (which the
 * API's hit lane answers, src/graphql/hit-lane.ts) both have it.
 */
export type RequestHead = Pick<IncomingMessage, "headers"> & { method?: string };

/**
 * `decide`, remembered for the last `max` header values it was given. A client sends the same
 * Accept and Accept-Encoding text with every request, and parsing them (split, trim, lower-case,
 * weights) cost as much per request, for the headers Apollo Client and urql send, as the rest of a
 * cached answer's own steps. Bounded in count and
 * in length (a header may be 16 KB; what clients send is under 200 characters), so that a client
 * sending new or long values only makes itself the slow path, and 65,536 characters at most are held.
 */
export function rememberedPerValue<T>(decide: (value: string) => T, max = 256): (value: string) => T {
  // Boxed: the cache holds no undefined values, and "none acceptable" is a decision too.
  const decided = new LRUCache<string, { value: T }>({ max });
  return (value) => {
    const known = decided.get(value);
    if (known) return known.value;
    const result = decide(value);
    if (value.length <= longestRemembered) decided.set(value, { value: result });
    return result;
  };
}

const longestRemembered = 256;

/**
 * The members of a weighted header list (Accept, Accept-Encoding; RFC 9110 §12.4.2), in order: each
 * name lower-cased and trimmed, with its `q` (1 when absent, 0 when unreadable).
 */
export function weightedMembers(value: string): { name: string; q: number }[] {
  return value.split(",").map((part) => {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return { name: name.trim(), q: q ? Number(q.slice(2)) || 0 : 1 };
  });
}
