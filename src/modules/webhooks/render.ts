import { type DocumentNode, execute, type GraphQLSchema, parse, validate } from "graphql";
import { LRUCache } from "lru-cache";
import { createContext } from "../../graphql/context.js";
import { globalId } from "../../graphql/ids.js";
import { type ApiVersion, chooseVersion, selectionIn } from "../../graphql/versions/api-versions.js";
import type { Services } from "../../services.js";
import type { Actor } from "../access/actor.js";
import { defaultSelections } from "./catalogue.js";

/** The object of an event as the app may see it, or why it cannot be rendered. */
export type RenderedObject = { ok: true; object: unknown } | { ok: false; error: string };

const maxSelectionLength = 2000;

/**
 * Turns events' objects into `data.object` through the API itself: `nodes(ids)` with the app's
 * selection (its fragment for the type, or the default), executed as the app with what the
 * project's link grants. The payload therefore has exactly the GraphQL field names, global ids and
 * permission rules of the API, and nothing an API call could not have read. It renders in the
 * API version the app is pinned to, so a payload changes shape only when the app moves its pin.
 * The objects of one claim render in one execution, so the API's loaders read their related rows
 * (ticket types, check-ins) in one statement for all of them rather than one per event.
 */
export class ObjectRenderer {
  private readonly documents = new LRUCache<string, DocumentNode | string>({ max: 500 });

  constructor(
    private readonly schemaOf: (version: ApiVersion) => GraphQLSchema,
    private readonly services: Services,
  ) {}

  /** The parsed document for a selection on `typename` in `version`, or the validation message. */
  document(version: ApiVersion, typename: string, selection: string): DocumentNode | string {
    const key = `${version.name}\u0000${typename}\u0000${selection}`;
    let cached = this.documents.get(key);
    if (cached === undefined) {
      cached = this.compile(this.schemaOf(version), typename, selection);
      this.documents.set(key, cached);
    }
    return cached;
  }

  /**
   * Checks an app's selection for a type before it is saved, in the version the app is pinned to;
   * answers the problem or undefined.
   */
  check(pinned: string, typename: string, selection: string): string | undefined {
    const result = this.document(versionOf(pinned), typename, selection);
    return typeof result === "string" ? result : undefined;
  }

  private compile(schema: GraphQLSchema, typename: string, selection: string): DocumentNode | string {
    if (selection.length > maxSelectionLength) return `must be at most ${maxSelectionLength} characters`;
    // A selection only, wrapped here: the app cannot add operations, variables or directives elsewhere.
    if (!balanced(selection)) return "must have balanced braces";
    let document: DocumentNode;
    try {
      document = parse(
        `query WebhookObjects($ids: [ID!]!) { nodes(ids: $ids) { ...EventObject } } fragment EventObject on ${typename} { ${selection} }`,
        { maxTokens: 2000 },
      );
    } catch (error) {
      return `is not a valid selection: ${(error as Error).message}`;
    }
    if (document.definitions.length !== 2) return "must be a selection of fields only";
    const errors = validate(schema, document);
    if (errors.length > 0) return errors.map((e) => e.message).join("; ");
    return document;
  }

  /**
   * Renders objects of one type for `actor`, in the order of `ids`, in one execution; a missing or
   * no longer visible object renders its id alone.
   */
  async renderMany(
    actor: Actor,
    typename: string,
    ids: readonly string[],
    selection: string | undefined,
  ): Promise<RenderedObject[]> {
    const version = versionOf(actor.kind === "app" ? actor.apiVersion : undefined);
    const defaults = defaultSelections[typename];
    const fields = selection ?? (defaults && selectionIn(version, typename, defaults));
    const idOnly = (id: string): RenderedObject => ({ ok: true, object: { id: globalId(typename, id) } });
    if (!fields) return ids.map(idOnly);
    const document = this.document(version, typename, fields);
    if (typeof document === "string")
      return ids.map(() => ({ ok: false, error: `The fragment ${document}` }));
    const result = await execute({
      schema: this.schemaOf(version),
      document,
      contextValue: createContext(this.services, actor, `webhook-${ids[0] ?? ""}`),
      variableValues: { ids: ids.map((id) => globalId(typename, id)) },
    });
    const nodes = (result.data as { nodes?: unknown[] } | null | undefined)?.nodes ?? [];
    // Deleted since (or a delete event): the receiver still learns which object it was.
    return ids.map((id, i) => (nodes[i] ? { ok: true, object: nodes[i] } : idOnly(id)));
  }
}

/** The version an app's pin answers in, as its API requests without the header are answered. */
function versionOf(pinned: string | undefined): ApiVersion {
  const choice = chooseVersion(undefined, pinned, new Date());
  if (!choice.ok) throw new Error(choice.message);
  return choice.version;
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const char of text) {
    if (char === "{") depth++;
    if (char === "}" && --depth < 0) return false;
  }
  return depth === 0;
}
