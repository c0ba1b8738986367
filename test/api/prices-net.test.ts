import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { publicActor } from "../../src/modules/access/actor.js";
import { creditLines, invoiceLines } from "../../src/modules/invoices/invoice-document.js";
import { priceLine } from "../../src/modules/invoices/taxes.js";
import { testEngines } from "../helpers/engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import type { ReceivedMail } from "../helpers/mailbox.js";
import { pdfText } from "../helpers/pdf-text.js";
import { serverWithMailboxPerSuite } from "../helpers/test-server.js";

/** The mail with its text read as UTF-8 (the mailbox decodes quoted-printable byte by byte). */
const utf8 = (mail: ReceivedMail): ReceivedMail => ({
  ...mail,
  text: Buffer.from(mail.text, "latin1").toString("utf8"),
});

describe("priceLine", () => {
  test("a gross price is charged as entered and its tax taken out once per line", () => {
    const gross = { unitPriceMinor: 11_900, unitDiscountMinor: 0, quantity: 2, rateBasisPoints: 1_900 };
    assert.deepEqual(priceLine({ ...gross, pricesNet: false }), {
      unitPriceMinor: 11_900,
      unitDiscountMinor: 0,
      taxMinor: 3_800,
    });
  });

  test("a net price gets its tax added per ticket, rounded half up, the discount taken off the net", () => {
    const net = { unitDiscountMinor: 0, rateBasisPoints: 1_900, pricesNet: true };
    // 10.05 × 19 % = 1.9095 → 1.91 a ticket; three tickets: 5.73 of tax, 35.88 in all.
    assert.deepEqual(priceLine({ ...net, unitPriceMinor: 1_005, quantity: 3 }), {
      unitPriceMinor: 1_196,
      unitDiscountMinor: 0,
      taxMinor: 573,
    });
    // 100.00 net less a 10.00 code: 90.00 net + 17.10 tax = 107.10 paid of a 119.00 list price.
    const coded = priceLine({ ...net, unitPriceMinor: 10_000, unitDiscountMinor: 1_000, quantity: 1 });
    assert.deepEqual(coded, { unitPriceMinor: 11_900, unitDiscountMinor: 1_190, taxMinor: 1_710 });
    // No rate, no tax; a free ticket stays free.
    assert.equal(priceLine({ ...net, rateBasisPoints: 0, unitPriceMinor: 999, quantity: 2 }).taxMinor, 0);
    assert.deepEqual(priceLine({ ...net, unitPriceMinor: 0, quantity: 4 }), {
      unitPriceMinor: 0,
      unitDiscountMinor: 0,
      taxMinor: 0,
    });
  });
});

for (const engine of testEngines()) {
  describe(`prices entered net (${engine.name})`, () => {
    const { server, mailbox } = serverWithMailboxPerSuite(engine);

    async function netEvent() {
      const { project, owner } = await createPublishedProject(server.services);
      const settings = {
        holdMinutes: 60,
        bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
        taxRateBasisPoints: 1_900,
        sellerDetails: "Net Conf GmbH\nBerlin",
        invoicePrefix: "NET-",
      };
      // Refused garbage first: the option is a boolean, nothing else.
      await assert.rejects(
        server.services.orders.updateSettings(owner, project.id, {
          ...settings,
          pricesNet: "yes" as unknown as boolean,
        }),
        /pricesNet/,
      );
      await server.services.orders.updateSettings(owner, project.id, { ...settings, pricesNet: true });
      const pass = await createTicketType(server.services, owner, project.id, {
        name: "Pass",
        priceMinor: 10_000,
        paymentMode: "BANK_TRANSFER",
      });
      const workshop = await createTicketType(server.services, owner, project.id, {
        name: "Workshop",
        priceMinor: 1_005,
        paymentMode: "BANK_TRANSFER",
        taxRateBasisPoints: 700,
      });
      return { project, owner, pass, workshop, settings };
    }

    test("the event page and both checkout steps say plus tax beside a net price, and not beside a gross one", async () => {
      const { project, owner, pass, settings } = await netEvent();
      const page = async (path: string) => {
        const response = await fetch(`${server.url}${path}`);
        assert.equal(response.status, 200, path);
        // Text only, one space between words: what a reader sees.
        return (await response.text()).replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
      };
      assert.match(await page(`/e/${project.id}`), /Pass €100\.00 plus tax, pay by bank transfer/);
      assert.match(await page(`/e/${project.id}/order`), /Pass · €100\.00 plus tax/);
      const summary = await page(`/e/${project.id}/order?q.${pass.id}=2`);
      assert.match(summary, /2 × Pass · €100\.00 plus tax/);
      assert.match(summary, /Total €238\.00 \(includes €38\.00 tax\)/);

      await server.services.orders.updateSettings(owner, project.id, { ...settings, pricesNet: false });
      const gross = await page(`/e/${project.id}/order`);
      assert.match(gross, /Pass · €100\.00/);
      assert.doesNotMatch(gross, /plus tax/);
      assert.doesNotMatch(await page(`/e/${project.id}`), /plus tax/);
    });

    test("the tax is added to net prices on the order, its confirmation and its invoice PDF", async () => {
      const { project, owner, pass, workshop, settings } = await netEvent();
      assert.equal((await server.services.orders.settings(owner, project.id)).pricesNet, true);
      const buyerEmail = uniqueEmail("buyer");
      const placed = await server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail,
        tickets: [
          { ticketTypeId: pass.id, name: "Ann", email: uniqueEmail("ann") },
          { ticketTypeId: pass.id, name: "Ben", email: uniqueEmail("ben") },
          { ticketTypeId: workshop.id, name: "Cid", email: uniqueEmail("cid") },
        ],
      });
      // 2 × (100.00 + 19.00) + (10.05 + 0.70) = 248.75, of which 38.70 is tax.
      assert.equal(placed.order.totalMinor, 24_875);
      const lines = (await server.services.orders.linesOf([placed.order.id])).get(placed.order.id) ?? [];
      assert.deepEqual(
        lines.map((l) => [l.ticketTypeName, l.unitPriceMinor, l.taxMinor, l.pricesNet]),
        [
          ["Pass", 11_900, 3_800, true],
          ["Workshop", 1_075, 70, true],
        ],
      );

      // Switching back to gross rewrites no placed order: its lines froze how they were sold.
      await server.services.orders.updateSettings(owner, project.id, { ...settings, pricesNet: false });
      await server.services.orders.markOrderPaid(owner, { id: placed.order.id });
      const mail = utf8(await mailbox.latest(buyerEmail));
      assert.match(mail.text, /2 × Pass: €238\.00 \(€200\.00 \+ 19% tax €38\.00\)/);
      assert.match(mail.text, /1 × Workshop: €10\.75 \(€10\.05 \+ 7% tax €0\.70\)/);
      assert.match(mail.text, /Total: €248\.75 \(incl\. tax €38\.70\)/);
      const pdf = mail.attachments.find((a) => a.filename === "NET-0001.pdf");
      assert.ok(pdf, "the invoice is attached");
      const text = await pdfText(new Uint8Array(pdf.bytes));
      for (const expected of [
        "Unit net",
        "€100.00",
        "€10.05",
        "Net total",
        "€210.05",
        "Tax 19% on €200.00",
        "€38.00",
        "Tax 7% on €10.05",
        "€0.70",
        "€248.75",
      ]) {
        assert.ok(text.includes(expected), `the invoice shows ${expected}:\n${text}`);
      }

      // A gross order placed after the switch shows its unit price gross, as before.
      const later = await server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Gus Gross",
        buyerEmail: uniqueEmail("gus"),
        tickets: [{ ticketTypeId: pass.id, name: "Gus", email: uniqueEmail("gus") }],
      });
      assert.equal(later.order.totalMinor, 10_000);
    });

    test("a credit note for some tickets of a net line takes back exactly their tax", async () => {
      const { project, pass } = await netEvent();
      const placed = await server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail: uniqueEmail("buyer"),
        tickets: Array.from({ length: 3 }, (_, i) => ({
          ticketTypeId: pass.id,
          name: `Guest ${i}`,
          email: uniqueEmail(`guest-${i}`),
        })),
      });
      const lines = (await server.services.orders.linesOf([placed.order.id])).get(placed.order.id) ?? [];
      const invoiced = invoiceLines(lines);
      const [credited] = creditLines(invoiced, new Map([[pass.id, 1]]));
      assert.deepEqual(
        credited && [credited.quantity, credited.grossMinor, credited.taxMinor, credited.netMinor],
        [-1, -11_900, -1_900, -10_000],
      );
    });
  });
}
