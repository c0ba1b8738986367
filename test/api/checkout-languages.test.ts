import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { createTicketType } from "../helpers/factories.js";
import type { ReceivedMail } from "../helpers/mailbox.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverWithMailboxPerSuite, type TestServer } from "../helpers/test-server.js";

/** The mail with its text read as UTF-8 (the mailbox decodes quoted-printable byte by byte). */
const utf8 = (mail: ReceivedMail): ReceivedMail => ({
  ...mail,
  text: Buffer.from(mail.text, "latin1").toString("utf8"),
});

/** An event written in English, offered in German too, selling a bank-transfer ticket with 19 % tax. */
async function bilingualShop(server: TestServer) {
  const { actor, project } = await createOrganizer(server.services, {
    project: { name: "Harbour Conf", timezone: "Europe/Berlin", status: "PUBLISHED" },
  });
  await server.services.orders.updateSettings(actor, project.id, {
    holdMinutes: 60,
    bankDetails: "IBAN DE02 1203 0000 0000 2020 51",
    taxRateBasisPoints: 1_900,
    sellerDetails: "Harbour GmbH\nKiel",
  });
  const pass = await createTicketType(server.services, actor, project.id, {
    name: "Day pass",
    priceMinor: 11_900,
    currency: "EUR",
    paymentMode: "BANK_TRANSFER",
  });
  await server.services.eventLanguages.update(actor, project.id, {
    languages: ["en", "de"],
    translations: [
      { language: "de", subject: "project", field: "name", text: "Hafenkonferenz" },
      { language: "de", subject: pass.id, field: "name", text: "Tagesticket" },
    ],
  });
  return { actor, project, pass };
}

/** Step 2 of the checkout for one ticket, and its signed hidden fields. */
async function detailsForm(server: TestServer, projectId: string, ticketTypeId: string, language: string) {
  const response = await fetch(`${server.url}/e/${projectId}/order?q.${ticketTypeId}=1`, {
    headers: { "accept-language": language },
  });
  const html = await response.text();
  const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? "";
  const fields = Object.fromEntries(
    ["idempotencyKey", "issuedAt", "signature", "language"].map((name) => [name, hidden(name)]),
  );
  return { status: response.status, html, fields };
}

for (const engine of testEngines()) {
  describe(`the checkout in the buyer's language (${engine.name})`, () => {
    const { server, mailbox } = serverWithMailboxPerSuite(engine);

    test("a German browser gets the checkout, its refusals, the order page and the confirmation in German", async () => {
      const { actor, project, pass } = await bilingualShop(server);
      const step1 = await (
        await fetch(`${server.url}/e/${project.id}/order`, {
          headers: { "accept-language": "de-DE,de;q=0.9" },
        })
      ).text();
      assert.match(step1, /<html lang="de"/);
      assert.match(step1, /Tickets für Hafenkonferenz/);
      assert.match(step1, /Tagesticket · 119,00\s€/);
      assert.match(step1, /Rabatt- oder Zugangscode/);

      const step2 = await detailsForm(server, project.id, pass.id, "de");
      assert.equal(step2.status, 200);
      assert.match(step2.html, /Ihre Bestellung/);
      assert.match(step2.html, /Gesamt <strong>119,00\s€<\/strong> \(darin 19,00\s€ Steuer\)/);
      assert.match(step2.html, /Ticket 1: Tagesticket/);
      assert.match(step2.html, /Zahlungspflichtig bestellen/);
      assert.equal(step2.fields.language, "de");

      // Refused: every message in German, none of the services' English.
      const post = (fields: Record<string, string>) =>
        fetch(`${server.url}/e/${project.id}/order`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ ...step2.fields, [`q.${pass.id}`]: "1", ...fields }),
        });
      const refused = await post({
        buyerName: "",
        buyerEmail: "not-an-address",
        "tickets.0.ticketTypeId": pass.id,
        "tickets.0.name": "",
        "tickets.0.email": "ann@example.org",
      });
      assert.equal(refused.status, 400);
      const refusal = await refused.text();
      assert.match(refusal, /Bitte korrigieren Sie die markierten Felder\./);
      assert.match(refusal, /Bitte füllen Sie dieses Feld aus\./);
      assert.match(refusal, /Bitte geben Sie eine gültige E-Mail-Adresse ein\./);
      assert.doesNotMatch(refusal, /must not be empty|valid email address|Please correct/i);

      const buyerEmail = `bea-${engine.name}@example.org`;
      const placed = await post({
        buyerName: "Bea Käuferin",
        buyerEmail,
        "tickets.0.ticketTypeId": pass.id,
        "tickets.0.name": "Ann",
        "tickets.0.email": "ann@example.org",
      });
      assert.equal(placed.status, 303);
      const location = placed.headers.get("location") ?? "";
      assert.match(location, /^\/e\/\w{4}\/orders\/[\w-]+\/[\w-]+\?lang=de$/);
      // The order page follows ?lang= whatever the browser says; dates and amounts through Intl.
      const page = await (
        await fetch(`${server.url}${location}`, { headers: { "accept-language": "en" } })
      ).text();
      assert.match(page, /Zahlung ausstehend/);
      assert.match(page, /Per Überweisung bezahlen/);
      assert.match(page, /Überweisen Sie 119,00\s€ mit diesem Verwendungszweck:/);
      assert.match(
        page,
        /Ihre Plätze sind bis \w{2}\., \d{1,2}\. \w+\.? \d{4}, \d\d:\d\d \S+ \(Zeitzone Europe\/Berlin\) für Sie reserviert\./,
      );
      assert.match(page, /1 × Tagesticket · 119,00\s€ \(inkl\. 19\s% Steuer 19,00\s€\)/);

      // Paid: the confirmation arrives in the language the order was placed in.
      const code = /Bestellung (\S+)<\/h1>/.exec(page)?.[1] ?? "";
      const order = await server.services.database.db
        .selectFrom("orders")
        .select("id")
        .where("project_id", "=", project.id)
        .where("code", "=", code)
        .executeTakeFirstOrThrow();
      await server.services.orders.markOrderPaid(actor, { id: order.id });
      const mail = utf8(await mailbox.latest(buyerEmail));
      assert.equal(mail.subject, `Ihre Bestellung ${code} für Hafenkonferenz`);
      assert.match(mail.text, /^Hallo Bea Käuferin,/);
      assert.match(mail.text, /vielen Dank für Ihre Bestellung \S+ für Hafenkonferenz\. Sie ist bezahlt\./);
      assert.match(mail.text, /1 × Tagesticket: 119,00\s€ \(inkl\. 19\s% Steuer 19,00\s€\)/);
      assert.match(mail.text, /Gesamt: 119,00\s€ \(inkl\. Steuer 19,00\s€\)/);
      assert.match(mail.text, /- Ann \(ann@example\.org\): Ticket-Code \w+/);
      assert.doesNotMatch(mail.text, /Your tickets|thank you/);
    });

    test("without German in the browser the checkout stays English, and an event's only language needs no ?lang=", async () => {
      const { project, pass } = await bilingualShop(server);
      const step2 = await detailsForm(server, project.id, pass.id, "en-GB");
      assert.match(step2.html, /<html lang="en"/);
      assert.match(step2.html, /Your order/);
      assert.match(step2.html, /Total <strong>€119\.00<\/strong> \(includes €19\.00 tax\)/);
      assert.equal(step2.fields.language, "en");
      // A language the event does not offer is not served, whatever is asked.
      const french = await (await fetch(`${server.url}/e/${project.id}/order?lang=fr`)).text();
      assert.match(french, /<html lang="en"/);
    });
  });
}
