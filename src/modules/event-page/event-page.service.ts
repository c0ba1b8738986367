import { z } from "zod";
import type { Config } from "../../config.js";
import type { Db, Tx } from "../../db/database.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import type { Logger } from "../../logger.js";
import { addressKey } from "../../shared/client-address.js";
import { areasWrittenUnder, eventPageAreas, stampOf } from "../../shared/data-areas.js";
import type { ErasedPerson } from "../../shared/erasure.js";
import { type Language, languageList, languages } from "../../shared/i18n/languages.js";
import { translator } from "../../shared/i18n/translator.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import {
  email,
  idText,
  optionalMultilineText,
  optionalText,
  parseInput,
  requiredText,
} from "../../shared/validation.js";
import type { AccessService, ProjectAccess } from "../access/access.service.js";
import { type Actor, publicActor } from "../access/actor.js";
import type { Mailer } from "../accounts/mailer.js";
import { hashSecret, randomSecret } from "../accounts/sessions.service.js";
import type { Throttle, ThrottleRule } from "../accounts/throttle.js";
import type { createAgendaService } from "../agenda/agenda.service.js";
import type { Attendee, createAttendeesService } from "../attendees/attendees.service.js";
import type { DiscountCodesService } from "../discount-codes/discount-codes.service.js";
import type { OrdersService } from "../orders/orders.service.js";
import type { Refunds } from "../orders/refunds.js";
import type { createProjectsService } from "../projects/projects.service.js";
import { questionsInLanguage } from "../questions/question-translations.js";
import type { Question } from "../questions/questions.model.js";
import { questionsOfProject } from "../questions/registration-answers.js";
import { type createTicketsService, registrableOnPage, type TicketType } from "../tickets/tickets.service.js";
import { type EventContent, type HeldRegistration, loadEventContent } from "./event-content.js";
import { translatedNames } from "./event-languages.js";
import { eventPageRepository as repo } from "./event-page.repository.js";
import { applyPageCode } from "./page-codes.js";
import { type PageOrderInput, pageOrderReads, placePageOrder } from "./page-orders.js";
import { type EventPageSettings, presentSettings, settingsInput } from "./page-settings.js";
import { registrationMail } from "./registration-mail.js";
import { createSiteBudget } from "./site-budget.js";

/** A page the public may see: its access, data version, settings and languages (the first is its own). */
export interface OpenedPage {
  access: ProjectAccess;
  version: number | null;
  settings: EventPageSettings;
  languages: Language[];
}

const registrationInput = z.object({
  projectId: idText,
  ticketTypeId: idText,
  name: requiredText(200),
  email,
  company: optionalText(200),
  /** Whom to invoice; required for a paid ticket paid by invoice, dropped for any other. */
  billingDetails: optionalMultilineText(1_000),
  // Generated into each rendered form (a UUID); a repeated submit carries the same one.
  idempotencyKey: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, "must be the key the form was given"),
  /** Answers to the event's questions, checked by the questions module with the registration. */
  answers: z.record(z.string(), z.unknown()).optional(),
  // The honeypot: a field people never see (hidden by CSS, skipped by screen readers).
  honeypot: z.string().max(1_000).optional(),
  /** The language the page was shown in: the attendee's emails go in it. */
  language: z.enum(languages).optional(),
});

export type PageRegistrationInput = z.input<typeof registrationInput>;

/**
 * What happened to a submit. The visitor sees one answer for all of them ("check your inbox"), so
 * the page never tells whether an email address is already registered for the event.
 */
export type PageRegistrationOutcome =
  /** A new registration; the confirmation email went out (or `mailed` is false: it could not). */
  | { kind: "registered"; attendee: Attendee; mailed: boolean }
  /** The same form was submitted again: the first submit's registration, nothing new. */
  | { kind: "repeat"; attendee: Attendee }
  /** The email already had a registration: it was sent a new link to it instead. */
  | { kind: "existing"; attendee: Attendee; mailed: boolean }
  /** The honeypot was filled in: nothing was stored or sent. */
  | { kind: "ignored" };

/**
 * Registrations from one client address per hour. Generous (a company or a university registers
 * many people from behind one address) but it stops a script from filling an event's capacity.
 */
const registrationIpRule: ThrottleRule = { name: "event-register-ip", limit: 60, windowMs: 3_600_000 };
/** Emails to one address per hour from the event page, so nobody can use it to flood an inbox. */
const registrationMailRule: ThrottleRule = { name: "event-mail-to", limit: 5, windowMs: 3_600_000 };

/** What the event page's service is built from (services.ts passes the process's own instances). */
export interface EventPageDeps {
  db: Db;
  config: Config;
  logger: Logger;
  access: AccessService;
  changes: ProjectChanges;
  throttle: Throttle;
  mailer: Mailer;
  projects: ReturnType<typeof createProjectsService>;
  agenda: ReturnType<typeof createAgendaService>;
  tickets: ReturnType<typeof createTicketsService>;
  attendees: ReturnType<typeof createAttendeesService>;
  orders: OrdersService;
  refunds: Refunds;
  discountCodes: DiscountCodesService;
}

function registrationClosed(message: string, field = "ticketTypeId"): AppError {
  return new AppError(ErrorCode.CONFLICT, message, { fieldErrors: [{ field: [field], message }] });
}

/** True for a ticket with a price that the holder pays by invoice: the form asks whom to invoice. */
export function invoiced(ticketType: Pick<TicketType, "priceMinor" | "paymentMode">): boolean {
  return ticketType.priceMinor > 0 && ticketType.paymentMode === "INVOICE";
}

/** True for the CONFLICT `registerWithin` throws when the email already has a registration. */
function isEmailTaken(error: unknown): boolean {
  return (
    error instanceof AppError &&
    error.code === ErrorCode.CONFLICT &&
    error.details.fieldErrors?.some((f) => f.field[0] === "email") === true
  );
}

/**
 * The public event page: who sees it (PUBLISHED projects whose page is on), what it shows, and
 * registration on it through the attendees service's own rules, with a manage link by email.
 */
export function createEventPageService(deps: EventPageDeps) {
  const { db, access, changes, attendees } = deps;

  /** The page's view of a project: public access and settings, or undefined (the same 404 for all). */
  async function openPage(projectId: string): Promise<OpenedPage | undefined> {
    const { access: found, versions } = await access.resolveVersioned(publicActor, projectId);
    if (!found) return undefined;
    const version = versions ? stampOf(versions, eventPageAreas) : null;
    const row = await repo.findSettings(db, found.projectId);
    const settings = presentSettings(row);
    if (!settings.pageEnabled) return undefined;
    return { access: found, version, settings, languages: languageList(row?.languages) };
  }

  /**
   * Mails the manage link `token`. `newLink`: the token is a further link of a registration that
   * has one (a repeat), stored only once its mail may go: a link nobody was sent is never stored.
   */
  async function sendConfirmation(
    projectId: string,
    attendee: Attendee,
    token: string,
    existing: boolean,
    newLink: boolean,
    language: Language,
  ) {
    if (!(await deps.throttle.take([{ rule: registrationMailRule, key: attendee.email.toLowerCase() }]))) {
      return false;
    }
    if (newLink) {
      const link = { attendee_id: attendee.id, project_id: projectId, created_at: nowIso() };
      await repo.addLink(db, { ...link, token_hash: hashSecret(token) });
    }
    try {
      const held = await heldRegistration(projectId, attendee);
      const link = `${deps.config.baseUrl}/e/${projectId}/registration/${token}`;
      const named = await translatedNames(db, projectId, language);
      await deps.mailer.send(registrationMail({ ...held, link, existing }, translator(language), named));
      return true;
    } catch (error) {
      // The registration stands: the organizer sees it, and the visitor is told to ask them.
      deps.logger.error({ err: error, projectId }, "Registration confirmation could not be mailed");
      return false;
    }
  }

  async function heldRegistration(projectId: string, attendee: Attendee): Promise<HeldRegistration> {
    const ticketTypes = await deps.tickets.ticketTypesByIds([attendee.ticketTypeId]);
    const project = (await deps.projects.byIds([projectId])).get(projectId);
    if (!project) throw notFound("Registration");
    return { attendee, ticketType: ticketTypes.get(attendee.ticketTypeId), project };
  }

  async function registerOnce(
    data: z.output<typeof registrationInput>,
  ): Promise<PageRegistrationOutcome & { token?: string; newLink?: boolean }> {
    const token = randomSecret();
    const { projectId } = data;
    // A registration changes attendees and seat counts only: the agenda stays cached.
    const areas = areasWrittenUnder("attendees:write");
    return changes.write(
      db,
      publicActor,
      projectId,
      async (trx) => {
        // Bumping the project's data version first locks its row: submits to one project run one
        // after the other from here, so a repeated form always sees the first one's registration.
        await changes.recordAreas(trx, projectId, areas);
        const repeat = await repo.findByIdempotencyKey(trx, projectId, data.idempotencyKey);
        if (repeat) {
          const attendee = await attendees.registrationOf(projectId, repeat.attendee_id, trx);
          if (attendee) return { kind: "repeat" as const, attendee };
        }
        const record = (attendeeId: string) =>
          repo.record(trx, {
            attendee_id: attendeeId,
            project_id: projectId,
            manage_token_hash: hashSecret(token),
            idempotency_key: data.idempotencyKey,
            created_at: nowIso(),
            billing_details: data.billingDetails ?? null,
          });
        const holder = await attendees.registeredByEmail(trx, projectId, data.email);
        if (holder) {
          // The links a registrant holds stay valid: a repeat mails one more (sendConfirmation).
          const first = await record(holder.id);
          return { kind: "existing" as const, attendee: holder, mailed: false, token, newLink: !first };
        }
        const attendee = await attendees.registerWithin(trx, publicActor, {
          projectId,
          ticketTypeId: data.ticketTypeId,
          name: data.name,
          email: data.email,
          company: data.company,
          answers: data.answers,
          language: data.language,
        });
        await record(attendee.id);
        return { kind: "registered" as const, attendee, mailed: false, token };
      },
      areas,
    );
  }

  return {
    openPage,

    /** The public site's per-address budget (requests, and renders of uncached pages). */
    budget: createSiteBudget(deps.throttle),

    /**
     * The registration questions of a project `openPage` opened: its forms ask them (no personal
     * data), in `language` when given (one of the event's other languages).
     */
    async questions(pageAccess: ProjectAccess, language?: Language): Promise<Question[]> {
      const own = await questionsOfProject(db, pageAccess.projectId);
      return language ? questionsInLanguage(db, own, language) : own;
    },

    /** The page's content for a project `openPage` opened (published data only). */
    content: (pageAccess: ProjectAccess): Promise<EventContent> => loadEventContent(deps, pageAccess),

    /** The page settings of a project the actor can see (any member reads them). */
    async settings(actor: Actor, projectId: string): Promise<EventPageSettings> {
      const found = await access.require(actor, projectId);
      return presentSettings(await repo.findSettings(db, found.projectId));
    },

    /** Changes the page settings; needs project:write like the project's other settings. */
    async updateSettings(
      actor: Actor,
      projectId: string,
      input: z.input<typeof settingsInput>,
    ): Promise<EventPageSettings> {
      const found = await access.requirePermission(actor, projectId, "project:write");
      const data = parseInput(settingsInput, input);
      // A write through ProjectChanges: the data version moves, so the cached page is dropped at once.
      await changes.write(db, actor, found.projectId, (trx) =>
        repo.upsertSettings(trx, {
          project_id: found.projectId,
          page_enabled: data.pageEnabled ? 1 : 0,
          registration_open: data.registrationOpen ? 1 : 0,
          company_field: data.companyField,
          updated_at: nowIso(),
        }),
      );
      return data;
    },

    /**
     * Registers a visitor on the event page. The project must be published with its page on and
     * registration open, and the ticket type on sale and free (or paid at the door / by invoice);
     * capacity, the sales window and one registration per email are the attendees service's rules.
     * `clientIp` is charged against the per-address limit first.
     */
    async register(input: PageRegistrationInput, clientIp: string): Promise<PageRegistrationOutcome> {
      if (!(await deps.throttle.take([{ rule: registrationIpRule, key: addressKey(clientIp) }]))) {
        throw new AppError(
          ErrorCode.RATE_LIMITED,
          "Too many registrations from your network. Try again in an hour.",
          {
            retryAfterSeconds: registrationIpRule.windowMs / 1000,
          },
        );
      }
      const data = parseInput(registrationInput, input);
      const page = await openPage(data.projectId);
      if (!page) throw notFound("Project");
      // A bot that filled the hidden field is told the same as a person and gets nothing.
      if (data.honeypot) return { kind: "ignored" };
      if (!page.settings.registrationOpen) throw registrationClosed("Registration for this event is closed");
      if (page.settings.companyField === "REQUIRED" && !data.company) {
        throw badInput([{ field: ["company"], message: "must not be empty" }]);
      }
      if (page.settings.companyField === "HIDDEN") data.company = null;
      // A form in a language the event no longer offers (it was open meanwhile) counts as its first.
      if (!data.language || !page.languages.includes(data.language))
        data.language = page.languages[0] ?? "en";
      const ticket = await deps.tickets.findTicketType(publicActor, data.ticketTypeId);
      if (!ticket || ticket.access.projectId !== page.access.projectId) {
        throw registrationClosed("This ticket is not on sale");
      }
      if (!registrableOnPage(ticket.item)) {
        throw registrationClosed("This ticket cannot be registered for here; ask the organizer");
      }
      if (invoiced(ticket.item)) {
        if (!data.billingDetails)
          throw badInput([{ field: ["billingDetails"], message: "must not be empty" }]);
      } else {
        data.billingDetails = null;
      }
      let outcome: PageRegistrationOutcome & { token?: string; newLink?: boolean };
      try {
        outcome = await registerOnce(data);
      } catch (error) {
        // Two submits of one form raced: the loser hit the email's unique index. Its retry finds
        // the winner's registration by the idempotency key.
        if (!isEmailTaken(error)) throw error;
        outcome = await registerOnce(data);
      }
      if ((outcome.kind === "registered" || outcome.kind === "existing") && outcome.token) {
        const mailed = await sendConfirmation(
          data.projectId,
          outcome.attendee,
          outcome.token,
          outcome.kind === "existing",
          outcome.newLink === true,
          data.language,
        );
        return { kind: outcome.kind, attendee: outcome.attendee, mailed };
      }
      return outcome;
    },

    /** The content with a visitor's code applied (the hidden types it unlocks), or why it was not. */
    withCode: (content: EventContent, code: string | undefined, clientIp: string) =>
      applyPageCode(deps, content, code, clientIp),

    /** Places an order from the event page's checkout (page-orders.ts); undefined for a bot. */
    placeOrder: (input: PageOrderInput, clientIp: string) => placePageOrder(deps, openPage, input, clientIp),

    // The buyer's order page and its invoices, and the checkout's tax (page-orders.ts).
    ...pageOrderReads(deps, openPage),

    /** The billing details an attendee gave on the page (the caller checked attendees:read). */
    billingDetails: (projectAccess: ProjectAccess, attendeeId: string): Promise<string | null> =>
      repo.billingDetailsOf(db, projectAccess.projectId, attendeeId),

    /** The registration a manage link's secret belongs to, or undefined (a wrong link and a deleted one look the same). */
    async findByLink(projectId: string, token: string): Promise<HeldRegistration | undefined> {
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
      if (!(await openPage(projectId))) return undefined;
      const row = await repo.findByTokenHash(db, projectId, hashSecret(token));
      const attendee = row ? await attendees.registrationOf(projectId, row.attendee_id) : undefined;
      return attendee ? heldRegistration(projectId, attendee) : undefined;
    },

    /** Cancels the registration behind a manage link (idempotent); NOT_FOUND for a wrong link. */
    async cancelByLink(projectId: string, token: string): Promise<HeldRegistration> {
      const held = await this.findByLink(projectId, token);
      if (!held) throw notFound("Registration");
      const attendee = await attendees.cancelRegistration(publicActor, projectId, held.attendee.id);
      return { ...held, attendee };
    },
  };
}

export type EventPageService = ReturnType<typeof createEventPageService>;

/** An erased attendee's event-page registration keeps no billing details and no manage link. */
export function forgetPublicRegistration(trx: Tx, person: ErasedPerson): Promise<void> {
  return repo.forgetRegistration(trx, person.projectId, person.attendeeId);
}
