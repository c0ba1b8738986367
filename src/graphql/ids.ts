import { notFound } from "../errors.js";
import { localId } from "./builder.js";

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
