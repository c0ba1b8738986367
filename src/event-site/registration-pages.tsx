import type { ComponentChildren } from "preact";
import {
  EmailField,
  FormError,
  type FormState,
  SelectField,
  TextAreaField,
  TextField,
} from "../dashboard/ui/forms.js";
import { type FormAnswers, QuestionFields } from "../dashboard/ui/question-fields.js";
import type { EventContent, HeldRegistration } from "../modules/event-page/event-content.js";
import { invoiced } from "../modules/event-page/event-page.service.js";
import type { EventPageSettings } from "../modules/event-page/page-settings.js";
import type { Question } from "../modules/questions/questions.model.js";
import type { TicketType } from "../modules/tickets/tickets.service.js";
import type { MessageKey } from "../shared/i18n/catalogues/en.js";
import type { Translator } from "../shared/i18n/translator.js";
import { qrSvg } from "../shared/qr.js";
import { eventPaths } from "./event-paths.js";
import type { FormTicket } from "./form-token.js";
import { inLanguage, type PageLanguage } from "./page-language.js";
import { MessagePage, SiteLayout } from "./site-layout.js";

/** The name of the honeypot field: a plausible name, so form-filling bots fill it in. */
export const honeypotField = "website";

/** The hidden fields of a signed form (form-token.ts): this server rendered it, for this project. */
export function SignedFields(props: { ticket: FormTicket }) {
  return (
    <>
      <input type="hidden" name="idempotencyKey" value={props.ticket.idempotencyKey} />
      <input type="hidden" name="issuedAt" value={props.ticket.issuedAt} />
      <input type="hidden" name="signature" value={props.ticket.signature} />
    </>
  );
}

/** A signed POST form of the site, saying the language it was shown in (its emails go in that one). */
export function SignedForm(props: {
  action: string;
  label: string;
  ticket: FormTicket;
  language: string;
  children: ComponentChildren;
}) {
  return (
    <form method="post" action={props.action} class="form" aria-label={props.label} noValidate>
      <input type="hidden" name="language" value={props.language} />
      <SignedFields ticket={props.ticket} />
      {props.children}
    </form>
  );
}

/**
 * The honeypot: a field people never see (hidden by CSS, skipped by screen readers); its label is in
 * the page's language where the page has one.
 */
export function Honeypot(props: { label?: string }) {
  return (
    <div class="hp" aria-hidden="true">
      <label for="f-hp">{props.label ?? "Leave this field empty"}</label>
      <input id="f-hp" name={honeypotField} type="text" tabIndex={-1} autoComplete="off" />
    </div>
  );
}

/** A ticket as the form's choice reads: its name, its price and how it is paid ("free" when it is). */
const labelKeys: Record<TicketType["paymentMode"], MessageKey> = {
  AT_DOOR: "label.atDoor",
  INVOICE: "label.invoice",
  BANK_TRANSFER: "label.bankTransfer",
  STRIPE: "label.card",
  NONE: "label.other",
};

function ticketLabel(ticket: TicketType, words: Translator): string {
  if (ticket.priceMinor === 0) return words.t("label.free", { ticket: ticket.name });
  const price = words.money(ticket.priceMinor, ticket.currency);
  return words.t(labelKeys[ticket.paymentMode], { ticket: ticket.name, price });
}

/**
 * The registration form: ticket (with its price), name, email, (as the organizer chose) company,
 * whom to invoice when a ticket on offer is paid by invoice, and the event's questions (each
 * restricted one says which tickets it is asked for; the server ignores it for the others).
 */
export function RegisterPage(props: {
  content: EventContent;
  settings: EventPageSettings;
  ticket: FormTicket;
  state: FormState;
  questions: readonly Question[];
  answers: FormAnswers;
  url: string;
  lang: PageLanguage;
  path: string;
}) {
  const { project } = props.content;
  const { words } = props.lang;
  const { t } = words;
  const event = project.name;
  const optional = t("field.optional");
  const offered = props.content.tickets.filter((ticket) => ticket.registrable && ticket.remaining > 0);
  const options = offered.map((ticket) => ({ value: ticket.id, label: ticketLabel(ticket, words) }));
  const onlyInvoiced = offered.length > 0 && offered.every(invoiced);
  const company = props.settings.companyField;
  const meta = {
    title: t("register.title", { event }),
    description: t("register.description", { event }),
    url: props.url,
  };
  return (
    <SiteLayout
      meta={meta}
      eventName={project.name}
      eventHref={inLanguage(eventPaths.page(project.id), props.lang)}
      lang={props.lang}
      path={props.path}
    >
      <h1>{t("register.heading", { event })}</h1>
      {options.length === 0 || !props.settings.registrationOpen ? (
        <p class="note">{t("register.none")}</p>
      ) : (
        <SignedForm
          action={eventPaths.register(project.id)}
          label={t("register.form")}
          ticket={props.ticket}
          language={words.language}
        >
          <FormError state={props.state} />
          <SelectField
            name="ticketTypeId"
            label={t("register.ticket")}
            state={props.state}
            required
            options={options}
          />
          <TextField
            name="name"
            label={t("register.name")}
            state={props.state}
            required
            autocomplete="name"
          />
          <EmailField label={t("register.email")} state={props.state} hint={t("register.emailHint")} />
          {company === "HIDDEN" ? null : (
            <TextField
              name="company"
              label={t("register.company")}
              state={props.state}
              required={company === "REQUIRED"}
              optionalLabel={optional}
              autocomplete="organization"
            />
          )}
          {offered.some(invoiced) ? (
            <TextAreaField
              name="billingDetails"
              label={t("register.billing")}
              state={props.state}
              required={onlyInvoiced}
              optionalLabel={optional}
              rows={3}
              hint={t(onlyInvoiced ? "register.billingHintOnly" : "register.billingHintSome")}
            />
          ) : null}
          <QuestionFields
            questions={props.questions}
            answers={props.answers}
            state={props.state}
            ticketTypeNames={new Map(offered.map((t) => [t.id, t.name]))}
            words={words}
          />
          <Honeypot label={t("register.honeypot")} />
          <button type="submit" class="button">
            {t("register.submit")}
          </button>
        </SignedForm>
      )}
    </SiteLayout>
  );
}

/** After a submit: the same answer whatever happened, so the page never tells who is registered. */
export function CheckInboxPage(props: {
  content: EventContent;
  url: string;
  sendsEmail: boolean;
  lang: PageLanguage;
  path: string;
}) {
  const { project } = props.content;
  const { t } = props.lang.words;
  const eventHref = inLanguage(eventPaths.page(project.id), props.lang);
  return (
    <MessagePage
      title={t("inbox.title")}
      url={props.url}
      eventName={project.name}
      eventHref={eventHref}
      lang={props.lang}
      path={props.path}
    >
      {props.sendsEmail ? (
        <p>{t("inbox.sent", { event: project.name })}</p>
      ) : (
        // Said of the server, not of this registration: the page still tells no one who is registered.
        <p>{t("inbox.noMail", { event: project.name })}</p>
      )}
      <p>
        <a href={eventHref}>{t("inbox.back")}</a>
      </p>
    </MessagePage>
  );
}

/** The holder's view of a registration (the manage link), with the ticket code and a cancel button. */
export function ManagePage(props: {
  held: HeldRegistration;
  action: string;
  url: string;
  lang: PageLanguage;
  path: string;
}) {
  const { attendee, project, ticketType } = props.held;
  const { words } = props.lang;
  const { t } = words;
  const cancelled = attendee.status === "CANCELLED";
  return (
    <SiteLayout
      meta={{
        title: t("manage.title", { event: project.name }),
        description: t("manage.description", { event: project.name }),
        url: props.url,
        noindex: true,
      }}
      eventName={project.name}
      eventHref={inLanguage(eventPaths.page(project.id), props.lang)}
      lang={props.lang}
      path={props.path}
    >
      <h1>{t("manage.heading")}</h1>
      {cancelled ? <p class="notice notice-info">{t("manage.cancelled")}</p> : null}
      <dl class="facts">
        <div>
          <dt>{t("manage.event")}</dt>
          <dd>{project.name}</dd>
        </div>
        <div>
          <dt>{t("manage.name")}</dt>
          <dd>{attendee.name}</dd>
        </div>
        <div>
          <dt>{t("manage.email")}</dt>
          <dd>{attendee.email}</dd>
        </div>
        {attendee.company ? (
          <div>
            <dt>{t("manage.company")}</dt>
            <dd>{attendee.company}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t("manage.ticket")}</dt>
          <dd>{ticketType?.name ?? "—"}</dd>
        </div>
        <div>
          <dt>{t("manage.registered")}</dt>
          <dd>
            {words.dateTime(attendee.registeredAt, project.timezone)}{" "}
            <span class="muted">{t("event.zoneTime", { zone: project.timezone })}</span>
          </dd>
        </div>
      </dl>
      {cancelled ? null : (
        <section aria-labelledby="ticket-heading">
          <h2 id="ticket-heading">{t("manage.ticketHeading")}</h2>
          <div
            class="qr"
            // Raw markup: qrSvg builds the SVG itself and escapes the only text in it (the name).
            dangerouslySetInnerHTML={{
              __html: qrSvg(attendee.ticketCode, t("manage.qr", { name: attendee.name })),
            }}
          />
          <p>
            {t("manage.code")} <code class="ticket-code">{attendee.ticketCode}</code>
          </p>
        </section>
      )}
      {cancelled ? null : (
        <form method="post" action={props.action} class="form" aria-label={t("manage.cancelForm")}>
          <p>{t("manage.cancelNote")}</p>
          <button type="submit" class="button button-danger">
            {t("manage.cancelButton")}
          </button>
        </form>
      )}
    </SiteLayout>
  );
}
