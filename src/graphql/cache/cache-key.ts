import { type Permission, serializePermissions } from "../../modules/access/permissions.js";

// What identifies a cacheable response: who asks (the view) and what they ask. Kept apart from the
// cache itself, which only stores under a key and never builds one; the HTTP handler builds keys
// here and computes `canonicalJson` once per request for the key and the document analysis.

/**
 * Who asks and in which API version they are answered: the first part of every cache key and of the
 * hit lane's prepared operations. Only `callerView` makes one, so no key can leave the version out:
 * an answer of one version is never served for another (their fields differ).
 */
export type View = string & { readonly view: unique symbol };

/** The caller of a request, as far as its answers depend on it. */
export type Caller =
  | { kind: "public" }
  | {
      kind: "app";
      appId: string;
      permissions: readonly Permission[];
      grant?: { projectId: string } | undefined;
    };

// The serialized form of each permission list seen: an app's list is read with its token and shared
// by the requests that token makes, so it is serialized once, not on each of them.
const serialized = new WeakMap<readonly Permission[], string>();

/**
 * The view of `caller` in `version` (an API version's name): public, or the app with its granted
 * permissions, and with an OAuth access token the one project its grant reaches (the app's own token
 * sees them all).
 */
export function callerView(version: string, caller: Caller): View {
  if (caller.kind === "public") return `${version} public` as View;
  const { appId, permissions, grant } = caller;
  let text = serialized.get(permissions);
  if (text === undefined) {
    text = serializePermissions(permissions);
    serialized.set(permissions, text);
  }
  return (
    grant ? `${version} app:${appId}@${grant.projectId}:${text}` : `${version} app:${appId}:${text}`
  ) as View;
}

/** What identifies a cacheable response. */
export interface CacheKeyInput {
  /** `callerView(…)`: the caller and the API version. */
  view: View;
  /** The document text exactly as received. */
  query: string;
  operationName?: string | null | undefined;
  variables?: Record<string, unknown> | null | undefined;
  /** `canonicalJson(variables)`, when the caller has it already (it replaces `variables`). */
  variablesJson?: string;
}

/**
 * The cache key: view, operation name, variables (key order ignored) and document text, joined.
 * The parts are kept as they are rather than hashed: a key costs its length in the byte budget,
 * while a SHA-256 per request was a measurable share of a cache hit. A NUL cannot occur in a view (a version
 * name, a space, the caller) or an operation name and is escaped in JSON, so the document text, last, cannot make two keys collide.
 */
export function responseCacheKey(input: CacheKeyInput): string {
  const variables = input.variablesJson ?? canonicalJson(input.variables);
  return `${input.view}\u0000${input.operationName ?? ""}\u0000${variables}\u0000${input.query}`;
}

/**
 * JSON of a variables object with object keys sorted at every level, so `{a, b}` and `{b, a}` give
 * the same text; "" for no variables.
 */
export function canonicalJson(value: Record<string, unknown> | null | undefined): string {
  if (value === null || value === undefined) return "";
  let plain = true;
  for (const key in value) {
    const item = value[key];
    if (item !== null && typeof item === "object") plain = false;
  }
  // The common case (scalars only, one or two keys) needs no copy when already in order.
  if (plain && isSorted(Object.keys(value))) return JSON.stringify(value);
  return JSON.stringify(sortedCopy(value));
}

function isSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  return true;
}

// Sorts object keys recursively so `{a, b}` and `{b, a}` hit the same entry.
function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortedCopy((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
