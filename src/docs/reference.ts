import {
  astFromValue,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  print,
} from "graphql";
import { fieldAccess } from "../graphql/access-declarations.js";
import { declaredPermission, declaredRestriction } from "../graphql/permissions.js";
import type { Permission } from "../modules/access/permissions.js";
import { permissionCatalogue } from "../modules/access/permissions.js";
import { describe, docsPage, escapeHtml } from "./layout.js";
import { removalDate } from "./schema-history.js";

/** A deprecated schema element and the date its removal was announced for. */
export interface Deprecation {
  coordinate: string;
  reason: string;
  removalDate: string | undefined;
}

// Root types first, then the rest alphabetically; introspection types are GraphQL's own.
function documentedTypes(schema: GraphQLSchema): GraphQLNamedType[] {
  const roots: GraphQLNamedType[] = [schema.getQueryType(), schema.getMutationType()].filter(
    (t): t is NonNullable<typeof t> => Boolean(t),
  );
  const rest = Object.values(schema.getTypeMap())
    .filter((t) => !t.name.startsWith("__") && !roots.includes(t))
    .filter((t) => !(isScalarType(t) && isSpecifiedScalarType(t)))
    .sort((a, b) => a.name.localeCompare(b.name));
  return [...roots, ...rest];
}

function kindOf(type: GraphQLNamedType): string {
  if (isObjectType(type)) return "type";
  if (isInterfaceType(type)) return "interface";
  if (isUnionType(type)) return "union";
  if (isEnumType(type)) return "enum";
  if (isInputObjectType(type)) return "input";
  return "scalar";
}

// `[Session!]!` with the named type linked to its section (built-in scalars stay plain).
function typeLink(type: GraphQLOutputType | GraphQLInputType): string {
  const named = getNamedType(type);
  const text = escapeHtml(String(type));
  if (isScalarType(named) && isSpecifiedScalarType(named)) return `<code>${text}</code>`;
  const name = escapeHtml(named.name);
  return `<code>${text.replace(name, `<a href="#${name}">${name}</a>`)}</code>`;
}

function defaultOf(arg: GraphQLArgument | GraphQLInputField): string {
  if (arg.defaultValue === undefined) return "";
  const ast = astFromValue(arg.defaultValue, arg.type);
  return ast ? ` = <code>${escapeHtml(print(ast))}</code>` : "";
}

function deprecationNote(reason: string | null | undefined): string {
  if (!reason) return "";
  const date = removalDate(reason);
  return `<p class="deprecated" data-deprecated="${escapeHtml(date ?? "")}"><strong>Deprecated.</strong> ${describe(reason)}</p>`;
}

function permissionBadge(permission: Permission | undefined, inherited = false): string {
  // An inherited field needs no permission of its own: what returned its object decided.
  if (inherited) return `<span class="permission public" data-permission="public">as its parent</span>`;
  if (!permission) return `<span class="permission public" data-permission="public">public</span>`;
  const title = permissionCatalogue.find((p) => p.name === permission)?.title ?? permission;
  return `<span class="permission" data-permission="${permission}" title="${escapeHtml(title)}">${permission}</span>`;
}

function argumentsList(owner: string, field: GraphQLField<unknown, unknown>): string {
  if (field.args.length === 0) return "";
  const items = field.args.map((arg) => {
    const restriction = declaredRestriction(arg);
    const restricted = restriction
      ? ` <span class="permission" data-permission="${restriction.permission}">values other than ${restriction.allowedWithout
          .map((v) => `<code>${escapeHtml(String(v))}</code>`)
          .join(", ")} need ${restriction.permission}</span>`
      : "";
    const id = `${owner}.${field.name}.${arg.name}`;
    return `<li id="${escapeHtml(id)}" data-argument="${escapeHtml(id)}"${
      restriction ? ` data-permission="${restriction.permission}"` : ""
    }><code>${escapeHtml(arg.name)}</code>: ${typeLink(arg.type)}${defaultOf(arg)}${restricted}${
      arg.description ? ` — ${describe(arg.description)}` : ""
    }${deprecationNote(arg.deprecationReason)}</li>`;
  });
  return `<ul class="arguments">${items.join("")}</ul>`;
}

function fieldsSection(type: GraphQLNamedType): string {
  if (isObjectType(type) || isInterfaceType(type)) {
    const rows = Object.values(type.getFields()).map((field) => {
      const id = `${type.name}.${field.name}`;
      const permission = declaredPermission(field, type);
      const inherited = isObjectType(type) && fieldAccess(field, type)?.kind === "inherited";
      return `<div class="field" id="${escapeHtml(id)}" data-field="${escapeHtml(id)}" data-permission="${
        permission ?? "public"
      }"><h3><a href="#${escapeHtml(id)}">${escapeHtml(field.name)}</a>: ${typeLink(field.type)} ${permissionBadge(
        permission,
        inherited,
      )}</h3><p>${describe(field.description)}</p>${argumentsList(type.name, field)}${deprecationNote(
        field.deprecationReason,
      )}</div>`;
    });
    return rows.join("");
  }
  if (isInputObjectType(type)) {
    return Object.values(type.getFields())
      .map((field) => {
        const id = `${type.name}.${field.name}`;
        return `<div class="field" id="${escapeHtml(id)}" data-input-field="${escapeHtml(id)}"><h3><a href="#${escapeHtml(
          id,
        )}">${escapeHtml(field.name)}</a>: ${typeLink(field.type)}${defaultOf(field)}</h3><p>${describe(
          field.description,
        )}</p>${deprecationNote(field.deprecationReason)}</div>`;
      })
      .join("");
  }
  if (isEnumType(type)) {
    return type
      .getValues()
      .map((value) => {
        const id = `${type.name}.${value.name}`;
        return `<div class="field" id="${escapeHtml(id)}" data-enum-value="${escapeHtml(id)}"><h3><code>${escapeHtml(
          value.name,
        )}</code></h3><p>${describe(value.description)}</p>${deprecationNote(value.deprecationReason)}</div>`;
      })
      .join("");
  }
  if (isUnionType(type)) {
    return `<p>One of ${type
      .getTypes()
      .map((t) => typeLink(t))
      .join(", ")}.</p>`;
  }
  return "";
}

function typeSection(type: GraphQLNamedType): string {
  const kind = kindOf(type);
  const implemented =
    isObjectType(type) && type.getInterfaces().length > 0
      ? `<p>Implements ${type
          .getInterfaces()
          .map((i) => typeLink(i))
          .join(", ")}.</p>`
      : "";
  const typePermission =
    (isObjectType(type) && (type.extensions?.permission as Permission | undefined)) || undefined;
  const note = typePermission
    ? `<p class="type-permission">Every field but <code>id</code> needs ${permissionBadge(typePermission)}.</p>`
    : "";
  const name = escapeHtml(type.name);
  return `<section class="type" id="${name}" data-type="${name}" data-search="${escapeHtml(
    type.name.toLowerCase(),
  )}"><h2><span class="kind">${kind}</span> <a href="#${name}">${name}</a></h2><p>${describe(
    type.description,
  )}</p>${implemented}${note}${fieldsSection(type)}</section>`;
}

/** Every deprecated field, argument, input field and enum value with its announced removal date. */
export function deprecations(schema: GraphQLSchema): Deprecation[] {
  const found: Deprecation[] = [];
  const add = (coordinate: string, reason: string | null | undefined) => {
    if (reason) found.push({ coordinate, reason, removalDate: removalDate(reason) });
  };
  for (const type of documentedTypes(schema)) {
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        add(`${type.name}.${field.name}`, field.deprecationReason);
        for (const arg of field.args) add(`${type.name}.${field.name}.${arg.name}`, arg.deprecationReason);
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields()))
        add(`${type.name}.${field.name}`, field.deprecationReason);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) add(`${type.name}.${value.name}`, value.deprecationReason);
    }
  }
  return found.sort((a, b) => (a.removalDate ?? "9999").localeCompare(b.removalDate ?? "9999"));
}

/** The field reference page, generated from the live schema. */
export function referencePage(
  schema: GraphQLSchema,
  { version, versions }: { version: string; versions: readonly string[] },
): string {
  const types = documentedTypes(schema);
  const index = types
    .map(
      (t) =>
        `<li data-search="${escapeHtml(t.name.toLowerCase())}"><a href="#${escapeHtml(t.name)}">${escapeHtml(
          t.name,
        )}</a> <span class="kind">${kindOf(t)}</span></li>`,
    )
    .join("");
  const versionLinks = [...versions]
    .reverse()
    .map((name, index) => {
      const label = index === 0 ? `${name} (newest)` : name;
      const href = `/graphql/reference/?version=${name}`;
      return name === version
        ? `<li><a href="${href}" aria-current="page">${label}</a></li>`
        : `<li><a href="${href}">${label}</a></li>`;
    })
    .join("");
  const body = `<h1>GraphQL API reference</h1>
<nav class="api-versions" aria-label="API versions"><p>API version ${escapeHtml(version)}; choose another:</p><ul>${versionLinks}</ul></nav>
<p>Every type and field of <code>POST /api/graphql</code>, generated from the running schema. Each field shows the
permission an app needs to read it, or <span class="permission public">public</span> when it needs none (a
project's public fields are visible to anyone for a published project), or <span class="permission public">as its
parent</span> for a value inside another object (a venue, a price), as visible as the field that returned it. Its
description ends with the same rule, as <code>schema.graphql</code> does. Start with the
<a href="/graphql/reference/guides/getting-started">getting-started guide</a>, try queries in the
<a href="/graphql/explorer/">explorer</a>, and see the <a href="/graphql/reference/changelog">changelog</a> for
changes and deprecations, and the <a href="/graphql/reference/guides/versioning">versioning guide</a> for what
each version changed. Send <code>Eventgraph-Version: ${escapeHtml(version)}</code> to be answered in this version.
The schema as SDL: <a href="/graphql/reference/schema.graphql?version=${escapeHtml(version)}">schema.graphql</a>.
Every mutation may carry an <code>Idempotency-Key</code> header, so that a retry never runs it twice: see the
<a href="/graphql/reference/guides/idempotency">idempotency guide</a>.</p>
<div class="reference">
<aside class="type-index"><label for="reference-search">Search types and fields</label>
<input id="reference-search" type="search" placeholder="e.g. attendee or email" autocomplete="off">
<ul>${index}</ul></aside>
<div class="types">${types.map(typeSection).join("\n")}</div>
</div>`;
  return docsPage({
    title: "Reference",
    body,
    current: "/graphql/reference/",
    scripts: ["/graphql/reference/assets/reference.js"],
  });
}
