import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createAttendee,
  createPublishedProject,
  createTicketType,
  uniqueEmail,
} from "../../../test/helpers/factories.js";
import { Mailbox } from "../../../test/helpers/mailbox.js";
import { createTestContext, type TestContext } from "../../../test/helpers/test-services.js";
import { ownDatabase } from "../../../test/helpers/throwaway-database.js";
import { publicActor, systemActor } from "../access/actor.js";
import { createMailer } from "../accounts/mailer.js";
import { TicketMailWorker } from "../ticket-mails/ticket-mail-worker.js";

for (const engine of testEngines()) {
  describe(`waiting list (${engine.name})`, () => {
    let ctx: TestContext;
    let mailbox: Mailbox;
    let drop = async () => {};
    before(async () => {
      // A database of its own: another file's server would otherwise claim our due mails.
      const own = await ownDatabase(engine, "waiting-list");
      drop = own.drop;
      ctx = await createTestContext(own.engine);
      mailbox = await new Mailbox().start();
    });
    after(async () => {
      await ctx?.close();
      await mailbox?.close();
      await drop();
    });

    /** A published event whose free ticket type of `quantity` seats is sold out to `holders` attendees. */
    async function soldOut(quantity = 1) {
      const { project, owner } = await createPublishedProject(ctx.services);
      const type = await createTicketType(ctx.services, owner, project.id, { quantity, priceMinor: 0 });
      const holders = [];
      for (let i = 0; i < quantity; i++)
        holders.push(await createAttendee(ctx.services, owner, project.id, type.id));
      return { project, owner, type, holders };
    }

    let addresses = 0;
    const nextAddress = () => {
      addresses++;
      return `${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
    };
    const join = (projectId: string, ticketTypeId: string, name: string, email = uniqueEmail("wait")) =>
      // Each from an address of its own: the per-address limit is tested apart.
      ctx.services.waitingList.join({ projectId, ticketTypeId, name, email }, `10.${nextAddress()}`);

    async function states(projectId: string, ticketTypeId: string) {
      const access = await ctx.services.access.resolve(systemActor, projectId);
      assert.ok(access);
      const page = await ctx.services.waitingList.list(access, ticketTypeId, {
        limit: 100,
        after: undefined,
        before: undefined,
        backward: false,
      });
      return page.items.map((e) => `${e.name}:${e.state}`);
    }

    const sold = async (ticketTypeId: string) =>
      (await ctx.services.tickets.soldCounts([ticketTypeId])).get(ticketTypeId) ?? 0;

    /** Sends the outbox through the mailbox until a mail to `address` arrived; returns it. */
    async function mailTo(address: string) {
      const mailer = createMailer({ ...ctx.config, smtpUrl: mailbox.url }, ctx.services.logger);
      const worker = new TicketMailWorker({
        db: ctx.database.db,
        mailer,
        logger: ctx.services.logger,
        perSecond: 50,
        offerMail: (projectId, entryId) => ctx.services.waitingList.offerMail(projectId, entryId),
      });
      worker.start();
      try {
        return await mailbox.latest(address);
      } finally {
        await worker.stop();
      }
    }

    const tokenIn = (text: string) => {
      const match = /\/waiting-list\/([A-Za-z0-9_-]{20,})/.exec(text);
      assert.ok(match?.[1], `no offer link in: ${text}`);
      return match[1];
    };

    test("refuses to queue for a ticket type with seats left, and garbage input", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const type = await createTicketType(ctx.services, owner, project.id, { quantity: 5, priceMinor: 0 });
      await assert.rejects(join(project.id, type.id, "Early"), /still available/);
      await assert.rejects(join(project.id, type.id, "", "not-an-email"), (e: Error & { code?: string }) => {
        assert.equal(e.code, "BAD_USER_INPUT");
        return true;
      });
      await assert.rejects(join(project.id, "nope", "X"), /not on sale/);
    });

    test("joining twice with the same address (any case) keeps one place in line", async () => {
      const { project, type } = await soldOut();
      const email = uniqueEmail("twice");
      const first = await join(project.id, type.id, "Ada", email);
      const second = await join(project.id, type.id, "Ada again", email.toUpperCase());
      assert.equal(second.id, first.id);
      assert.deepEqual(await states(project.id, type.id), ["Ada:WAITING"]);
    });

    test("offers a freed seat to the first in line; the offer counts as sold; taking it registers", async () => {
      const { project, owner, type, holders } = await soldOut();
      const ada = uniqueEmail("ada");
      await join(project.id, type.id, "Ada", ada);
      await join(project.id, type.id, "Bob");
      assert.equal(await ctx.services.waitingList.serve(), 0, "no seat is free yet");

      await ctx.services.attendees.cancelAttendee(owner, { id: holders[0]?.id ?? "" });
      assert.equal(await sold(type.id), 0);
      assert.equal(await ctx.services.waitingList.serve(), 1);
      assert.deepEqual(await states(project.id, type.id), ["Ada:OFFERED", "Bob:WAITING"]);
      assert.equal(await sold(type.id), 1, "a held offer counts as sold");
      // Nobody else takes the held seat, not even the organizer.
      await assert.rejects(createAttendee(ctx.services, owner, project.id, type.id), /sold out/);

      const mail = await mailTo(ada);
      assert.match(mail.subject, /held for you/);
      const token = tokenIn(mail.text);
      const taken = await ctx.services.waitingList.takeOffer(project.id, token);
      assert.equal(taken.kind, "registered");
      assert.deepEqual(await states(project.id, type.id), ["Ada:ACCEPTED", "Bob:WAITING"]);
      assert.equal(await sold(type.id), 1);
      await assert.rejects(ctx.services.waitingList.takeOffer(project.id, token), /no longer open/);
      assert.equal(await ctx.services.waitingList.openOffer(project.id, "x".repeat(43)), undefined);
    });

    test("an offer that lapses passes to the next in line, and its link stops working", async () => {
      const { project, owner, type, holders } = await soldOut();
      const ada = uniqueEmail("lapse");
      await join(project.id, type.id, "Ada", ada);
      await join(project.id, type.id, "Bob");
      await ctx.services.attendees.cancelAttendee(owner, { id: holders[0]?.id ?? "" });
      await ctx.services.waitingList.serve();
      const token = tokenIn((await mailTo(ada)).text);
      // The offer's time runs out.
      await ctx.database.db
        .updateTable("waiting_list_entries")
        .set({ offer_expires_at: new Date(Date.now() - 1000).toISOString() })
        .where("project_id", "=", project.id)
        .where("state", "=", "OFFERED")
        .execute();
      assert.deepEqual(await states(project.id, type.id), ["Ada:EXPIRED", "Bob:WAITING"]);
      assert.equal(await sold(type.id), 0, "a lapsed offer frees its seat at once");
      await ctx.services.waitingList.serve();
      assert.deepEqual(await states(project.id, type.id), ["Ada:EXPIRED", "Bob:OFFERED"]);
      await assert.rejects(ctx.services.waitingList.takeOffer(project.id, token), /no longer open/);
    });

    test("raising the capacity offers the new seats in line order", async () => {
      const { project, owner, type } = await soldOut();
      for (const name of ["A", "B", "C"]) await join(project.id, type.id, name);
      await ctx.services.tickets.updateTicketType(owner, { id: type.id, quantity: 3 });
      await ctx.services.waitingList.serve();
      assert.deepEqual(await states(project.id, type.id), ["A:OFFERED", "B:OFFERED", "C:WAITING"]);
    });

    test("many joiners and a freed seat: exactly one offer, even with rounds racing", async () => {
      const { project, owner, type, holders } = await soldOut();
      await Promise.all(Array.from({ length: 30 }, (_, i) => join(project.id, type.id, `P${i}`)));
      await ctx.services.attendees.cancelAttendee(owner, { id: holders[0]?.id ?? "" });
      await Promise.all([
        ctx.services.waitingList.serve(),
        ctx.services.waitingList.serve(),
        ctx.services.waitingList.serve(),
        ...Array.from({ length: 10 }, (_, i) => join(project.id, type.id, `Late${i}`)),
      ]);
      const all = await states(project.id, type.id);
      assert.equal(all.filter((s) => s.endsWith(":OFFERED")).length, 1);
      assert.equal(all.length, 40);
      assert.equal(await sold(type.id), 1);
    });

    test("20 buyers racing a seat freed while one person waits: none gets it, the offer holder does", async () => {
      const { project, owner, type, holders } = await soldOut(3);
      const wendy = uniqueEmail("wendy");
      await join(project.id, type.id, "Wendy", wendy);
      await ctx.services.attendees.cancelAttendee(owner, { id: holders[0]?.id ?? "" });
      assert.equal(await sold(type.id), 2, "the seat is free, not yet offered");
      // The organizer is refused too, told why: the free seat is Wendy's.
      await assert.rejects(
        createAttendee(ctx.services, owner, project.id, type.id),
        /sold out: its free seats are held for the waiting list/,
      );
      const buyers = Array.from({ length: 20 }, (_, i) =>
        i % 2 === 0
          ? ctx.services.attendees.registerAttendee(appActor(project.id, ["attendees:write"]), {
              projectId: project.id,
              ticketTypeId: type.id,
              name: `Racer ${i}`,
              email: uniqueEmail("racer"),
            })
          : ctx.services.orders.placeOrder(publicActor, {
              projectId: project.id,
              buyerName: `Buyer ${i}`,
              buyerEmail: uniqueEmail("buyer"),
              tickets: [{ ticketTypeId: type.id, name: `Buyer ${i}`, email: uniqueEmail("ticket") }],
            }),
      );
      // The worker's round races the buyers: before or after it, the seat is Wendy's.
      const [served, ...outcomes] = await Promise.allSettled([ctx.services.waitingList.serve(), ...buyers]);
      assert.equal(served?.status, "fulfilled", String((served as PromiseRejectedResult).reason?.stack));
      assert.deepEqual(
        outcomes.filter((o) => o.status === "fulfilled"),
        [],
        "nobody outside the line got the seat",
      );
      for (const o of outcomes) assert.match(String((o as PromiseRejectedResult).reason), /sold out/);
      await ctx.services.waitingList.serve();
      assert.deepEqual(await states(project.id, type.id), ["Wendy:OFFERED"]);
      const taken = await ctx.services.waitingList.takeOffer(project.id, tokenIn((await mailTo(wendy)).text));
      assert.equal(taken.kind, "registered");
      assert.equal(await sold(type.id), 3);
    });

    test("taking an offer works while others still wait behind", async () => {
      const { project, owner, type, holders } = await soldOut(2);
      const ada = uniqueEmail("ahead");
      await join(project.id, type.id, "Ada", ada);
      await join(project.id, type.id, "Bob");
      await ctx.services.attendees.cancelAttendee(owner, { id: holders[0]?.id ?? "" });
      await ctx.services.waitingList.serve();
      // Ada's offer ends in the write that registers her: her seat is hers, not Bob's.
      const taken = await ctx.services.waitingList.takeOffer(project.id, tokenIn((await mailTo(ada)).text));
      assert.equal(taken.kind, "registered");
      assert.deepEqual(await states(project.id, type.id), ["Ada:ACCEPTED", "Bob:WAITING"]);
      const seats = (await ctx.services.tickets.seatFigures([type.id])).get(type.id);
      assert.deepEqual(seats, { sold: 2, waiting: 1 });
    });

    test("the organizer removes people and offers by hand, only while a seat is free; apps need attendees:write", async () => {
      const { project, owner, type, holders } = await soldOut();
      const ada = await join(project.id, type.id, "Ada");
      const bob = await join(project.id, type.id, "Bob");
      const reader = appActor(project.id, ["attendees:read"]);
      await assert.rejects(ctx.services.waitingList.remove(reader, project.id, ada.id));
      await assert.rejects(
        ctx.services.waitingList.offerByHand(owner, project.id, bob.id),
        /No seat is free/,
      );
      await ctx.services.waitingList.remove(owner, project.id, ada.id);
      await ctx.services.attendees.cancelAttendee(owner, { id: holders[0]?.id ?? "" });
      const offered = await ctx.services.waitingList.offerByHand(owner, project.id, bob.id);
      assert.equal(offered.state, "OFFERED");
      assert.deepEqual(await states(project.id, type.id), ["Ada:REMOVED", "Bob:OFFERED"]);
      // Removing an offered person frees the seat for the next round.
      await ctx.services.waitingList.remove(owner, project.id, bob.id);
      assert.equal(await sold(type.id), 0);
      const audit = await ctx.database.db
        .selectFrom("audit_events")
        .select("action")
        .where("project_id", "=", project.id)
        .where("object_type", "=", "WaitingListEntry")
        .execute();
      const actions = audit.map((a) => a.action).sort();
      assert.ok(actions.includes("waiting_list_entry.removed"), actions.join());
      assert.ok(actions.includes("waiting_list.offered"), actions.join());
    });

    test("the list reveals nobody to an access without attendees:read (the public's, a tickets-only app's)", async () => {
      const { project, type } = await soldOut();
      await join(project.id, type.id, "Private Person");
      for (const actor of [publicActor, appActor(project.id, ["tickets:read"])]) {
        const access = await ctx.services.access.resolve(actor, project.id);
        assert.ok(access);
        const window = { limit: 10, after: undefined, before: undefined, backward: false };
        await assert.rejects(ctx.services.waitingList.list(access, type.id, window), /attendees:read/);
        await assert.rejects(ctx.services.waitingList.count(access, type.id), /attendees:read/);
        assert.throws(() => ctx.services.waitingList.exportRows(access, undefined), /attendees:read/);
        assert.throws(() => ctx.services.waitingList.exportCsv(access, undefined), /attendees:read/);
      }
    });

    test("a paid ticket's offer leads to a pending order holding the seat", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const type = await createTicketType(ctx.services, owner, project.id, {
        quantity: 1,
        priceMinor: 2500,
        paymentMode: "BANK_TRANSFER",
      });
      await ctx.services.orders.updateSettings(owner, project.id, {
        holdMinutes: 15,
        bankDetails: "Waiting GmbH\nIBAN DE02 1203 0000 0000 2020 51",
      });
      const holder = await createAttendee(ctx.services, owner, project.id, type.id);
      const ada = uniqueEmail("paid");
      await join(project.id, type.id, "Ada", ada);
      await ctx.services.attendees.cancelAttendee(owner, { id: holder.id });
      await ctx.services.waitingList.serve();
      const taken = await ctx.services.waitingList.takeOffer(project.id, tokenIn((await mailTo(ada)).text));
      assert.equal(taken.kind, "order");
      assert.equal(await sold(type.id), 1, "the order's hold keeps the seat the offer held");
      assert.deepEqual(await states(project.id, type.id), ["Ada:ACCEPTED"]);
    });
  });
}
