import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ComponentChildren } from "preact";
import { HtmlDocument } from "../dashboard/ui/document.js";
import { translator } from "../shared/i18n/translator.js";
import { languageLinks, type PageLanguage } from "./page-language.js";

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

/** English, for a page of no event (its languages unknown) and the pages not yet translated. */
const english: PageLanguage = { words: translator("en"), languages: ["en"] };

/** The language switcher: plain links to this page in each of the event's languages (no script). */
function LanguageSwitcher(props: { lang: PageLanguage; path: string }) {
  const links = languageLinks(props.path, props.lang);
  if (links.length === 0) return null;
  return (
    <nav class="languages" aria-label={props.lang.words.t("site.language")}>
      <ul>
        {links.map((link) => (
          <li>
            <a
              href={link.href}
              hreflang={link.language}
              lang={link.language}
              aria-current={link.current ? "true" : undefined}
            >
              {link.name}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * The frame of every public page: no script, one stylesheet, a main landmark, in the page's language
 * (`lang`, English unless told) with a switcher to this page (`path`) in the event's other languages.
 */
export function SiteLayout(props: {
  meta: PageMeta;
  eventName?: string;
  eventHref?: string;
  lang?: PageLanguage;
  path?: string;
  children: ComponentChildren;
}) {
  const { meta } = props;
  const lang = props.lang ?? english;
  return (
    <HtmlDocument
      title={meta.title}
      lang={lang.words.language}
      skipLabel={lang.words.t("site.skip")}
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
          {props.path ? <LanguageSwitcher lang={lang} path={props.path} /> : null}
        </div>
      </header>
      <main id="main" class="wrap">
        {props.children}
      </main>
      <footer class="site-footer">
        <div class="wrap">{lang.words.t("site.footer")}</div>
      </footer>
    </HtmlDocument>
  );
}

/** The one page for a missing, draft, archived or switched-off event: nothing tells them apart. */
export function NotFoundPage(props: { url: string; lang?: PageLanguage }) {
  const { t } = (props.lang ?? english).words;
  return (
    <SiteLayout
      meta={{
        title: t("notFound.title"),
        description: t("notFound.description"),
        url: props.url,
        noindex: true,
      }}
      lang={props.lang}
    >
      <h1>{t("notFound.title")}</h1>
      <p>{t("notFound.body")}</p>
    </SiteLayout>
  );
}

/** A short message page (errors, "check your inbox"). */
export function MessagePage(props: {
  title: string;
  url: string;
  eventName?: string;
  eventHref?: string;
  lang?: PageLanguage;
  path?: string;
  children: ComponentChildren;
}) {
  return (
    <SiteLayout
      meta={{ title: props.title, description: props.title, url: props.url, noindex: true }}
      eventName={props.eventName}
      eventHref={props.eventHref}
      lang={props.lang}
      path={props.path}
    >
      <h1>{props.title}</h1>
      {props.children}
    </SiteLayout>
  );
}
