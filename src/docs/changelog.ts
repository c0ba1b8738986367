import { describe, docsPage, escapeHtml } from "./layout.js";
import type { Deprecation } from "./reference.js";
import type { ChangelogEntry } from "./schema-history.js";

function deprecationTable(list: Deprecation[]): string {
  if (list.length === 0) return "<p>Nothing is deprecated at the moment.</p>";
  const rows = list
    .map(
      (d) =>
        `<tr data-deprecated="${escapeHtml(d.coordinate)}"><td><a href="/graphql/reference/#${escapeHtml(
          d.coordinate,
        )}"><code>${escapeHtml(d.coordinate)}</code></a></td><td>${escapeHtml(
          d.removalDate ?? "not announced",
        )}</td><td>${describe(d.reason)}</td></tr>`,
    )
    .join("");
  return `<table><thead><tr><th>Element</th><th>Removal after</th><th>Reason</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function entries(changelog: ChangelogEntry[] | undefined): string {
  if (!changelog) {
    return "<p>This copy was built without its git history, so its changelog could not be generated. <code>npm run build</code> generates it from the history of <code>schema.graphql</code> in a clone of the source repository.</p>";
  }
  return changelog
    .map((entry) => {
      const items = entry.changes
        .map(
          (c) =>
            `<li class="change ${c.criticality.toLowerCase()}"><span class="criticality">${c.criticality.replace(
              "_",
              "-",
            )}</span> ${describe(c.message.replaceAll("'", "`"))}</li>`,
        )
        .join("");
      return `<section class="changelog-entry"><h3>${escapeHtml(entry.date.slice(0, 10))} <code>${escapeHtml(
        entry.commit.slice(0, 10),
      )}</code></h3><p>${escapeHtml(entry.subject)}</p><ul>${items}</ul></section>`;
    })
    .join("");
}

/** The changelog page: deprecations with their removal dates, then every schema change, newest first. */
export function changelogPage(changelog: ChangelogEntry[] | undefined, deprecated: Deprecation[]): string {
  return docsPage({
    title: "Changelog",
    current: "/graphql/reference/changelog",
    body: `<h1>Schema changelog</h1>
<p>One evolving schema, changed additively. Anything to be removed is first marked <code>@deprecated</code> with
the date after which it may go; see the <a href="/graphql/reference/guides/versioning">versioning policy</a>.</p>
<h2 id="deprecations">Deprecated, with removal dates</h2>${deprecationTable(deprecated)}
<h2 id="changes">Changes</h2>${entries(changelog)}`,
  });
}
