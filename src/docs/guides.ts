import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Marked } from "marked";
import { docsPage, escapeHtml } from "./layout.js";

/** A guide under docs/guides/: `01-getting-started.md` is served as `getting-started`. */
export interface Guide {
  slug: string;
  title: string;
  html: string;
}

// Links between guides are written as relative `.md` files so they also work when browsing the
// repository; served, they point at the guide's page.
const marked = new Marked({
  gfm: true,
  walkTokens(token) {
    if (token.type === "link" && /^(\.\/)?[\w-]+\.md(#.*)?$/.test(token.href)) {
      const [file = "", anchor] = token.href.replace(/^\.\//, "").split("#");
      token.href = `/graphql/reference/guides/${slugOf(file)}${anchor ? `#${anchor}` : ""}`;
    }
  },
});

function slugOf(file: string): string {
  return file.replace(/\.md$/, "").replace(/^\d+-/, "");
}

/** Reads and renders every guide once, in file-name order (the numeric prefix orders them). */
export function loadGuides(directory: string): Guide[] {
  return readdirSync(directory)
    .filter((file) => file.endsWith(".md"))
    .sort()
    .map((file) => {
      const markdown = readFileSync(join(directory, file), "utf8");
      const title = markdown.match(/^# (.+)$/m)?.[1] ?? slugOf(file);
      return { slug: slugOf(file), title, html: marked.parse(markdown, { async: false }) };
    });
}

/** The guide index page. */
export function guidesIndexPage(guides: Guide[]): string {
  const items = guides
    .map((g) => `<li><a href="/graphql/reference/guides/${g.slug}">${escapeHtml(g.title)}</a></li>`)
    .join("");
  return docsPage({
    title: "Guides",
    current: "/graphql/reference/guides/",
    body: `<h1>Guides</h1><ul class="guide-list">${items}</ul>`,
  });
}

/** One guide's page, with the list of guides beside it. */
export function guidePage(guide: Guide, guides: Guide[]): string {
  const nav = guides
    .map(
      (g) =>
        `<li><a href="/graphql/reference/guides/${g.slug}"${g.slug === guide.slug ? ' aria-current="page"' : ""}>${escapeHtml(g.title)}</a></li>`,
    )
    .join("");
  return docsPage({
    title: guide.title,
    current: "/graphql/reference/guides/",
    body: `<div class="guide"><aside class="guide-nav"><ul>${nav}</ul></aside><article class="prose">${guide.html}</article></div>`,
  });
}
