import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Db } from "../../db/database.js";
import type { Logger } from "../../logger.js";
import { isErasedEmail } from "../../shared/erasure.js";
import { languageList } from "../../shared/i18n/languages.js";
import { translator } from "../../shared/i18n/translator.js";
import type { Email, Mailer } from "../accounts/mailer.js";
import { projectSubject, translatedNames } from "../event-page/event-languages.js";
import { messageMail } from "../messages/message-mail.js";
import { ticketMail } from "./ticket-mail.js";
import { type ClaimedTicketMail, ticketMailsRepository as repo } from "./ticket-mails.repository.js";

/** Waits before each retry of a mail the SMTP server refused for now; after the last it is FAILED. */
const retryDelaysSeconds = [60, 300, 1_800, 7_200];
/** How often an idle worker looks for mails other processes (the CLI, other servers) queued. */
const idlePollMs = 5_000;
const minPollMs = 250;
/**
 * A lease outlives a batch's sends and nodemailer's connection and greeting timeouts by a wide
 * margin, so no other process sends a leased mail again while it is in flight.
 */
const leaseMarginMs = 5 * 60_000;

export interface TicketMailWorkerDeps {
  db: Db;
  mailer: Mailer;
  logger: Logger;
  /** The most mails this process hands to the SMTP server per second. */
  perSecond: number;
  /**
   * The confirmation of an order to its buyer (modules/orders/order-confirmation.ts), or undefined
   * when it is no longer due (the order was cancelled or expired meanwhile).
   */
  orderMail?: (projectId: string, orderId: string) => Promise<Email | undefined>;
  /**
   * The offer of a held seat to someone on the waiting list (modules/waiting-list/offers.ts), or
   * undefined when it is no longer open (taken, expired, removed, erased).
   */
  offerMail?: (projectId: string, entryId: string) => Promise<Email | undefined>;
}

/** One queued mail's recipient: the attendee, their ticket type's name and the project's name. */
function recipient(db: Db, id: string) {
  return db
    .selectFrom("ticket_mails as m")
    .innerJoin("attendees as a", "a.id", "m.attendee_id")
    .innerJoin("ticket_types as t", "t.id", "a.ticket_type_id")
    .innerJoin("projects as p", "p.id", "m.project_id")
    .select([
      "a.name",
      "a.email",
      "a.ticket_code",
      "a.status",
      "t.name as ticket_name",
      "p.name as project_name",
    ])
    .where("m.id", "=", id);
}

/** What the worker needs of one queued ticket mail: the recipient, their language and ticket's price. */
async function mailContent(db: Db, id: string) {
  return recipient(db, id)
    .leftJoin("event_page_settings as s", "s.project_id", "m.project_id")
    .select([
      "a.language",
      "s.languages",
      "t.id as ticket_type_id",
      "t.price_minor",
      "t.currency",
      "t.payment_mode",
    ])
    .executeTakeFirst();
}

/** One recipient's message: its text, the attendee and the project's name. */
async function messageContent(db: Db, id: string) {
  return recipient(db, id)
    .innerJoin("messages as g", "g.id", "m.message_id")
    .select(["g.subject", "g.body"])
    .executeTakeFirst();
}

/** True for an SMTP answer that will not change on retry (5xx: unknown mailbox, refused sender). */
function permanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === "number" && code >= 500 && code < 600;
}

/**
 * Sends the ticket-mail outbox: claims due mails in batches under a lease, sends them one after
 * another no faster than `perSecond`, and records each result while the lease is still its own.
 * Without SMTP (the mailer only logs) nothing is sent and each mail is marked FAILED with the reason,
 * so the dashboard never reports a ticket as sent; "Resend" queues it again once SMTP is set up.
 */
export class TicketMailWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private lastSendAt = 0;
  private readonly gapMs: number;
  private readonly batch: number;

  constructor(private readonly deps: TicketMailWorkerDeps) {
    this.gapMs = 1000 / deps.perSecond;
    // About five seconds of sending per claim: one query per batch, and a stop waits at most that long.
    this.batch = Math.max(1, Math.ceil(deps.perSecond * 5));
  }

  start(): void {
    this.stopped = false;
    this.wake();
  }

  /** Looks for due mails now (after a local write queued some). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round().then((nextDueAt) => {
      this.running = undefined;
      this.schedule(nextDueAt);
    });
  }

  /** Stops claiming and waits for the mail being sent; the rest of a batch is left to its lease. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(nextDueAt?: number): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const delay = nextDueAt === undefined ? idlePollMs : Math.min(idlePollMs, nextDueAt - Date.now());
    // Never sooner than `minPollMs`: a clock apart from the database's must not make a busy loop.
    this.timer = setTimeout(() => this.wake(), Math.max(minPollMs, delay));
    this.timer.unref();
  }

  /** Sends what is due; answers when the next retry falls due (undefined: none, or unknown). */
  private async round(): Promise<number | undefined> {
    try {
      do {
        this.again = false;
        const now = new Date();
        const token = randomUUID();
        const claimed = await repo.claim(this.deps.db, {
          now: now.toISOString(),
          leaseUntil: new Date(now.getTime() + this.batch * this.gapMs + leaseMarginMs).toISOString(),
          token,
          limit: this.batch,
        });
        for (const mail of claimed) {
          if (this.stopped) return undefined;
          await this.sendOne(mail, token);
        }
        if (claimed.length > 0) this.again = true;
      } while (this.again && !this.stopped);
      const due = await repo.nextDue(this.deps.db);
      return due === undefined ? undefined : Date.parse(due);
    } catch (error) {
      // The database may be down for a while: the next poll tries again.
      this.deps.logger.warn({ err: error }, "Ticket mail worker could not claim mails");
      return undefined;
    }
  }

  /** The email of one outbox row, or why it is skipped. */
  private async emailOf(mail: ClaimedTicketMail): Promise<Email | string> {
    if (mail.order_id) {
      const email = await this.deps.orderMail?.(mail.project_id, mail.order_id);
      return email ?? "order cancelled or expired";
    }
    if (mail.waiting_entry_id) {
      const email = await this.deps.offerMail?.(mail.project_id, mail.waiting_entry_id);
      return email ?? "offer no longer open";
    }
    if (mail.message_id) {
      const message = await messageContent(this.deps.db, mail.id);
      // Checked again at sending: a message scheduled for next week must not reach someone who
      // cancelled or was erased meanwhile.
      if (message?.status !== "REGISTERED") return "registration cancelled";
      if (isErasedEmail(message.email)) return "attendee erased";
      return messageMail(message, message.email, {
        name: message.name,
        ticketCode: message.ticket_code,
        ticketType: message.ticket_name,
        event: message.project_name,
      });
    }
    const content = await mailContent(this.deps.db, mail.id);
    if (content?.status !== "REGISTERED") return "registration cancelled";
    // The language the attendee registered in while the event still offers it, else the event's first.
    const offered = languageList(content.languages);
    const language = offered.find((l) => l === content.language) ?? offered[0] ?? "en";
    const named = await translatedNames(this.deps.db, mail.project_id, language);
    return ticketMail(
      {
        attendee: { name: content.name, email: content.email, ticketCode: content.ticket_code },
        projectName: named(projectSubject, content.project_name),
        ticketType: {
          name: named(content.ticket_type_id, content.ticket_name),
          priceMinor: content.price_minor,
          currency: content.currency,
          paymentMode: content.payment_mode,
        },
      },
      translator(language),
    );
  }

  private async sendOne(mail: ClaimedTicketMail, token: string): Promise<void> {
    const { db, mailer, logger } = this.deps;
    const attempts = mail.attempts + 1;
    const email = await this.emailOf(mail);
    if (typeof email === "string") {
      await repo.settle(db, mail.id, token, { status: "SKIPPED", attempts, error: email });
      return;
    }
    if (!mailer.delivers) {
      const error = "not sent: this server has no SMTP server (SMTP_URL)";
      await repo.settle(db, mail.id, token, { status: "FAILED", attempts, error });
      return;
    }
    const wait = this.lastSendAt + this.gapMs - Date.now();
    if (wait > 0) await sleep(wait);
    this.lastSendAt = Date.now();
    try {
      await mailer.send(email);
      await repo.settle(db, mail.id, token, { status: "SENT", attempts, sentAt: new Date().toISOString() });
    } catch (error) {
      const delay = retryDelaysSeconds[attempts - 1];
      const message = error instanceof Error ? error.message.slice(0, 500) : String(error);
      logger.warn({ err: error, projectId: mail.project_id }, "Ticket email could not be sent");
      if (permanent(error) || delay === undefined) {
        await repo.settle(db, mail.id, token, { status: "FAILED", attempts, error: message });
      } else {
        const nextAttemptAt = new Date(Date.now() + delay * 1000).toISOString();
        await repo.settle(db, mail.id, token, { status: "PENDING", attempts, nextAttemptAt, error: message });
      }
    }
  }
}
