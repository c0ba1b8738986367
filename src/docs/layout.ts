/** HTML-escapes text for element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** Escapes a schema description and shows its `backticked` parts as code. */
export function describe(text: string | null | undefined): string {
  if (!text) return "";
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

const navigation = [
  { href: "/graphql/reference/", label: "Reference" },
  { href: "/graphql/reference/guides/", label: "Guides" },
  { href: "/graphql/reference/changelog", label: "Changelog" },
  { href: "/graphql/explorer/", label: "Explorer" },
];

/** A documentation page: the shared header and navigation around `body`. */
export function docsPage(options: {
  title: string;
  body: string;
  current: string;
  scripts?: string[];
  styles?: string[];
  /** A class on <body>, for pages laid out differently (the explorer fills the window). */
  bodyClass?: string;
}): string {
  const nav = navigation
    .map(
      (item) =>
        `<a href="${item.href}"${item.href === options.current ? ' aria-current="page"' : ""}>${item.label}</a>`,
    )
    .join("");
  const styles = ["/graphql/reference/assets/docs.css", ...(options.styles ?? [])]
    .map((href) => `<link rel="stylesheet" href="${href}">`)
    .join("");
  const scripts = (options.scripts ?? [])
    .map((src) => `<script type="module" src="${src}"></script>`)
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)} · Eventgraph API</title>
${styles}${scripts}
</head>
<body${options.bodyClass ? ` class="${escapeHtml(options.bodyClass)}"` : ""}>
<header class="docs-header"><a class="brand" href="/">Eventgraph</a><nav aria-label="Documentation">${nav}</nav></header>
<main class="docs-main">
${options.body}
</main>
</body>
</html>
`;
}
