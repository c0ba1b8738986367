import { type GraphQLSchema, isObjectType } from "graphql";

// The dated versions of the API (docs/guides/06-versioning.md). The code's schema is the newest
// version; each version lists the breaking changes it made against the one before it, each with the
// way back, so an older version's schema is the newest one with the newer versions' changes undone
// (as Stripe keeps its API versions). A breaking change goes only into a new version here; the
// snapshots (`snapshotFile`) and the schema-history check hold every version to that.

/** One breaking change a version made, and how the version before it still looks. */
interface VersionChange {
  /**
   * The schema coordinate (`Type.field`) of the previous version that this change takes away: a
   * request of the previous version that selects it is told so (Deprecation, Sunset).
   */
  coordinate: string;
  /** What changed and what to use instead, for the guide and the Deprecation link's readers. */
  description: string;
  /** Turns a freshly built schema of this version back into the previous version's, in place. */
  undo(schema: GraphQLSchema): void;
  /**
   * A selection on `typename` written for this version, as the previous version spells it: the
   * webhook payloads' default selections are written for the newest version (webhooks/catalogue.ts).
   */
  undoSelection(typename: string, selection: string): string;
}

/** A dated version: its name is its release date. */
export interface ApiVersion {
  name: string;
  changes: readonly VersionChange[];
}

/**
 * A field renamed by a version: the previous version keeps the old name with the same resolver,
 * arguments, description and access declarations (the field object moves to its old name).
 */
function renamedField(typeName: string, from: string, to: string, description: string): VersionChange {
  return {
    coordinate: `${typeName}.${from}`,
    description,
    undo(schema) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`${typeName} is not an object type of the schema`);
      const fields = type.getFields();
      const field = fields[to];
      if (!field || fields[from]) throw new Error(`Cannot rename ${typeName}.${to} back to ${from}`);
      field.name = from;
      // Rebuilt in sorted order: introspection lists the fields as the printed schema does.
      const entries = Object.entries(fields).map(([name, f]) => [name === to ? from : name, f] as const);
      for (const name of Object.keys(fields)) delete fields[name];
      for (const [name, f] of entries.sort(([a], [b]) => a.localeCompare(b))) fields[name] = f;
    },
    // Only the selection's own fields are of `typeName`: a default selection names nested fields
    // of other types inside braces, which it leaves alone.
    undoSelection(typename, selection) {
      if (typename !== typeName) return selection;
      let depth = 0;
      return selection.replace(/[{}]|\w+/g, (token) => {
        if (token === "{") depth++;
        else if (token === "}") depth--;
        else if (depth === 0 && token === to) return from;
        return token;
      });
    },
  };
}

/** Every version served, oldest first. Append a new version at the end; never edit a released one. */
export const apiVersions: readonly ApiVersion[] = [
  { name: "2026-09-01", changes: [] },
  {
    name: "2026-12-01",
    changes: [
      renamedField(
        "TicketType",
        "quantity",
        "capacity",
        "TicketType.quantity is TicketType.capacity, as on Session and Room.",
      ),
    ],
  },
];

/** The newest version: what the code defines, and what a new app is pinned to. */
export const latestVersion = apiVersions[apiVersions.length - 1] as ApiVersion;

/** How long a version keeps answering after a newer one is released (Shopify's 12 months). */
const supportMonths = 12;

/** The request and response header field naming a version. */
export const versionHeader = "eventgraph-version";

/** The version of this name, or undefined. */
export function findVersion(name: string): ApiVersion | undefined {
  return apiVersions.find((version) => version.name === name);
}

/** The versions newer than `version`, oldest first. */
export function versionsAfter(version: ApiVersion): readonly ApiVersion[] {
  return apiVersions.slice(apiVersions.indexOf(version) + 1);
}

/**
 * The day after which `version` is no longer served: 12 months after the next version's release;
 * undefined for the newest, which has no end yet.
 */
export function sunsetOf(version: ApiVersion): string | undefined {
  const next = versionsAfter(version)[0];
  if (!next) return undefined;
  const date = new Date(`${next.name}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + supportMonths);
  return date.toISOString().slice(0, 10);
}

/** Whether `version` is still served at `now` (its sunset has not passed). */
export function isServed(version: ApiVersion, now: Date): boolean {
  const sunset = sunsetOf(version);
  return sunset === undefined || now.toISOString().slice(0, 10) < sunset;
}

/** The versions served at `now`, oldest first: what a refusal lists and the docs offer. */
export function servedVersions(now: Date): ApiVersion[] {
  return apiVersions.filter((version) => isServed(version, now));
}

/**
 * The file the schema of `version` is committed to. The first version keeps the name the single
 * schema had, so its history (and the check that it never changed incompatibly) runs on unbroken.
 * @internal Exported for scripts/print-schema.mjs and the schema tests (knip --production).
 */
export function snapshotFile(version: ApiVersion): string {
  return version === apiVersions[0] ? "schema.graphql" : `schema.${version.name}.graphql`;
}

/** A selection written for the newest version, as `version` spells it. */
export function selectionIn(version: ApiVersion, typename: string, selection: string): string {
  let text = selection;
  for (const newer of [...versionsAfter(version)].reverse()) {
    for (const change of [...newer.changes].reverse()) text = change.undoSelection(typename, text);
  }
  return text;
}

/** The version a request is served in, or why none is. */
export type VersionChoice = { ok: true; version: ApiVersion } | { ok: false; message: string };

/**
 * The version of a request: the one its `Eventgraph-Version` header names, which must be served;
 * else the one its app is pinned to; else (no token, or a pin past its sunset) the oldest served,
 * as Shopify does, so a caller that never chose keeps the longest-lived behaviour.
 */
export function chooseVersion(
  header: string | string[] | undefined,
  pinned: string | undefined,
  now: Date,
): VersionChoice {
  if (header !== undefined) {
    const name = Array.isArray(header) ? header.join(",") : header.trim();
    const version = findVersion(name);
    if (version && isServed(version, now)) return { ok: true, version };
    const served = servedVersions(now).map((v) => v.name);
    const shown = JSON.stringify(name.slice(0, 40));
    return {
      ok: false,
      message: `Eventgraph-Version ${shown} is not a version this server answers; use one of ${served.join(", ")}`,
    };
  }
  const own = pinned === undefined ? undefined : findVersion(pinned);
  if (own && isServed(own, now)) return { ok: true, version: own };
  return { ok: true, version: servedVersions(now)[0] ?? latestVersion };
}
