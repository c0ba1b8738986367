import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { publicActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createSellingProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import type { ReceivedMail } from "../helpers/mailbox.js";
import { pdfText } from "../helpers/pdf-text.js";
import { serverWithMailboxPerSuite } from "../helpers/test-server.js";

/** The mail with its text read as UTF-8 (the mailbox decodes quoted-printable byte by byte). */
const utf8 = (mail: ReceivedMail): ReceivedMail => ({
  ...mail,
  text: Buffer.from(mail.text, "latin1").toString("utf8"),
});

async function waitUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.ok(done(), "in time");
}

for (const engine of testEngines()) {
  describe(`order confirmation email (${engine.name})`, () => {
    const { server, mailbox } = serverWithMailboxPerSuite(engine);

    async function event() {
      const { project, owner } = await createSellingProject(server.services, {
        holdMinutes: 60,
        bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
        taxRateBasisPoints: 1_900,
        sellerDetails: "Mail Conf GmbH\nBerlin",
      });
      return { project, owner };
    }

    test("a bank-transfer order is confirmed once paid, with its tickets' codes and QR and the invoice PDF", async () => {
      const { project, owner } = await event();
      const pass = await createTicketType(server.services, owner, project.id, {
        name: "Pass",
        priceMinor: 11_900,
        paymentMode: "BANK_TRANSFER",
      });
      const buyerEmail = uniqueEmail("buyer");
      const placed = await server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail,
        tickets: [
          { ticketTypeId: pass.id, name: "Ann", email: uniqueEmail("ann") },
          { ticketTypeId: pass.id, name: "Ben", email: uniqueEmail("ben") },
        ],
      });
      // Unpaid: nothing is confirmed yet (the buyer's page shows how to pay).
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(mailbox.to(buyerEmail).length, 0);
      await server.services.orders.markOrderPaid(owner, { id: placed.order.id });
      await server.services.orders.markOrderPaid(owner, { id: placed.order.id });
      const mail = utf8(await mailbox.latest(buyerEmail));
      assert.equal(mail.subject, `Your order ${placed.order.code} for ${project.name}`);
      assert.match(mail.text, /It is paid\./);
      assert.match(mail.text, /2 × Pass: €238\.00 \(incl\. 19% tax €38\.00\)/);
      for (const ticket of placed.tickets) assert.ok(mail.text.includes(`ticket code ${ticket.ticketCode}`));
      assert.match(mail.text, /Your invoice INV-0001 is attached\./);
      const qrs = mail.attachments.filter((a) => a.contentType === "image/svg+xml");
      assert.equal(qrs.length, 2);
      const pdf = mail.attachments.find((a) => a.filename === "INV-0001.pdf");
      assert.ok(pdf, "the invoice is attached");
      const text = await pdfText(new Uint8Array(pdf.bytes));
      assert.ok(text.includes("Invoice INV-0001") && text.includes("€238.00"), text);
      // Paid twice, confirmed once.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(mailbox.to(buyerEmail).length, 1);
      // "Resend confirmation" sends one more; an app or member without orders:write cannot.
      await assert.rejects(
        server.services.orders.resendConfirmation(publicActor, { id: placed.order.id }),
        /not found/i,
      );
      await server.services.orders.resendConfirmation(owner, { id: placed.order.id });
      await waitUntil(() => mailbox.to(buyerEmail).length === 2);
    });

    test("a free order is confirmed when placed, without an invoice", async () => {
      const { project, owner } = await event();
      const free = await createTicketType(server.services, owner, project.id, {
        name: "Free",
        priceMinor: 0,
      });
      const buyerEmail = uniqueEmail("buyer");
      const placed = await server.services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Fred Free",
        buyerEmail,
        tickets: [{ ticketTypeId: free.id, name: "Fred", email: uniqueEmail("fred") }],
      });
      const mail = utf8(await mailbox.latest(buyerEmail));
      assert.ok(mail.text.includes(`ticket code ${placed.tickets[0]?.ticketCode}`));
      assert.doesNotMatch(mail.text, /invoice/i);
      assert.equal(mail.attachments.filter((a) => a.contentType === "application/pdf").length, 0);
    });
  });
}
