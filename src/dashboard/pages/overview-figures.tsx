import type { ProjectStatus } from "../../db/schema.js";
import type { ProjectOverview } from "../../modules/overview/overview.service.js";
import { formatMoney } from "../../shared/money.js";
import { BarChart } from "../ui/charts.js";
import { EmptyState } from "../ui/components.js";
import { Form, SubmitButton } from "../ui/forms.js";
import { statusActions, statusText } from "./settings.js";

function moneyText(amounts: ProjectOverview["paid"]): string {
  return amounts.length === 0 ? "—" : amounts.map((r) => formatMoney(r.minor, r.currency)).join(" · ");
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "—" : `${Math.round((part / whole) * 100)}%`;
}

/**
 * Publish / Unpublish / Archive on the Overview (the same form and rules as Settings › General),
 * beside the link to the public event page while visitors can see it.
 */
export function StatusButtons(props: {
  projectId: string;
  status: ProjectStatus;
  csrf: string;
  pageEnabled: boolean;
}) {
  const pageOpen = props.status === "PUBLISHED" && props.pageEnabled;
  return (
    <section class="panel" aria-labelledby="overview-status-heading">
      <h2 id="overview-status-heading">Status</h2>
      <p>{statusText[props.status]}</p>
      <Form
        action={`/b/${props.projectId}/settings/status`}
        csrf={props.csrf}
        label="Status"
        class="button-row"
      >
        <input type="hidden" name="from" value="overview" />
        {statusActions[props.status].map((action) => (
          <SubmitButton name="status" value={action.status} variant={action.variant}>
            {action.label}
          </SubmitButton>
        ))}
        {pageOpen ? (
          <a class="button button-secondary" href={`/e/${props.projectId}`}>
            View event page
          </a>
        ) : null}
      </Form>
    </section>
  );
}

/** "How is my event doing": registrations against capacity, sales, revenue, check-in and charts. */
export function OverviewFigures(props: {
  overview: ProjectOverview;
  timezone: string;
  ticketsPath: string;
  /** The door counts' live stream, for an organizer who may check in (dashboard.js follows it). */
  liveUrl: string | undefined;
}) {
  const o = props.overview;
  return (
    <section aria-labelledby="figures-heading" class="overview-figures">
      <h2 id="figures-heading">How the event is doing</h2>
      <dl class="stats">
        <div class="stat">
          <dt>Registrations</dt>
          <dd>
            {o.registered} <span class="muted">of {o.capacity}</span>
          </dd>
        </div>
        <div class="stat">
          <dt>Ticket types on sale now</dt>
          <dd>{o.onSaleNow}</dd>
        </div>
        <div class="stat">
          <dt>Paid</dt>
          <dd>{moneyText(o.paid)}</dd>
        </div>
        <div class="stat">
          <dt>Still to be paid</dt>
          <dd>
            {moneyText(o.due)}
            {o.dueAtDoor + o.dueByInvoice > 0 ? (
              <span class="stat-note muted">
                {[
                  o.dueAtDoor > 0 ? `${o.dueAtDoor} at the door` : "",
                  o.dueByInvoice > 0 ? `${o.dueByInvoice} by invoice` : "",
                ]
                  .filter(Boolean)
                  .join(" · ")}
              </span>
            ) : null}
          </dd>
        </div>
        {o.orders ? (
          <>
            <div class="stat">
              <dt>Paid orders (net of refunds)</dt>
              <dd>
                {o.orders.paid} <span class="muted">{moneyText(o.orders.paidAmounts)}</span>
              </dd>
            </div>
            <div class="stat">
              <dt>Orders awaiting payment</dt>
              <dd>
                {o.orders.pending} <span class="muted">{moneyText(o.orders.pendingAmounts)}</span>
              </dd>
            </div>
          </>
        ) : null}
        <div class="stat" data-live-counts={props.liveUrl}>
          <dt>Checked in</dt>
          <dd>
            <span data-live-percent>{percent(o.checkedIn, o.registered)}</span>{" "}
            <span class="muted">
              (<span data-live-checked-in>{o.checkedIn}</span> of{" "}
              <span data-live-registered>{o.registered}</span>)
            </span>
          </dd>
        </div>
      </dl>
      {o.ticketTypes.length === 0 ? (
        <EmptyState title="No ticket types yet">
          <p>
            <a href={props.ticketsPath}>Create a ticket type</a> to start taking registrations.
          </p>
        </EmptyState>
      ) : (
        <ul class="capacity-list" aria-label="Registrations per ticket type">
          {o.ticketTypes.map((t) => (
            <li>
              <div class="capacity-head">
                <span>
                  {t.name}
                  {t.onSaleNow ? <span class="muted"> · on sale</span> : null}
                </span>
                <span class="muted">
                  {t.sold} / {t.quantity}
                </span>
              </div>
              <meter
                min={0}
                max={Math.max(1, t.quantity)}
                value={t.sold}
                aria-label={`${t.name}: ${t.sold} of ${t.quantity} sold`}
              />
            </li>
          ))}
        </ul>
      )}
      {o.registrationsOverTime.length > 0 ? (
        <BarChart
          id="chart-registrations"
          title={`Registrations over time (total per day, ${props.timezone})`}
          summary={`${o.registered} registered now; ${o.registrationsOverTime.at(-1)?.value ?? 0} registrations so far, from ${o.registrationsOverTime[0]?.label} to ${o.registrationsOverTime.at(-1)?.label}.`}
          points={o.registrationsOverTime}
          unit="registrations"
        />
      ) : null}
      {o.checkInDays.map((day) => (
        <BarChart
          id={`chart-checkins-${day.day}`}
          title={`Check-ins per 15 minutes on ${day.day} (${props.timezone})`}
          summary={`${day.points.reduce((s, p) => s + p.value, 0)} check-ins between ${day.points[0]?.label} and ${day.points.at(-1)?.label}.`}
          points={day.points}
          unit="check-ins"
        />
      ))}
    </section>
  );
}
