import type { FastifyInstance } from "fastify";
import { LRUCache } from "lru-cache";

/**
 * Nesting deeper than this in a JSON body (or a JSON query parameter) is refused before it is
 * parsed. GraphQL variables never need more than a few levels; 10,000 nested arrays once reached
 * the recursive variable coercion and overflowed the stack (a 500 and a stack trace in the log).
 */
export const maxJsonDepth = 64;

/**
 * Whether `text` nests arrays and objects deeper than `max`: one pass over the characters, strings
 * skipped, without building anything. Malformed JSON is left for the parser to report.
 */
export function jsonDepthExceeds(text: string, max: number = maxJsonDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // a backslash escapes the next character, quotes included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/** The error a too-deep body raises: a client error, answered 400 in the API's error shape. */
class JsonTooDeepError extends Error {
  readonly statusCode = 400;
  constructor(max: number) {
    super(`nesting is deeper than ${max} levels`);
    this.name = "JsonTooDeepError";
  }
}

// Bodies up to this long are remembered parsed, this many of them: about 2 MB of text at most, and
// as much again parsed.
export const rememberedBodyChars = 2048;
const rememberedBodies = 1000;

/**
 * Replaces the JSON body parser of `scope`: the depth check runs on the raw text first, then
 * Fastify's own parser (which refuses `__proto__` and `constructor.prototype` keys). The body size
 * limit applies before either.
 *
 * A client repeats its requests byte for byte (the cache hits of the API are such requests), so
 * the recent short bodies are remembered parsed: a repeated one skips the depth check and the
 * parse, which with secure-json-parse's scans of the text were a visible share of a cached answer.
 * What is handed out again is frozen to the last level,
 * so no request can change what the next one reads. The function returned looks a text up among
 * them without parsing anything: the API's hit lane serves only bodies this parser has checked.
 */
export function registerJsonBodyParser(scope: FastifyInstance): (text: string) => object | undefined {
  const parse = scope.getDefaultJsonParser("error", "error");
  const parsed = new LRUCache<string, object>({ max: rememberedBodies });
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    // A longer body is never kept, and looking it up would hash it whole for nothing.
    const known = text.length <= rememberedBodyChars ? parsed.get(text) : undefined;
    if (known) return done(null, known);
    if (jsonDepthExceeds(text)) return done(new JsonTooDeepError(maxJsonDepth), undefined);
    parse(request, text, (error, value) => {
      if (!error && text.length <= rememberedBodyChars && typeof value === "object" && value !== null)
        parsed.set(text, deepFreeze(value));
      done(error, value);
    });
  });
  return (text) => (text.length <= rememberedBodyChars ? parsed.get(text) : undefined);
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}
