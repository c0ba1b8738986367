import type { FastifyInstance } from "fastify";

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

/**
 * Replaces the JSON body parser of `scope`: the depth check runs on the raw text first, then
 * Fastify's own parser (which refuses `__proto__` and `constructor.prototype` keys). The body size
 * limit applies before either.
 */
export function registerJsonBodyParser(scope: FastifyInstance): void {
  const parse = scope.getDefaultJsonParser("error", "error");
  scope.removeContentTypeParser("application/json");
  scope.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (jsonDepthExceeds(body as string)) return done(new JsonTooDeepError(maxJsonDepth), undefined);
    parse(request, body as string, done);
  });
}
