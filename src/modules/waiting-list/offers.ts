import { createHmac } from "node:crypto";
import type { Db, Tx } from "../../db/database.js";
import { AppError, ErrorCode, notFound } from "../../errors.js";
import { areasWrittenUnder } from "../../shared/data-areas.js";
import { isErasedEmail } from "../../shared/erasure.js";
import type { ProjectChanges } from "../../shared/project-changes.js";
import { nowIso } from "../../shared/time.js";
import { type Actor, publicActor, systemActor } from "../access/actor.js";
import type { Email } from "../accounts/mailer.js";
import { loadServerSecret } from "../accounts/server-secrets.js";
import { hashSecret, randomSecret } from "../accounts/sessions.service.js";
import type { Attendee, createAttendeesService } from "../attendees/attendees.service.js";
import { seatCounts } from "../attendees/attendees-seats.js";
import type { OrdersService } from "../orders/orders.service.js";
import { queueOfferMail, queueTicketMails } from "../ticket-mails/ticket-mails.service.js";
import { seatsLeft } from "../tickets/seats-left.js";
import { registrableOnPage } from "../tickets/tickets.service.js";
import { offerMail } from "./offer-mail.js";
import { waitingListRepository as repo, type WaitingListEntryRow } from "./waiting-list.repository.js";

/** What offers are made with (services.ts passes the process's own instances). */
export interface OfferDeps {
  db: Db;
  changes: ProjectChanges;
  baseUrl: () => string;
  attendees: Pick<ReturnType<typeof createAttendeesService>, "registerWithin">;
  orders: Pick<OrdersService, "placeWithin">;
  /** Wakes this process's ticket-mail worker after a commit that queued mails. */
  announce: () => void;
}

/**
 * How often every server process serves the waiting lists: a freed seat is offered within this
 * time; an idle round is one indexed query.
 */
export const waitingListEveryMs = 15_000;

/** How long an offer holds its seat when the organizer set nothing. */
export const defaultOfferHours = 48;

/** Ticket types served per worker round: a bounded round, the next one goes on. */
const typesPerRound = 100;
/** Offers one ticket type gets per round (a capacity raised by thousands is served over rounds). */
const offersPerType = 100;

/**
 * Locks what a waiting-list write decides under, in the order every seat write takes it: the
 * project's version row first (recorded as changed, as an order's placement does first), then the
 * ticket type (`seatCounts`), whose seat figures it answers. Taken the other way round, an offer
 * and an order placed at the same time wait for each other, and PostgreSQL aborts one (a deadlock).
 */
export async function lockLine(changes: ProjectChanges, trx: Tx, projectId: string, ticketTypeId: string) {
  await changes.recordAreas(trx, projectId, areasWrittenUnder("attendees:write"));
  return (await seatCounts(trx, projectId, [ticketTypeId], true)).get(ticketTypeId);
}

/** What taking an offer led to: a registration, or an order to pay with the seat held. */
export type TakenOffer =
  | { kind: "registered"; attendee: Attendee }
  | { kind: "order"; code: string; buyerToken: string };

function offerGone(): AppError {
  return new AppError(
    ErrorCode.CONFLICT,
    "This offer is no longer open: it was taken, expired or withdrawn.",
  );
}

/**
 * Offers of freed seats (modules/waiting-list). Every offer is made under the ticket type's lock
 * (`seatCounts(…, lock)`, the lock registrations and orders take), and a live offer counts as sold
 * (tickets.repository `liveOffers`), so a seat is never offered twice nor sold beside its offer.
 * The offer link's secret is an HMAC of the entry and its offer time: the mail worker derives it
 * at sending, and the database keeps only its hash.
 */
export function waitingListOffers(deps: OfferDeps) {
  const { db, changes } = deps;
  const areas = areasWrittenUnder("attendees:write");
  let secret: Promise<string> | undefined;
  const linkSecret = () => {
    secret ??= loadServerSecret(db, "waiting-list-offers");
    return secret;
  };
  // The key is loaded before any write's transaction: on SQLite its first insert would wait for it.
  const tokenOf = (key: string, entryId: string, offeredAt: string) =>
    createHmac("sha256", key).update(`offer:${entryId}:${offeredAt}`).digest("base64url");

  const lockSeats = (trx: Tx, projectId: string, ticketTypeId: string) =>
    lockLine(changes, trx, projectId, ticketTypeId);

  async function hoursOf(trx: Db, projectId: string) {
    return (await repo.offerHours(trx, projectId)) ?? defaultOfferHours;
  }

  /** Offers `row` (WAITING) its seat, inside a write holding the ticket type's lock; false if it moved meanwhile. */
  async function offerIn(trx: Tx, actor: Actor, row: WaitingListEntryRow, hours: number, key: string) {
    const now = new Date();
    const offeredAt = now.toISOString();
    const expires = new Date(now.getTime() + hours * 3_600_000).toISOString();
    const made = await repo.transition(trx, row.project_id, row.id, ["WAITING"], {
      state: "OFFERED",
      offered_at: offeredAt,
      offer_expires_at: expires,
      offer_token_hash: hashSecret(tokenOf(key, row.id, offeredAt)),
      updated_at: offeredAt,
    });
    if (!made) return false;
    await queueOfferMail(trx, row.project_id, row.id);
    await changes.event(trx, actor, {
      projectId: row.project_id,
      type: "waiting_list.offered",
      object: { typename: "WaitingListEntry", id: row.id },
      values: { name: row.name, email: row.email, offerExpiresAt: expires },
    });
    return true;
  }

  /** Whether a ticket type has work for the worker: a lapsed offer, or a free seat (someone waits). */
  async function due(projectId: string, ticketTypeId: string): Promise<boolean> {
    if ((await repo.lapsedOffers(db, projectId, ticketTypeId, nowIso())).length > 0) return true;
    const seats = (await seatCounts(db, projectId, [ticketTypeId], false)).get(ticketTypeId);
    return seats !== undefined && seatsLeft(Number(seats.ticketType.quantity), seats, "offered") > 0;
  }

  /** Expires lapsed offers of one ticket type and offers its free seats to the next in line. */
  async function serveType(projectId: string, ticketTypeId: string): Promise<number> {
    // Read without a lock first: the usual round (sold out, nobody's offer lapsed) writes nothing,
    // so it neither waits for a lock nor moves the project's versions (its cached answers stay).
    if (!(await due(projectId, ticketTypeId))) return 0;
    const key = await linkSecret();
    const made = await changes.write(
      db,
      systemActor,
      projectId,
      async (trx) => {
        const seats = await lockSeats(trx, projectId, ticketTypeId);
        if (!seats) return 0;
        const now = nowIso();
        let changed = 0;
        for (const lapsed of await repo.lapsedOffers(trx, projectId, ticketTypeId, now)) {
          await repo.transition(trx, projectId, lapsed.id, ["OFFERED"], {
            state: "EXPIRED",
            updated_at: now,
          });
          changed++;
        }
        const free = Math.min(offersPerType, seatsLeft(Number(seats.ticketType.quantity), seats, "offered"));
        const hours = free > 0 ? await hoursOf(trx, projectId) : 0;
        for (const row of free > 0 ? await repo.nextInLine(trx, projectId, ticketTypeId, free) : []) {
          if (await offerIn(trx, systemActor, row, hours, key)) changed++;
        }
        if (changed === 0) changes.unchanged(trx);
        return changed;
      },
      areas,
    );
    if (made > 0) deps.announce();
    return made;
  }

  return {
    /**
     * One round of the worker (every server process runs it, schedulePeriodic): for each ticket
     * type with people in line or lapsed offers, expire and offer. Safe to run on many processes at
     * once: each ticket type is served under its lock, and an entry moves only from the state read.
     * Answers how many entries changed.
     */
    async serve(): Promise<number> {
      const types = await repo.typesToServe(db, nowIso(), typesPerRound);
      let changed = 0;
      for (const t of types) changed += await serveType(t.project_id, t.ticket_type_id);
      return changed;
    },

    /** Offers a seat to one entry now, out of turn, if a seat is free (the organizer's "Send offer"). */
    async offerOne(actor: Actor, row: WaitingListEntryRow): Promise<WaitingListEntryRow> {
      const key = await linkSecret();
      const offered = await changes.write(
        db,
        actor,
        row.project_id,
        async (trx) => {
          const seats = await lockSeats(trx, row.project_id, row.ticket_type_id);
          if (!seats) throw notFound("Ticket type");
          if (seatsLeft(Number(seats.ticketType.quantity), seats, "offered") === 0)
            throw new AppError(ErrorCode.CONFLICT, "No seat is free: raise the ticket type's quantity first");
          const current = await repo.findById(trx, row.project_id, row.id);
          if (!current || !(await offerIn(trx, actor, current, await hoursOf(trx, row.project_id), key)))
            throw new AppError(ErrorCode.CONFLICT, "Only someone waiting in line can be offered a seat");
          return (await repo.findById(trx, row.project_id, row.id)) as WaitingListEntryRow;
        },
        areas,
      );
      deps.announce();
      return offered;
    },

    /** The open offer behind a link's secret, or undefined (wrong, taken, expired and withdrawn look alike). */
    async openOffer(projectId: string, token: string): Promise<WaitingListEntryRow | undefined> {
      if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
      const row = await repo.findByOfferHash(db, projectId, hashSecret(token));
      if (row?.state !== "OFFERED" || (row.offer_expires_at ?? "") <= nowIso()) return undefined;
      return row;
    },

    /**
     * Takes the offer behind a link: in one write under the ticket type's lock the offer ends
     * (ACCEPTED) and its seat becomes a registration, or, for a ticket paid at checkout, a pending
     * order holding the seat until it is paid. Nobody else can take the seat in between.
     */
    async takeOffer(projectId: string, token: string): Promise<TakenOffer> {
      const row = await this.openOffer(projectId, token);
      if (!row) throw offerGone();
      const buyerToken = randomSecret();
      const taken = await changes.write(
        db,
        publicActor,
        row.project_id,
        async (trx): Promise<TakenOffer> => {
          const seats = await lockSeats(trx, row.project_id, row.ticket_type_id);
          if (!seats) throw offerGone();
          const now = nowIso();
          const current = await repo.findById(trx, row.project_id, row.id);
          if (current?.state !== "OFFERED" || (current.offer_expires_at ?? "") <= now) throw offerGone();
          await repo.transition(trx, row.project_id, row.id, ["OFFERED"], {
            state: "ACCEPTED",
            updated_at: now,
          });
          const type = seats.ticketType;
          if (registrableOnPage({ priceMinor: Number(type.price_minor), paymentMode: type.payment_mode })) {
            const attendee = await deps.attendees.registerWithin(
              trx,
              publicActor,
              {
                projectId: row.project_id,
                ticketTypeId: row.ticket_type_id,
                name: row.name,
                email: row.email,
              },
              "offered",
            );
            await queueTicketMails(trx, row.project_id, [attendee.id]);
            await repo.transition(trx, row.project_id, row.id, ["ACCEPTED"], {
              state: "ACCEPTED",
              attendee_id: attendee.id,
            });
            return { kind: "registered", attendee };
          }
          const placed = await deps.orders.placeWithin(
            trx,
            publicActor,
            {
              projectId: row.project_id,
              buyerName: row.name,
              buyerEmail: row.email,
              tickets: [{ ticketTypeId: row.ticket_type_id, name: row.name, email: row.email }],
              buyerToken,
            },
            "offered",
          );
          return { kind: "order", code: placed.order.code, buyerToken };
        },
        areas,
      );
      deps.announce();
      return taken;
    },

    /**
     * The email of an offer, built when the worker sends it, or undefined when it is no longer
     * due (taken, expired, removed or erased meanwhile).
     */
    async offerMail(projectId: string, entryId: string): Promise<Email | undefined> {
      const row = await repo.offerMailContent(db, projectId, entryId);
      if (row?.state !== "OFFERED" || !row.offered_at || !row.offer_expires_at) return undefined;
      if (row.offer_expires_at <= nowIso() || isErasedEmail(row.email)) return undefined;
      const token = tokenOf(await linkSecret(), row.id, row.offered_at);
      return offerMail({
        to: row.email,
        name: row.name,
        event: row.project_name,
        ticketType: row.ticket_name,
        expiresAt: row.offer_expires_at,
        timeZone: row.timezone,
        link: `${deps.baseUrl()}/e/${projectId}/waiting-list/${token}`,
      });
    },
  };
}
