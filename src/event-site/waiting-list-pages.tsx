import { formatDateTime } from "../dashboard/time.js";
import { EmailField, FormError, type FormState, SelectField, TextField } from "../dashboard/ui/forms.js";
import type { EventContent, EventTicket } from "../modules/event-page/event-content.js";
import { eventPaths } from "./event-paths.js";
import type { FormTicket } from "./form-token.js";
import { Honeypot, SignedFields } from "./registration-pages.js";
import { MessagePage, SiteLayout } from "./site-layout.js";

/** Links of the waiting list's public pages. */
export const waitingListPaths = {
  join: (id: string, ticketTypeId?: string) =>
    `/e/${id}/waiting-list${ticketTypeId ? `?ticket=${encodeURIComponent(ticketTypeId)}` : ""}`,
  joined: (id: string) => `/e/${id}/waiting-list/joined`,
  offer: (id: string, token: string) => `/e/${id}/waiting-list/${token}`,
};

/** The sold-out ticket types a visitor may wait for: those the page sells (registers or orders). */
function waitableTickets(content: EventContent): EventTicket[] {
  return content.tickets.filter((t) => t.remaining === 0 && (t.registrable || t.orderable));
}

/** "Join the waiting list": ticket type, name, email. */
export function JoinWaitingListPage(props: {
  content: EventContent;
  registrationOpen: boolean;
  ticket: FormTicket;
  state: FormState;
  url: string;
}) {
  const { project } = props.content;
  const options = waitableTickets(props.content).map((t) => ({ value: t.id, label: t.name }));
  const meta = {
    title: `Waiting list · ${project.name}`,
    description: `Join the waiting list of ${project.name}.`,
    url: props.url,
    noindex: true,
  };
  return (
    <SiteLayout meta={meta} eventName={project.name} eventHref={eventPaths.page(project.id)}>
      <h1>Join the waiting list</h1>
      {options.length === 0 || !props.registrationOpen ? (
        <p class="note">No ticket of this event has a waiting list right now.</p>
      ) : (
        <>
          <p>
            When a seat frees, the next person in line gets an email with a personal link that holds the seat
            for them for a while. First come, first served.
          </p>
          <form
            method="post"
            action={waitingListPaths.join(project.id)}
            class="form"
            aria-label="Waiting list"
            noValidate
          >
            <SignedFields ticket={props.ticket} />
            <FormError state={props.state} />
            <SelectField name="ticketTypeId" label="Ticket" state={props.state} required options={options} />
            <TextField name="name" label="Name" state={props.state} required autocomplete="name" />
            <EmailField state={props.state} hint="The offer of a seat is sent here." />
            <Honeypot />
            <button type="submit" class="button">
              Join the waiting list
            </button>
          </form>
        </>
      )}
    </SiteLayout>
  );
}

/** After joining: the same answer whether the address was already in line or not. */
export function JoinedPage(props: { content: EventContent; url: string }) {
  const { project } = props.content;
  return (
    <MessagePage
      title="You are on the waiting list"
      url={props.url}
      eventName={project.name}
      eventHref={eventPaths.page(project.id)}
    >
      <p>When a seat frees and it is your turn, we email you a link that holds the seat for you.</p>
      <p>
        <a href={eventPaths.page(project.id)}>Back to the event</a>
      </p>
    </MessagePage>
  );
}

/** An open offer: which seat, until when, and the one button that takes it. */
export function OfferPage(props: {
  content: EventContent;
  offer: { name: string; ticketName: string; expiresAt: string; paid: boolean };
  action: string;
  url: string;
}) {
  const { project } = props.content;
  const { offer } = props;
  return (
    <MessagePage
      title="A seat is held for you"
      url={props.url}
      eventName={project.name}
      eventHref={eventPaths.page(project.id)}
    >
      <p>
        Hello {offer.name}, a seat of <strong>{offer.ticketName}</strong> is held for you until{" "}
        {formatDateTime(offer.expiresAt, project.timezone)}.
      </p>
      <form method="post" action={props.action} class="form" aria-label="Take the seat">
        <button type="submit" class="button">
          {offer.paid ? "Take the seat and pay" : "Take the seat"}
        </button>
      </form>
      {offer.paid ? (
        <p class="muted">You pay on the next page; the seat stays held while the order waits.</p>
      ) : null}
    </MessagePage>
  );
}
