import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { CheckIn, DoorCount, DoorResult } from "../../modules/checkins/checkins.service.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import { bundlePath } from "../assets.js";
import type { PageContext } from "../context.js";
import { formatTimeWithZone } from "../time.js";
import { Badge, EmptyState } from "../ui/components.js";
import { Form } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { AttendeeSearchField } from "./attendees-list.js";
import type { ProjectPageData } from "./project-page.js";

/** The door's counter: checked in / expected, in total and per ticket type (named). */
export interface DoorCounts {
  checkedIn: number;
  expected: number;
  types: { name: string; checkedIn: number; expected: number }[];
}

/** Names the counts of the service with the project's ticket types, in the ticket types' order. */
export function doorCounts(counts: DoorCount[], ticketTypes: TicketType[]): DoorCounts {
  const byType = new Map(counts.map((c) => [c.ticketTypeId, c]));
  const types = ticketTypes
    .map((t) => ({ name: t.name, ...(byType.get(t.id) ?? { checkedIn: 0, expected: 0 }) }))
    .filter((t) => t.expected > 0 || t.checkedIn > 0)
    .map(({ name, checkedIn, expected }) => ({ name, checkedIn, expected }));
  const sum = (key: "checkedIn" | "expected") => counts.reduce((n, c) => n + c[key], 0);
  return { checkedIn: sum("checkedIn"), expected: sum("expected"), types };
}

/** What the person at the door reads: a headline, a detail line, and green (let in) or red. */
export interface DoorAnswer {
  outcome: DoorResult["outcome"];
  ok: boolean;
  title: string;
  detail: string;
}

/** The answer to a scan in words, with the check-in time in the project's zone ("09:12 CET"). */
export function doorAnswer(result: DoorResult, timeZone: string, ticketTypes: TicketType[]): DoorAnswer {
  const a = result.attendee;
  const ticket = a ? ticketTypes.find((t) => t.id === a.ticketTypeId)?.name : undefined;
  const who = a ? [a.name, ticket].filter(Boolean).join(" · ") : "";
  switch (result.outcome) {
    case "CHECKED_IN":
      return { outcome: result.outcome, ok: true, title: "Checked in", detail: who };
    case "ALREADY_CHECKED_IN": {
      const at = result.checkIn ? formatTimeWithZone(result.checkIn.checkedInAt, timeZone) : "";
      return { outcome: result.outcome, ok: false, title: `Already checked in at ${at}`, detail: who };
    }
    case "CANCELLED":
      return { outcome: result.outcome, ok: false, title: "Registration cancelled", detail: who };
    case "UNPAID":
      return {
        outcome: result.outcome,
        ok: false,
        title: "Not paid: not admitted",
        detail: `${who} · the order awaits payment. Mark it paid in Orders first.`,
      };
    case "OTHER_EVENT":
      return {
        outcome: result.outcome,
        ok: false,
        title: "Ticket for another event",
        detail: "This ticket is not for this event.",
      };
    default:
      return {
        outcome: result.outcome,
        ok: false,
        title: "Unknown ticket code",
        detail: "No ticket has this code. Check it, or search by name.",
      };
  }
}

function Counter(props: { counts: DoorCounts }) {
  const { counts } = props;
  return (
    <section class="panel door-counts" aria-labelledby="door-counts-heading" data-door-counts>
      <h3 id="door-counts-heading">
        Checked in{" "}
        <span class="door-count-total" data-door-total>
          {counts.checkedIn} / {counts.expected}
        </span>
      </h3>
      <ul class="door-count-types" data-door-types>
        {counts.types.map((t) => (
          <li>
            <span>{t.name}</span>{" "}
            <span class="door-count">
              {t.checkedIn} / {t.expected}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function AttendeeCard(props: {
  attendee: Attendee;
  checkIn: CheckIn | undefined;
  ticketName: string;
  base: string;
  query: string;
  csrf: string;
  timeZone: string;
}) {
  const { attendee, checkIn, base, query } = props;
  return (
    <li class="card">
      <div class="card-main">
        <span class="card-title">{attendee.name}</span>
        <p class="muted">
          {attendee.email}
          {attendee.company ? ` · ${attendee.company}` : ""}
        </p>
        <p class="door-card-ticket">
          {props.ticketName}{" "}
          {attendee.status === "CANCELLED" ? (
            <Badge tone="danger">cancelled</Badge>
          ) : checkIn ? (
            <Badge tone="success">Checked in {formatTimeWithZone(checkIn.checkedInAt, props.timeZone)}</Badge>
          ) : (
            <Badge>registered</Badge>
          )}
        </p>
      </div>
      <div class="card-meta">
        {attendee.status === "CANCELLED" ? null : checkIn ? (
          <Form
            action={`${base}/${attendee.id}/undo?q=${encodeURIComponent(query)}`}
            csrf={props.csrf}
            class="inline-form"
          >
            <button
              type="submit"
              class="button button-secondary"
              aria-label={`Undo check-in of ${attendee.name}`}
            >
              Undo
            </button>
          </Form>
        ) : (
          // With script the code goes to /scan like a scan (no reload); without, the form posts here.
          <Form
            action={`${base}/${attendee.id}?q=${encodeURIComponent(query)}`}
            csrf={props.csrf}
            class="inline-form"
            enhance="door"
          >
            <input type="hidden" name="code" value={attendee.ticketCode} />
            <button
              type="submit"
              class="button button-primary door-card-button"
              aria-label={`Check in ${attendee.name}`}
            >
              Check in
            </button>
          </Form>
        )}
      </div>
    </li>
  );
}

/** The check-in desk: scan or type a ticket code, or search by name; a live counter; works without script. */
export function CheckInPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  query: string;
  attendees: Attendee[];
  active: Map<string, CheckIn>;
  ticketTypes: TicketType[];
  counts: DoorCounts;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/check-in`;
  const ticketNames = new Map(props.ticketTypes.map((t) => [t.id, t.name]));
  const script = bundlePath("check-in.js");
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="checkin" title="Check-in">
      <PageHeading title="Check-in" level={2} />
      <div
        class="door"
        data-door={project.id}
        data-counts-url={`${base}/counts`}
        data-live-url={`${base}/live`}
      >
        <div class="door-result" role="status" aria-live="assertive" data-door-result hidden>
          <p class="door-result-title" data-door-title />
          <p class="door-result-detail" data-door-detail />
        </div>
        <div class="door-scan-row">
          <Form
            action={`${base}/scan`}
            csrf={props.ctx.csrf}
            class="door-code-form"
            label="Check in by ticket code"
            enhance="door"
          >
            <div class="field">
              <label for="door-code">Ticket code</label>
              <input
                id="door-code"
                class="door-code-input"
                name="code"
                type="text"
                enterkeyhint="go"
                autocomplete="off"
                autocapitalize="characters"
                spellcheck={false}
                maxlength={64}
                placeholder="7K3M-9QXR-2D4F-HV8N"
              />
            </div>
            <button type="submit" class="button button-secondary">
              Check in code
            </button>
          </Form>
          <button type="button" class="button button-primary door-scan-button" data-door-scan hidden>
            Scan
          </button>
        </div>
        <div class="door-camera" data-door-camera hidden>
          <video muted playsInline aria-label="Camera" />
          <button type="button" class="button button-secondary" data-door-stop>
            Stop camera
          </button>
        </div>
        <div class="door-queue" data-door-queue hidden>
          <p data-door-queue-text />
          <ul class="door-conflicts" aria-label="Scans that need a look" data-door-conflicts />
          <button type="button" class="button button-link" data-door-clear hidden>
            Clear the list
          </button>
        </div>
        <Counter counts={props.counts} />
        <form method="get" action={base} class="search-form">
          <AttendeeSearchField label="Find attendee" value={props.query} autofocus />
          <button type="submit" class="button button-secondary">
            Find
          </button>
        </form>
        {props.query === "" ? (
          <EmptyState title="Find an attendee">
            <p>Scan their ticket, type its code, or search by name (in any order) or email.</p>
          </EmptyState>
        ) : props.attendees.length === 0 ? (
          <EmptyState title="No attendee matches">
            <p>Check the spelling, or register them on the Attendees page.</p>
          </EmptyState>
        ) : (
          <ul class="card-list" aria-label="Matching attendees">
            {props.attendees.map((attendee) => (
              <AttendeeCard
                attendee={attendee}
                checkIn={props.active.get(attendee.id)}
                ticketName={ticketNames.get(attendee.ticketTypeId) ?? ""}
                base={base}
                query={props.query}
                csrf={props.ctx.csrf}
                timeZone={project.timezone}
              />
            ))}
          </ul>
        )}
      </div>
      {script ? <script src={script} defer /> : null}
    </ProjectLayout>
  );
}
