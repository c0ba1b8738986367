import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ComponentChildren } from "preact";
import { HtmlDocument } from "../dashboard/ui/document.js";

// The stylesheet lives in src/event-site/assets; compiled code runs from dist/src/event-site, which
// has no copy (tsc copies no CSS), so the source folder is found from either place.
const candidates = [
  new URL("./assets/", import.meta.url),
  new URL("../../../src/event-site/assets/", import.meta.url),
].map((url) => fileURLToPath(url));
const folder = candidates.find((dir) => existsSync(`${dir}event.css`)) ?? candidates[0];

/** The event site's only asset: its stylesheet, versioned by content so browsers keep it a year. */
export const stylesheet = (() => {
  const body = readFileSync(`${folder}event.css`);
  const version = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { body, path: `/e/assets/event.css?v=${version}` };
})();

/** What a page puts in its head for link previews (Open Graph, Twitter cards) and search engines. */
export interface PageMeta {
  title: string;
  description: string;
  /** The canonical absolute URL of the page. */
  url: string;
  /** Inline JSON-LD, already escaped for a script element (see `inlineJson`). */
  jsonLd?: string;
  /** Keep the page out of search engines (a manage link's page). */
  noindex?: boolean;
}

/** The frame of every public page: no script, one stylesheet, a main landmark. */
export function SiteLayout(props: {
  meta: PageMeta;
  eventName?: string;
  eventHref?: string;
  children: ComponentChildren;
}) {
  const { meta } = props;
  return (
    <HtmlDocument
      title={meta.title}
      head={
        <>
          <meta name="description" content={meta.description} />
          {meta.noindex ? (
            <meta name="robots" content="noindex, nofollow" />
          ) : (
            <link rel="canonical" href={meta.url} />
          )}
          <meta property="og:type" content="website" />
          <meta property="og:site_name" content="Eventgraph" />
          <meta property="og:title" content={meta.title} />
          <meta property="og:description" content={meta.description} />
          <meta property="og:url" content={meta.url} />
          <meta name="twitter:card" content="summary" />
          <meta name="twitter:title" content={meta.title} />
          <meta name="twitter:description" content={meta.description} />
          <link rel="stylesheet" href={stylesheet.path} />
          {meta.jsonLd ? (
            // Raw JSON, as JSON-LD must be: inlineJson escapes <, > and & so organizer text cannot close the element.
            <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: meta.jsonLd }} />
          ) : null}
        </>
      }
    >
      <header class="site-header">
        <div class="wrap">
          {props.eventName && props.eventHref ? (
            <a class="event-link" href={props.eventHref}>
              {props.eventName}
            </a>
          ) : (
            <span class="event-link">Eventgraph</span>
          )}
        </div>
      </header>
      <main id="main" class="wrap">
        {props.children}
      </main>
      <footer class="site-footer">
        <div class="wrap">Event page by Eventgraph</div>
      </footer>
    </HtmlDocument>
  );
}

/** The one page for a missing, draft, archived or switched-off event: nothing tells them apart. */
export function NotFoundPage(props: { url: string }) {
  return (
    <SiteLayout
      meta={{
        title: "Page not found",
        description: "This page does not exist.",
        url: props.url,
        noindex: true,
      }}
    >
      <h1>Page not found</h1>
      <p>There is no public event at this address. Check the link you were given.</p>
    </SiteLayout>
  );
}

/** A short message page (errors, "check your inbox"). */
export function MessagePage(props: {
  title: string;
  url: string;
  eventName?: string;
  eventHref?: string;
  children: ComponentChildren;
}) {
  return (
    <SiteLayout
      meta={{ title: props.title, description: props.title, url: props.url, noindex: true }}
      eventName={props.eventName}
      eventHref={props.eventHref}
    >
      <h1>{props.title}</h1>
      {props.children}
    </SiteLayout>
  );
}
