import { Readable } from "node:stream";
import { stringify } from "csv-stringify";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, ErrorCode } from "../../errors.js";
import type { AuditFilterInput } from "../../modules/audit/audit.service.js";
import type { AuditEntry } from "../../modules/audit/audit.visibility.js";
import type { Project } from "../../modules/projects/projects.service.js";
import { formatMoney } from "../../shared/money.js";
import { actorOf, type PageContext, pageContext } from "../context.js";
import { formatDateTime, fromLocalInput } from "../time.js";
import { Badge, DataTable, EmptyState, Notice } from "../ui/components.js";
import { Options } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { SettingsPage } from "./settings.js";

/** The filter as the page's query string carries it (dates are days in the project's zone). */
interface FilterQuery {
  actor: string;
  action: string;
  from: string;
  to: string;
}

type AuditRequest = FastifyRequest<{
  Params: { projectId: string };
  Querystring: Record<string, string | string[] | undefined>;
}>;

const text = (value: unknown, max = 100): string =>
  typeof value === "string" ? value.trim().slice(0, max) : "";

function readQuery(request: AuditRequest): FilterQuery & { after: string; before: string } {
  const q = request.query;
  return {
    actor: text(q.actor),
    action: text(q.action),
    from: text(q.from, 10),
    to: text(q.to, 10),
    after: text(q.after, 400),
    before: text(q.before, 400),
  };
}

// A day picked in the filter is a whole day in the event's zone: "to" includes its last minute.
function dayStart(day: string, timeZone: string, field: string): string | undefined {
  if (day === "") return undefined;
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(day) ? fromLocalInput(`${day}T00:00`, timeZone) : undefined;
  if (!iso) throw new AppError(ErrorCode.BAD_USER_INPUT, `${field} must be a date (YYYY-MM-DD)`);
  return iso;
}

function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

function serviceFilter(query: FilterQuery, timeZone: string): AuditFilterInput {
  return {
    actor: query.actor || undefined,
    action: query.action || undefined,
    from: dayStart(query.from, timeZone, "From"),
    to: query.to === "" ? undefined : dayStart(nextDay(query.to), timeZone, "To"),
  };
}

type Change = AuditEntry["changes"][number];

// An amount reads as money (€99.00, not 9900); an emptied or empty value as a dash.
function shown(change: Change, value: string | null): string {
  if (value === null || value === "") return "—";
  if (change.currency && /^-?\d+$/.test(value)) return formatMoney(Number(value), change.currency);
  return value;
}

function Changes(props: { entry: AuditEntry }) {
  if (props.entry.changes.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="audit-changes">
      {props.entry.changes.map((c) => (
        <li>
          <code>{c.field}</code>
          {c.before !== undefined ? (
            <span class="audit-value">
              {": "}
              <del>{shown(c, c.before)}</del>
              {" → "}
              <ins>{shown(c, c.value)}</ins>
            </span>
          ) : c.value === null ? null : (
            <span class="audit-value">{`: ${shown(c, c.value)}`}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

function AuditLogPage(props: {
  ctx: PageContext;
  project: Project;
  query: FilterQuery;
  actors: { value: string; label: string }[];
  entries: AuditEntry[];
  total: number;
  newer: string | null;
  older: string | null;
  error?: string;
}) {
  const { project, query } = props;
  const base = `/b/${project.id}/settings/audit`;
  const filterParams = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== ""));
  const link = (extra: Record<string, string>) =>
    `${base}?${new URLSearchParams({ ...Object.fromEntries(filterParams), ...extra })}`;
  const csv = `${base}.csv${filterParams.size > 0 ? `?${filterParams}` : ""}`;
  return (
    <SettingsPage ctx={props.ctx} project={project} tab="audit">
      <section aria-labelledby="audit-heading">
        <h3 id="audit-heading">Audit log</h3>
        <p class="muted">
          Every change by your team, the operator and apps, kept for a limited time. Times are in the event's
          zone ({project.timezone}).
        </p>
        <form method="get" action={base} class="search-form audit-filter" aria-label="Filter the audit log">
          <div class="field">
            <label for="audit-actor">Actor</label>
            <select id="audit-actor" name="actor">
              <option value="">Anyone</option>
              {/* A chosen actor older than the recent entries the list comes from stays selectable. */}
              {query.actor && !props.actors.some((a) => a.value === query.actor) ? (
                <option value={query.actor} selected>
                  {query.actor}
                </option>
              ) : null}
              <Options options={props.actors} selected={query.actor} />
            </select>
          </div>
          <div class="field">
            <label for="audit-action">Action</label>
            <input
              id="audit-action"
              name="action"
              type="search"
              value={query.action}
              placeholder="session.updated or session."
              maxlength={80}
            />
          </div>
          <div class="field field-narrow">
            <label for="audit-from">From</label>
            <input id="audit-from" name="from" type="date" value={query.from} />
          </div>
          <div class="field field-narrow">
            <label for="audit-to">To</label>
            <input id="audit-to" name="to" type="date" value={query.to} />
          </div>
          <button type="submit" class="button button-secondary">
            Filter
          </button>
        </form>
        {props.error ? <Notice kind="error">{props.error}</Notice> : null}
        <p>
          <a class="button button-secondary" href={csv} download>
            Export CSV
          </a>{" "}
          <span class="muted">{`${props.total} ${props.total === 1 ? "entry" : "entries"}`}</span>
        </p>
        {props.entries.length === 0 ? (
          <EmptyState title="No entries">
            <p>Nothing recorded matches this filter.</p>
          </EmptyState>
        ) : (
          <DataTable caption="Audit log" class="audit-table" columns={["When", "Who", "Action", "Changes"]}>
            {props.entries.map((e) => (
              <tr>
                <td class="muted">
                  <time datetime={e.occurredAt}>{formatDateTime(e.occurredAt, project.timezone)}</time>
                </td>
                <td>
                  <strong class="audit-actor">{e.actor.label}</strong>
                  <div class="muted small">
                    {e.actor.kind === "app" ? <Badge tone="neutral">app</Badge> : null}
                    {` ${e.via}`}
                    {e.ip ? ` · ${e.ip}` : ""}
                    {e.actor.linkId ? ` · link ${e.actor.linkId.slice(0, 8)}` : ""}
                  </div>
                </td>
                <td>
                  <code>{e.action}</code>
                  <div class="muted small audit-object">{`${e.object.type} ${e.object.id}`}</div>
                </td>
                <td>
                  <Changes entry={e} />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
        <nav class="button-row" aria-label="Audit log pages">
          {props.newer ? <a href={link({ before: props.newer })}>Newer entries</a> : null}
          {props.older ? <a href={link({ after: props.older })}>Older entries</a> : null}
        </nav>
      </section>
    </SettingsPage>
  );
}

/** Settings → Audit log: the filtered, paged log of a project and its CSV export (`audit:read`). */
export function registerAuditLogPages(app: FastifyInstance): void {
  const { services } = app;

  app.get("/b/:projectId/settings/audit", async (request: AuditRequest, reply) => {
    const actor = actorOf(request);
    const access = await services.access.require(actor, request.params.projectId);
    const project = await services.projects.get(actor, access.projectId);
    const ctx = pageContext(request, reply);
    if (!access.permissions.has("audit:read")) {
      return sendPage(
        reply,
        <SettingsPage ctx={ctx} project={project} tab="audit">
          <Notice kind="info">Only the project's owners and admins can see the audit log.</Notice>
        </SettingsPage>,
        403,
      );
    }
    const query = readQuery(request);
    const actors = await services.audit.actors(actor, project.id);
    const shown = { actor: query.actor, action: query.action, from: query.from, to: query.to };
    const show = (
      list: Pick<Parameters<typeof AuditLogPage>[0], "entries" | "total" | "newer" | "older" | "error">,
      status?: number,
    ) =>
      sendPage(
        reply,
        <AuditLogPage ctx={ctx} project={project} query={shown} actors={actors} {...list} />,
        status,
      );
    try {
      const filter = serviceFilter(shown, project.timezone);
      const page = await services.audit.list(actor, project.id, filter, {
        first: query.before ? null : 50,
        last: query.before ? 50 : null,
        after: query.after || null,
        before: query.before || null,
      });
      return show({
        entries: page.items,
        total: await page.totalCount(),
        newer: page.hasPreviousPage ? page.startCursor : null,
        older: page.hasNextPage ? page.endCursor : null,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== ErrorCode.BAD_USER_INPUT) throw error;
      const detail = error.details.fieldErrors?.map((f) => `${f.field.join(".")} ${f.message}`).join("; ");
      return show({ entries: [], total: 0, newer: null, older: null, error: detail || error.message }, 400);
    }
  });

  app.get("/b/:projectId/settings/audit.csv", async (request: AuditRequest, reply) => {
    const actor = actorOf(request);
    const project = await services.projects.get(actor, request.params.projectId);
    const query = readQuery(request);
    const rows = services.audit.exportCsvRows(actor, project.id, serviceFilter(query, project.timezone));
    // The first row (the header) is read before answering, so a refusal is a proper error page.
    const first = await rows.next();
    const body = Readable.from(
      (async function* () {
        if (!first.done) yield first.value;
        yield* rows;
      })(),
    ).pipe(stringify());
    const day = new Date().toISOString().slice(0, 10);
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="audit-${project.id}-${day}.csv"`)
      .header("cache-control", "no-store")
      .send(body);
  });
}
