import { notFound } from "../errors.js";
import { isProjectId } from "../modules/projects/project-id.js";

// The global ids of recently answered rows, by type and row id. A page's ids are encoded again on
// every miss of it, and each encoding allocated a buffer and two strings: a twentieth of an
// attendee page miss's bytes. Looked up by the row's own id string, so a hit allocates nothing.
// Bounded: emptied once it holds `maxEncodedIds` ids (1.75 MiB measured, and the row ids it keeps).
const encodedIds = new Map<string, Map<string, string>>();
let encodedCount = 0;
const maxEncodedIds = 16_384;

/**
 * The global id of a row. A project's is its 4-character Project ID, the same one shown in the
 * dashboard URL, so `project { id }`, `node(id:)` and `/b/<id>` agree; every other type's is an
 * opaque base64url id. Global ids live here, below the builder, so a service can name an object
 * the way the API does (a webhook's payload) without importing the schema layer.
 */
export function encodeGlobalID(typename: string, id: string | number | bigint): string {
  if (typename === "Project") return String(id);
  const local = String(id);
  let ofType = encodedIds.get(typename);
  if (!ofType) {
    ofType = new Map();
    encodedIds.set(typename, ofType);
  }
  let encoded = ofType.get(local);
  if (encoded === undefined) {
    encoded = Buffer.from(`${typename}:${local}`).toString("base64url");
    if (encodedCount >= maxEncodedIds) {
      for (const known of encodedIds.values()) known.clear();
      encodedCount = 0;
    }
    ofType.set(local, encoded);
    encodedCount += 1;
  }
  return encoded;
}

/** The type and row id behind a global id; an empty typename when it is not one. */
export function decodeGlobalID(globalID: string): { typename: string; id: string } {
  if (isProjectId(globalID)) return { typename: "Project", id: globalID };
  const decoded = Buffer.from(globalID, "base64url").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return { typename: "", id: globalID };
  return { typename: decoded.slice(0, colon), id: decoded.slice(colon + 1) };
}

/**
 * Decodes a global id of an expected type; undefined when it is malformed or of another type.
 * @internal Exported for its tests (knip --production checks that nothing else uses it).
 */
export function localId(globalID: string, typename: string): string | undefined {
  const decoded = decodeGlobalID(globalID);
  return decoded.typename === typename ? decoded.id : undefined;
}

/** Encodes a row id as the global id of `typename`. */
export function globalId(typename: string, id: string): string {
  return encodeGlobalID(typename, id);
}

// Ids in inputs are global ids. One of the wrong type or shape is passed on as an id that matches no
// row, so the service answers it exactly like an id of another project ("not found in this project").
const noSuchRow = "00000000-0000-0000-0000-000000000000";

/** The row id behind an optional reference in an input (null and undefined pass through). */
export function optionalLocal(id: string | null | undefined, typename: string): string | null | undefined {
  return id == null ? id : (localId(id, typename) ?? noSuchRow);
}

/** The row id behind a required reference that must be of `typename`. */
export function referenceLocal(id: string, typename: string): string {
  return localId(id, typename) ?? noSuchRow;
}

/** The row id of the object a mutation changes; NOT_FOUND when the id is not of `typename`. */
export function requiredLocal(id: string, typename: string): string {
  const local = localId(id, typename);
  if (!local) throw notFound(typename);
  return local;
}
