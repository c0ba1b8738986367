import { type DocumentNode, type GraphQLSchema, TypeInfo, visit, visitWithTypeInfo } from "graphql";
import { removalDate } from "../../docs/schema-history.js";
import type { AnswerHeaders } from "../answer-headers.js";
import { type ApiVersion, sunsetOf, versionHeader, versionsAfter } from "./api-versions.js";

/**
 * What a request uses that is going away: the earliest day it was (or will be) deprecated and the
 * earliest day it stops being answered. A field, argument or enum value counts when the version's
 * schema marks it `@deprecated` (gone after the "Removal after" date of its reason, or with the
 * version) or when a newer version changed it (gone with this version, 12 months after that one).
 */
export interface Deprecation {
  /** YYYY-MM-DD: the RFC 9745 `Deprecation` date. */
  since: string;
  /** YYYY-MM-DD: the RFC 8594 `Sunset` date. */
  sunset: string;
}

const known = new WeakMap<DocumentNode, Deprecation | null>();

/**
 * The deprecation a document runs into in `version`, or undefined. Worked out once per parsed
 * document: a document is parsed per version (each version has its own document cache), so the
 * document object stands for the pair.
 */
export function deprecationOf(
  version: ApiVersion,
  schema: GraphQLSchema,
  document: DocumentNode,
): Deprecation | undefined {
  const cached = known.get(document);
  if (cached !== undefined) return cached ?? undefined;
  const versionSunset = sunsetOf(version);
  // Taken away by a newer version: deprecated from that version's release on.
  const changed = new Map<string, string>();
  for (const newer of versionsAfter(version)) {
    for (const change of newer.changes)
      if (!changed.has(change.coordinate)) changed.set(change.coordinate, newer.name);
  }
  let found: Deprecation | undefined;
  const note = (since: string, sunset: string | undefined) => {
    const end = sunset ?? versionSunset;
    if (!end) return;
    found = {
      since: found && found.since < since ? found.since : since,
      sunset: found && found.sunset < end ? found.sunset : end,
    };
  };
  const marked = (reason: string | null | undefined) => {
    // Deprecated in this version's schema: announced by the time the version was released at the latest.
    if (!reason) return;
    const removal = removalDate(reason);
    note(version.name, removal && versionSunset && versionSunset < removal ? versionSunset : removal);
  };
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const field = typeInfo.getFieldDef();
        const parent = typeInfo.getParentType();
        if (!field || !parent) return;
        marked(field.deprecationReason);
        const since = changed.get(`${parent.name}.${field.name}`);
        if (since) note(since, versionSunset);
      },
      Argument() {
        marked(typeInfo.getArgument()?.deprecationReason);
      },
      EnumValue() {
        marked(typeInfo.getEnumValue()?.deprecationReason);
      },
    }),
  );
  known.set(document, found ?? null);
  return found;
}

/**
 * The header fields that tell a caller which version answered and what of its request is going
 * away: `Eventgraph-Version`, and when it applies `Deprecation` (RFC 9745, a structured date),
 * `Sunset` (RFC 8594, an HTTP date) and a `Link` to the policy (rel="deprecation").
 */
export function announceVersion(
  headers: AnswerHeaders,
  version: ApiVersion,
  deprecation: Deprecation | undefined,
): void {
  headers.set(versionHeader, version.name);
  if (!deprecation) return;
  headers
    .set("deprecation", `@${Date.parse(`${deprecation.since}T00:00:00Z`) / 1000}`)
    .set("sunset", new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString())
    .set("link", `</graphql/reference/guides/versioning>; rel="deprecation"; type="text/html"`);
}
