import type { ComponentChildren } from "preact";

/** A one-off message shown at the top of the next page (after a redirect). */
export interface Flash {
  kind: "success" | "error" | "info";
  text: string;
}

/** A success, error or info banner; errors are announced to screen readers at once. */
export function Notice(props: { kind: Flash["kind"]; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${props.kind}`} role={props.kind === "error" ? "alert" : "status"}>
      {props.children}
    </div>
  );
}

/** A few labelled facts (`dl.facts`), each term above its value: `[term, value]` pairs. */
export function Facts(props: { items: readonly (readonly [string, ComponentChildren])[] }) {
  return (
    <dl class="facts">
      {props.items.map(([term, value]) => (
        <div>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** What a list shows when it has nothing yet, with the action that fills it. */
export function EmptyState(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{props.title}</p>
      {props.children}
    </div>
  );
}

/** One tab of a `Tabs` bar: a link to its own page. */
export interface TabLink {
  id: string;
  label: string;
  href: string;
  /** A count that asks for attention (e.g. apps waiting for approval), shown after the label. */
  count?: number | undefined;
}

/**
 * Tabs as links (each tab is its own URL, so it works without script and can be bookmarked), with
 * the ARIA tab roles so assistive technology announces them as tabs; `TabPanel` is the content.
 */
export function Tabs(props: { label: string; tabs: readonly TabLink[]; current: string }) {
  return (
    <div class="tabs" role="tablist" aria-label={props.label}>
      {props.tabs.map((tab) => {
        const selected = tab.id === props.current;
        return (
          <a
            id={`tab-${tab.id}`}
            role="tab"
            href={tab.href}
            aria-selected={selected ? "true" : "false"}
            aria-controls={selected ? `panel-${tab.id}` : undefined}
            tabIndex={selected ? 0 : -1}
            class={selected ? "tab tab-current" : "tab"}
          >
            {tab.label}
            {tab.count ? <CountBadge count={tab.count} /> : null}
          </a>
        );
      })}
    </div>
  );
}

/** A small count after a link's label; its text says what it counts for screen readers. */
export function CountBadge(props: { count: number }) {
  return (
    <span class="count-badge" title={`${props.count} waiting for approval`}>
      {props.count}
      <span class="visually-hidden"> waiting for approval</span>
    </span>
  );
}

/** The content of the selected tab, labelled by it. */
export function TabPanel(props: { id: string; children: ComponentChildren }) {
  return (
    <section id={`panel-${props.id}`} role="tabpanel" aria-labelledby={`tab-${props.id}`} class="tabpanel">
      {props.children}
    </section>
  );
}

/** A modal dialog rendered open by the server (e.g. a secret shown once); its actions close it. */
export function Dialog(props: { id: string; title: string; children: ComponentChildren }) {
  return (
    <div class="dialog-backdrop">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby={`${props.id}-title`} id={props.id}>
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        {props.children}
      </div>
    </div>
  );
}

/** A small coloured label for a status value. */
export function Badge(props: {
  tone?: "neutral" | "success" | "warning" | "danger";
  children: ComponentChildren;
}) {
  return <span class={`badge badge-${props.tone ?? "neutral"}`}>{props.children}</span>;
}

/**
 * A column heading of a `DataTable`: its text; `numeric` right-aligns a column of numbers; `hidden`
 * says it to screen readers only (a column of buttons or checkboxes needs a name, not a label).
 */
export type TableColumn = string | { label: string; numeric?: boolean; hidden?: boolean };

/**
 * The dashboard's table: in its own frame that scrolls sideways on a phone (the page does not),
 * with a caption, visually hidden unless `showCaption` (the page's heading usually says it already),
 * and one row of column headings; a null column is left out. `children` are the body's rows.
 */
export function DataTable(props: {
  caption: ComponentChildren;
  showCaption?: boolean;
  /** A class of the table itself, for a page's own column widths. */
  class?: string;
  columns: readonly (TableColumn | null)[];
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class={props.class}>
        <caption class={props.showCaption ? undefined : "visually-hidden"}>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) =>
              column === null ? null : typeof column === "string" ? (
                <th scope="col">{column}</th>
              ) : (
                <th scope="col" class={column.numeric ? "num" : undefined}>
                  {column.hidden ? <span class="visually-hidden">{column.label}</span> : column.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
