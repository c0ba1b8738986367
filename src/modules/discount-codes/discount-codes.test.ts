import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createPublishedProject,
  createTicketType,
  uniqueEmail,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { AppError } from "../../errors.js";
import type { Services } from "../../services.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { publicActor } from "../access/actor.js";
import type { PlaceOrderInput } from "../orders/order-placement.js";

const bankDetails = "Eventgraph Test GmbH\nIBAN DE02 1203 0000 0000 2020 51";

/** A published project taking bank transfers: a €200 pass, and a free hidden speaker ticket. */
async function event(services: Services, quantity = 100) {
  const { project, owner } = await createPublishedProject(services);
  await services.orders.updateSettings(owner, project.id, { holdMinutes: 15, bankDetails });
  const pass = await createTicketType(services, owner, project.id, {
    name: "Conference pass",
    priceMinor: 20000,
    quantity,
    paymentMode: "BANK_TRANSFER",
  });
  const speaker = await createTicketType(services, owner, project.id, {
    name: "Speaker",
    priceMinor: 0,
    quantity: 20,
    hidden: true,
  });
  return { project, owner, pass, speaker };
}

function order(
  projectId: string,
  ticketTypeId: string,
  count: number,
  discountCode?: string,
): PlaceOrderInput {
  return {
    projectId,
    buyerName: "Bea Buyer",
    buyerEmail: uniqueEmail("buyer"),
    tickets: Array.from({ length: count }, (_, i) => ({
      ticketTypeId,
      name: `Guest ${i + 1}`,
      email: uniqueEmail("ticket"),
    })),
    discountCode,
  };
}

for (const engine of testEngines()) {
  describe(`discount codes (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("only tickets:write manages or reads codes; others learn nothing", async () => {
      const { project } = await event(ctx.services);
      const input = { projectId: project.id, code: "EARLY10", kind: "PERCENTAGE" as const, percentOff: 10 };
      for (const actor of [publicActor, appActor(project.id, ["tickets:read", "orders:write"])]) {
        await assert.rejects(ctx.services.discountCodes.createDiscountCode(actor, input), AppError);
        await assert.rejects(ctx.services.discountCodes.exportCsv(actor, project.id), AppError);
      }
      const code = await ctx.services.discountCodes.createDiscountCode(
        appActor(project.id, ["tickets:write"]),
        input,
      );
      assert.equal(
        await ctx.services.discountCodes.findDiscountCode(appActor(project.id, ["tickets:read"]), code.id),
        undefined,
      );
    });

    test("refuses garbage terms and a code taken in another case", async () => {
      const { project, owner } = await event(ctx.services);
      const base = { projectId: project.id, code: "GOOD-1" };
      const create = (extra: object) =>
        ctx.services.discountCodes.createDiscountCode(owner, {
          ...base,
          kind: "PERCENTAGE",
          percentOff: 5,
          ...extra,
        });
      await rejectsWithFieldErrors(create({ percentOff: 101 }), ["percentOff"]);
      await rejectsWithFieldErrors(create({ percentOff: null }), ["percentOff"]);
      await rejectsWithFieldErrors(create({ kind: "ACCESS" }), ["ticketTypeIds"]);
      await rejectsWithFieldErrors(create({ code: "=cmd|x" }), ["code"]);
      await rejectsWithFieldErrors(create({ code: "ab" }), ["code"]);
      await rejectsWithFieldErrors(create({ ticketTypeIds: ["00000000-0000-0000-0000-000000000000"] }), [
        "ticketTypeIds",
      ]);
      await rejectsWithFieldErrors(
        create({ validFrom: "2030-01-02T00:00:00Z", validUntil: "2030-01-01T00:00:00Z" }),
        ["validUntil"],
      );
      await create({});
      await assert.rejects(create({ code: "good-1" }), { code: "CONFLICT" });
    });

    test("takes a percentage or an amount off each covered ticket, case-insensitively, shown on the order", async () => {
      const { project, owner, pass } = await event(ctx.services);
      await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "Team25",
        kind: "PERCENTAGE",
        percentOff: 25,
      });
      await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "MINUS300",
        kind: "FIXED_AMOUNT",
        amountOffMinor: 30000,
        ticketTypeIds: [pass.id],
      });
      const a = await ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 2, "  tEaM25 "));
      assert.equal(a.order.totalMinor, 30000);
      assert.equal(a.order.discountMinor, 10000);
      assert.equal(a.order.discountCode, "Team25");
      const lines = (await ctx.services.orders.linesOf([a.order.id])).get(a.order.id);
      assert.deepEqual(
        lines?.map((l) => [l.unitPriceMinor, l.unitDiscountMinor, l.quantity]),
        [[20000, 5000, 2]],
      );
      // More off than the price: the ticket is free, never negative, and the order needs no payment.
      const b = await ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 1, "minus300"));
      assert.equal(b.order.totalMinor, 0);
      assert.equal(b.order.state, "PAID");
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 1, "NOPE")),
        ["discountCode"],
      );
    });

    test("an access code unlocks a hidden ticket type, which the public list never shows", async () => {
      const { project, owner, pass, speaker } = await event(ctx.services);
      const publicAccess = await ctx.services.access.require(publicActor, project.id);
      const listed = await ctx.services.tickets.listTicketTypes(
        publicAccess,
        {},
        resolvePageArgs({ first: 10 }),
      );
      assert.deepEqual(
        listed.items.map((t) => t.id),
        [pass.id],
      );
      assert.equal(await ctx.services.tickets.findTicketType(publicActor, speaker.id), undefined);
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, speaker.id, 1)),
        ["tickets"],
      );
      // A code for every ticket type does not unlock hidden ones: only a code naming them does.
      await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "ALL10",
        kind: "PERCENTAGE",
        percentOff: 10,
      });
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, speaker.id, 1, "ALL10")),
        ["tickets"],
      );
      await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "SPEAKERS",
        kind: "ACCESS",
        ticketTypeIds: [speaker.id],
        maxPerOrder: 1,
      });
      // A code for the speaker ticket does not discount the pass, and refuses an order it does not apply to.
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 1, "speakers")),
        ["discountCode"],
      );
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, speaker.id, 2, "speakers")),
        ["discountCode"],
      );
      const placed = await ctx.services.orders.placeOrder(
        publicActor,
        order(project.id, speaker.id, 1, "speakers"),
      );
      assert.equal(placed.order.state, "PAID");
      assert.equal(placed.tickets.length, 1);
    });

    test("a code works only inside its validity window", async () => {
      const { project, owner, pass } = await event(ctx.services);
      const future = new Date(Date.now() + 86_400_000).toISOString();
      await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "LATER",
        kind: "PERCENTAGE",
        percentOff: 50,
        validFrom: future,
      });
      await rejectsWithFieldErrors(
        ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 1, "LATER")),
        ["discountCode"],
      );
    });

    test("50 parallel orders with a code of 10 uses: exactly 10 get it; cancelling gives a use back", async () => {
      const { project, owner, pass } = await event(ctx.services);
      const code = await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "TEN",
        kind: "PERCENTAGE",
        percentOff: 10,
        maxUses: 10,
      });
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, () =>
          ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 1, "ten")),
        ),
      );
      const placed = results.filter((r) => r.status === "fulfilled");
      assert.equal(placed.length, 10);
      for (const r of results) {
        if (r.status === "rejected") assert.equal((r.reason as AppError).code, "CONFLICT");
      }
      const after = await ctx.services.discountCodes.findDiscountCode(owner, code.id);
      assert.equal(after?.item.uses, 10);
      const first = placed[0];
      assert.ok(first?.status === "fulfilled");
      await ctx.services.refunds.cancelOrder(owner, { id: first.value.order.id });
      assert.equal((await ctx.services.discountCodes.findDiscountCode(owner, code.id))?.item.uses, 9);
      await ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 1, "TEN"));
      assert.equal((await ctx.services.discountCodes.findDiscountCode(owner, code.id))?.item.uses, 10);
    });

    test("generates 200 single-use codes as one batch, exported as CSV, audited once", async () => {
      const { project, owner } = await event(ctx.services);
      const codes = await ctx.services.discountCodes.generateDiscountCodes(owner, {
        projectId: project.id,
        count: 200,
        prefix: "SPONSOR-",
        batch: "=Sponsor batch",
        kind: "FIXED_AMOUNT",
        amountOffMinor: 5000,
        maxUses: 1,
      });
      assert.equal(codes.length, 200);
      assert.equal(new Set(codes.map((c) => c.code)).size, 200);
      assert.ok(codes.every((c) => /^SPONSOR-[0-9A-Z]{10}$/.test(c.code) && c.maxUses === 1));
      const csv = await ctx.services.discountCodes.exportCsv(owner, project.id, "=Sponsor batch");
      const rows = csv.trim().split("\r\n");
      assert.equal(rows.length, 201);
      assert.match(rows[1] ?? "", /^SPONSOR-[0-9A-Z]{10},FIXED_AMOUNT,,5000,1,0,,,,'=Sponsor batch$/);
      const audited = await ctx.database.db
        .selectFrom("audit_events")
        .select("action")
        .where("project_id", "=", project.id)
        .where("action", "like", "discount_code.%")
        .execute();
      assert.deepEqual(
        audited.map((a) => a.action),
        ["discount_code.generated"],
      );
      await rejectsWithFieldErrors(
        ctx.services.discountCodes.generateDiscountCodes(owner, {
          projectId: project.id,
          count: 1001,
          kind: "PERCENTAGE",
          percentOff: 5,
        }),
        ["count"],
      );
    });

    test("the event page counts code lookups per address: a script guessing codes stops at 120 an hour", async () => {
      const { project, owner } = await event(ctx.services);
      await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "REAL-CODE",
        kind: "PERCENTAGE",
        percentOff: 10,
      });
      const page = await ctx.services.eventPage.openPage(project.id);
      assert.ok(page);
      const content = await ctx.services.eventPage.content(page.access);
      const ip = `198.51.100.${Math.floor(Math.random() * 250)}`;
      for (let i = 0; i < 120; i++) {
        const tried = await ctx.services.eventPage.withCode(content, `GUESS${i}`, ip);
        assert.equal(tried.error, "This code is not valid for this event.");
      }
      const blocked = await ctx.services.eventPage.withCode(content, "real-code", ip);
      assert.equal(blocked.code, undefined);
      assert.match(blocked.error ?? "", /Too many codes/);
      const other = await ctx.services.eventPage.withCode(content, "real-code", "203.0.113.9");
      assert.equal(other.code?.code, "REAL-CODE");
    });

    test("a batch of 1,000 codes is one bounded write", async (t) => {
      const { project, owner } = await event(ctx.services);
      const started = performance.now();
      const codes = await ctx.services.discountCodes.generateDiscountCodes(owner, {
        projectId: project.id,
        count: 1000,
        kind: "PERCENTAGE",
        percentOff: 15,
        maxUses: 1,
      });
      const ms = performance.now() - started;
      t.diagnostic(`${engine.name}: 1,000 codes generated in ${Math.round(ms)} ms`);
      assert.equal(codes.length, 1000);
      const csv = await ctx.services.discountCodes.exportCsv(owner, project.id);
      assert.equal(csv.trim().split("\r\n").length, 1001);
    });

    test("deleting a code keeps its orders' code and discount; cancelling such an order still works", async () => {
      const { project, owner, pass } = await event(ctx.services);
      const code = await ctx.services.discountCodes.createDiscountCode(owner, {
        projectId: project.id,
        code: "GONE",
        kind: "FIXED_AMOUNT",
        amountOffMinor: 500,
      });
      const placed = await ctx.services.orders.placeOrder(publicActor, order(project.id, pass.id, 1, "gone"));
      await ctx.services.discountCodes.deleteDiscountCode(owner, { id: code.id });
      const [kept] = (await ctx.services.orders.ordersByIds([placed.order.id])).values();
      assert.equal(kept?.discountCode, "GONE");
      assert.equal(kept?.discountMinor, 500);
      // Cancelling the order of a deleted code gives nothing back, and fails on nothing.
      await ctx.services.refunds.cancelOrder(owner, { id: placed.order.id });
      assert.equal(await ctx.services.discountCodes.findDiscountCode(owner, code.id), undefined);
    });
  });
}
