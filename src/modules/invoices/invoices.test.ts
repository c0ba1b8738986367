import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "../../../test/helpers/factories.js";
import { pdfText } from "../../../test/helpers/pdf-text.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import type { Services } from "../../services.js";
import { publicActor } from "../access/actor.js";
import { invoicePdf } from "./invoice-pdf.js";
import { createInvoicing } from "./invoices.service.js";
import { taxIncluded } from "./taxes.js";

const seller = "Eventgraph Test GmbH\nMusterstraße 1, 10115 Berlin\nVAT id DE123456789";

describe("taxIncluded", () => {
  test("takes the tax out of a gross amount, rounded half up, net and tax adding up to the gross", () => {
    assert.equal(taxIncluded(11_900, 1_900), 1_900);
    assert.equal(taxIncluded(24_900, 1_900), 3_976); // 249 / 1.19 = 209.2437 → 209.24 net
    assert.equal(taxIncluded(1_000, 700), 65); // 10 / 1.07 = 9.3458 → 9.35 net
    assert.equal(taxIncluded(1, 1_900), 0); // 0.84 rounds to 1: no tax on a cent
    assert.equal(taxIncluded(5, 2_500), 1); // 5 / 1.25 = 4 exactly
    assert.equal(taxIncluded(24_900, 0), 0);
    for (let gross = -3_000; gross <= 3_000; gross += 7) {
      for (const rate of [0, 500, 700, 1_900, 2_000, 2_500, 10_000]) {
        const tax = taxIncluded(gross, rate);
        assert.ok(Number.isInteger(tax));
        assert.equal(taxIncluded(-gross, rate), -tax || 0, "a credit takes back exactly the tax");
        const net = gross - tax;
        assert.ok(
          Math.abs(net * (10_000 + rate) - gross * 10_000) <= (10_000 + rate) / 2,
          `${gross} @ ${rate}`,
        );
      }
    }
    // The largest order total stays exact in integer arithmetic.
    assert.equal(taxIncluded(2_147_483_647, 1_900), 2_147_483_647 - Math.round(2_147_483_647 / 1.19));
  });
});

/** A published project selling two ticket types by bank transfer, 19 % by default and 7 % on one. */
async function taxedEvent(services: Services, options: { sellerDetails?: string | null } = {}) {
  const { project, owner } = await createPublishedProject(services);
  await services.orders.updateSettings(owner, project.id, {
    holdMinutes: 60,
    bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
    taxRateBasisPoints: 1_900,
    sellerDetails: options.sellerDetails === undefined ? seller : options.sellerDetails,
    invoicePrefix: "INV-2026-",
  });
  const pass = await createTicketType(services, owner, project.id, {
    name: "Conference pass",
    priceMinor: 24_900,
    quantity: 500,
    paymentMode: "BANK_TRANSFER",
  });
  const workshop = await createTicketType(services, owner, project.id, {
    name: "Workshop",
    priceMinor: 1_000,
    quantity: 500,
    paymentMode: "BANK_TRANSFER",
    taxRateBasisPoints: 700,
  });
  return { project, owner, pass, workshop };
}

const ticket = (ticketTypeId: string) => ({ ticketTypeId, name: "Guest", email: uniqueEmail("ticket") });

for (const engine of testEngines()) {
  describe(`invoices (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    function place(event: Awaited<ReturnType<typeof taxedEvent>>, passes: number, workshops: number) {
      return ctx.services.orders.placeOrder(publicActor, {
        projectId: event.project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        company: "Buyer & Co KG",
        billingAddress: "Hauptstraße 5\n80331 München",
        vatId: "DE987654321",
        tickets: [
          ...Array.from({ length: passes }, () => ticket(event.pass.id)),
          ...Array.from({ length: workshops }, () => ticket(event.workshop.id)),
        ],
      });
    }

    test("refuses a tax rate that is negative, fractional or above 100 %", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      for (const taxRateBasisPoints of [-1, 19.5, 10_001]) {
        await rejectsWithFieldErrors(
          createTicketType(ctx.services, owner, project.id, { taxRateBasisPoints }),
          ["taxRateBasisPoints"],
        );
        await rejectsWithFieldErrors(
          ctx.services.orders.updateSettings(owner, project.id, { holdMinutes: 15, taxRateBasisPoints }),
          ["taxRateBasisPoints"],
        );
      }
    });

    test("issues no invoice while an order is unpaid, nor when the organizer has not said who sells", async () => {
      const anonymous = await taxedEvent(ctx.services, { sellerDetails: null });
      const placed = await place(anonymous, 1, 0);
      assert.equal((await ctx.services.orders.invoicesOf([placed.order.id])).size, 0);
      await ctx.services.orders.markOrderPaid(anonymous.owner, { id: placed.order.id });
      assert.equal((await ctx.services.orders.invoicesOf([placed.order.id])).size, 0);
    });

    test("freezes each line's rate and tax at order time: a rate changed later rewrites nothing", async () => {
      const event = await taxedEvent(ctx.services);
      const placed = await place(event, 2, 1);
      await ctx.services.tickets.updateTicketType(event.owner, { id: event.pass.id, taxRateBasisPoints: 0 });
      const lines = (await ctx.services.orders.linesOf([placed.order.id])).get(placed.order.id) ?? [];
      const byName = new Map(lines.map((l) => [l.ticketTypeName, l]));
      assert.deepEqual(
        [byName.get("Conference pass")?.taxRateBasisPoints, byName.get("Conference pass")?.taxMinor],
        [1_900, 7_951], // 498.00 gross: 418.49 net
      );
      assert.deepEqual(
        [byName.get("Workshop")?.taxRateBasisPoints, byName.get("Workshop")?.taxMinor],
        [700, 65],
      );
    });

    test("invoices a paid order once and credits it once when cancelled, both readable as PDF text", async () => {
      const event = await taxedEvent(ctx.services);
      const placed = await place(event, 2, 1);
      await ctx.services.orders.markOrderPaid(event.owner, { id: placed.order.id });
      await ctx.services.orders.markOrderPaid(event.owner, { id: placed.order.id });
      let issued = (await ctx.services.orders.invoicesOf([placed.order.id])).get(placed.order.id) ?? [];
      assert.deepEqual(
        issued.map((i) => [i.kind, i.number, i.totalMinor]),
        [["INVOICE", "INV-2026-0001", 50_800]],
      );
      const invoice = issued[0]?.document;
      assert.ok(invoice);
      assert.deepEqual([invoice.netMinor, invoice.taxMinor, invoice.grossMinor], [42_784, 8_016, 50_800]);
      assert.deepEqual(
        invoice.taxes.map((t) => [t.rateBasisPoints, t.netMinor, t.taxMinor]),
        [
          [1_900, 41_849, 7_951],
          [700, 935, 65],
        ],
      );
      const text = await pdfText(await invoicePdf(invoice));
      for (const expected of [
        "Invoice INV-2026-0001",
        "Eventgraph Test GmbH",
        "Musterstraße 1, 10115 Berlin",
        "Buyer & Co KG",
        "VAT id: DE987654321",
        placed.order.code,
        "Conference pass",
        "€418.49",
        "€79.51",
        "€498.00",
        "Tax 19% on €418.49",
        "Tax 7% on €9.35",
        "€427.84",
        "€508.00",
      ]) {
        assert.ok(text.includes(expected), `the invoice shows ${expected}:\n${text}`);
      }

      await ctx.services.refunds.cancelOrder(event.owner, { id: placed.order.id });
      await ctx.services.refunds.cancelOrder(event.owner, { id: placed.order.id });
      issued = (await ctx.services.orders.invoicesOf([placed.order.id])).get(placed.order.id) ?? [];
      assert.deepEqual(
        issued.map((i) => [i.kind, i.number, i.totalMinor]),
        [
          ["INVOICE", "INV-2026-0001", 50_800],
          ["CREDIT_NOTE", "INV-2026-0002", -50_800],
        ],
      );
      const note = issued[1]?.document;
      assert.ok(note);
      assert.deepEqual(
        [note.netMinor, note.taxMinor, note.correctsNumber],
        [-42_784, -8_016, "INV-2026-0001"],
      );
      const noteText = await pdfText(await invoicePdf(note));
      for (const expected of ["Credit note INV-2026-0002", "Corrects invoice INV-2026-0001", "-€508.00"]) {
        assert.ok(noteText.includes(expected), `the credit note shows ${expected}:\n${noteText}`);
      }
      const actions = await ctx.database.db
        .selectFrom("audit_events")
        .select("action")
        .where("object_type", "=", "Invoice")
        .where("project_id", "=", event.project.id)
        .orderBy("occurred_at")
        .execute();
      assert.deepEqual(
        actions.map((a) => a.action),
        ["invoice.issued", "invoice.credited"],
      );
    });

    test("a partial refund issues a credit note for its amount, the refund of the rest one for what is left", async () => {
      const event = await taxedEvent(ctx.services);
      const placed = await place(event, 2, 1);
      await ctx.services.orders.markOrderPaid(event.owner, { id: placed.order.id });
      const issued = async () =>
        (await ctx.services.orders.invoicesOf([placed.order.id])).get(placed.order.id) ?? [];
      const kinds = async () => (await issued()).map((i) => [i.kind, i.number, i.totalMinor]);
      // €8.00 of €508.00 back: split over the lines as the invoice splits its gross (498 : 10), each
      // share's tax at its line's rate; the last line takes the rounding.
      await ctx.services.refunds.refundOrder(event.owner, { id: placed.order.id, amountMinor: 800 });
      assert.deepEqual(await kinds(), [
        ["INVOICE", "INV-2026-0001", 50_800],
        ["CREDIT_NOTE", "INV-2026-0002", -800],
      ]);
      const note = (await issued())[1]?.document;
      assert.deepEqual(
        note?.lines.map((l) => [l.description, l.quantity, l.grossMinor, l.taxMinor, l.netMinor]),
        [
          ["Refund: Conference pass", 0, -784, -125, -659],
          ["Refund: Workshop", 0, -16, -1, -15],
        ],
      );
      assert.equal(note?.correctsNumber, "INV-2026-0001");
      const text = await pdfText(new Uint8Array(await invoicePdf(note ?? assert.fail("a note"))));
      for (const expected of ["Credit note INV-2026-0002", "INV-2026-0001", "Refund: Conference pass"])
        assert.ok(text.includes(expected), `the credit note shows ${expected}:\n${text}`);

      const refunded = await ctx.services.refunds.refundOrder(event.owner, { id: placed.order.id });
      assert.equal(refunded.state, "REFUNDED");
      assert.deepEqual(await kinds(), [
        ["INVOICE", "INV-2026-0001", 50_800],
        ["CREDIT_NOTE", "INV-2026-0002", -800],
        ["CREDIT_NOTE", "INV-2026-0003", -50_000],
      ]);
      // Together the notes take back exactly the invoice: its gross and its tax per rate.
      const all = await issued();
      const sum = (pick: (d: NonNullable<typeof note>) => number) =>
        all.reduce((total, i) => total + pick(i.document), 0);
      assert.deepEqual([sum((d) => d.grossMinor), sum((d) => d.taxMinor), sum((d) => d.netMinor)], [0, 0, 0]);
      // Cancelling the refunded order afterwards finds nothing left to credit.
      await ctx.services.refunds.cancelOrder(event.owner, { id: placed.order.id });
      assert.equal((await kinds()).length, 3);
    });

    test("a cancelled unpaid order gets no credit note, and the PDF of a document is the same every time", async () => {
      const event = await taxedEvent(ctx.services);
      const placed = await place(event, 1, 0);
      await ctx.services.refunds.cancelOrder(event.owner, { id: placed.order.id });
      assert.equal((await ctx.services.orders.invoicesOf([placed.order.id])).size, 0);
      const paid = await place(event, 1, 0);
      await ctx.services.orders.markOrderPaid(event.owner, { id: paid.order.id });
      const [invoice] = (await ctx.services.orders.invoicesOf([paid.order.id])).get(paid.order.id) ?? [];
      assert.ok(invoice);
      assert.deepEqual(await invoicePdf(invoice.document), await invoicePdf(invoice.document));
    });

    test("credits part of an invoice, then the rest, never more than is left (the refund's path)", async () => {
      const event = await taxedEvent(ctx.services);
      const placed = await place(event, 3, 0);
      await ctx.services.orders.markOrderPaid(event.owner, { id: placed.order.id });
      const invoicing = createInvoicing(ctx.database.db, ctx.services.changes);
      const found = await ctx.services.orders.findOrder(event.owner, placed.order.id);
      assert.ok(found);
      const source = {
        order: found.item,
        lines: (await ctx.services.orders.linesOf([placed.order.id])).get(placed.order.id) ?? [],
        seller,
        prefix: "INV-2026-",
        payment: "Bank transfer",
      };
      const credit = (quantities?: Map<string, number>) =>
        ctx.services.changes.write(ctx.database.db, event.owner, event.project.id, (trx) =>
          invoicing.creditIn(trx, event.owner, source, quantities),
        );
      const one = await credit(new Map([[event.pass.id, 1]]));
      // 249.00 at 19 %: 209.24 net, 39.76 tax, as a line of one would be.
      assert.deepEqual([one?.totalMinor, one?.document.taxMinor], [-24_900, -3_976]);
      await assert.rejects(credit(new Map([[event.pass.id, 3]])), /Only 2 such tickets/);
      const rest = await credit();
      // What is left of the line's 119.27 tax (3 × 249.00 = 747.00 gross), to the cent.
      assert.deepEqual([rest?.totalMinor, rest?.document.taxMinor], [-49_800, -11_927 + 3_976]);
      assert.equal(await credit(), undefined, "nothing is left to credit");
      const numbers = (
        (await ctx.services.orders.invoicesOf([placed.order.id])).get(placed.order.id) ?? []
      ).map((i) => [i.kind, i.number]);
      assert.deepEqual(numbers, [
        ["INVOICE", "INV-2026-0001"],
        ["CREDIT_NOTE", "INV-2026-0002"],
        ["CREDIT_NOTE", "INV-2026-0003"],
      ]);
      // Cancelling now issues no third note: the invoice is taken back in full.
      await ctx.services.refunds.cancelOrder(event.owner, { id: placed.order.id });
      assert.equal((await ctx.services.orders.invoicesOf([placed.order.id])).get(placed.order.id)?.length, 3);
    });

    test("an order paid by invoice is invoiced when placed, and paying it later issues no second one", async () => {
      const event = await taxedEvent(ctx.services);
      const invoiced = await createTicketType(ctx.services, event.owner, event.project.id, {
        name: "Invoiced pass",
        priceMinor: 11_900,
        quantity: 10,
        paymentMode: "INVOICE",
      });
      const placed = await ctx.services.orders.placeOrder(publicActor, {
        projectId: event.project.id,
        buyerName: "Ivo Invoice",
        buyerEmail: uniqueEmail("buyer"),
        tickets: [ticket(invoiced.id)],
      });
      assert.equal(placed.order.state, "PENDING");
      const issued = () =>
        ctx.services.orders.invoicesOf([placed.order.id]).then((m) => m.get(placed.order.id) ?? []);
      assert.deepEqual(
        (await issued()).map((i) => [i.kind, i.totalMinor, i.document.payment]),
        [["INVOICE", 11_900, "Paid by invoice"]],
      );
      await ctx.services.orders.markOrderPaid(event.owner, { id: placed.order.id });
      assert.equal((await issued()).length, 1);
    });

    test("50 orders paid at once get 50 distinct invoice numbers without a gap", async () => {
      const event = await taxedEvent(ctx.services);
      const orders = [];
      for (let i = 0; i < 50; i++) orders.push((await place(event, 1, 0)).order);
      await Promise.all(orders.map((o) => ctx.services.orders.markOrderPaid(event.owner, { id: o.id })));
      const issued = await ctx.services.orders.invoicesOf(orders.map((o) => o.id));
      const numbers = [...issued.values()].flat().map((i) => i.number);
      assert.equal(numbers.length, 50);
      assert.deepEqual(
        numbers.sort(),
        Array.from({ length: 50 }, (_, i) => `INV-2026-${String(i + 1).padStart(4, "0")}`),
      );
    });
  });
}
