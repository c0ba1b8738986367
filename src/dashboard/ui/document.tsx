import type { ComponentChildren } from "preact";

/**
 * The HTML document around every page, the dashboard's and the event site's: its language, the
 * viewport phones need, and the skip link to the page's `<main id="main">`.
 */
export function HtmlDocument(props: {
  title: string;
  head: ComponentChildren;
  children: ComponentChildren;
  /** The page's language (the event site's follow the visitor's); English unless told. */
  lang?: string;
  /** The skip link's words in that language. */
  skipLabel?: string;
}) {
  return (
    <html lang={props.lang ?? "en"}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title}</title>
        {props.head}
      </head>
      <body>
        <a class="skip-link" href="#main">
          {props.skipLabel ?? "Skip to content"}
        </a>
        {props.children}
      </body>
    </html>
  );
}
