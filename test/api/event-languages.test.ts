import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import { addMember, createTicketType, createUser, userActor } from "../helpers/factories.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverWithMailboxPerSuite, type TestServer } from "../helpers/test-server.js";

/** A published event written in English, also offered in German with its name and a ticket translated. */
async function bilingualEvent(server: TestServer) {
  const { user, actor, project } = await createOrganizer(server.services, {
    project: {
      name: "Harbour Conf",
      description: "Two days by the sea.",
      timezone: "Europe/Berlin",
      startsAt: "2026-05-04T07:00:00.000Z",
      status: "PUBLISHED",
    },
  });
  const door = await createTicketType(server.services, actor, project.id, {
    name: "Door pass",
    priceMinor: 4900,
    currency: "EUR",
    paymentMode: "AT_DOOR",
  });
  const free = await createTicketType(server.services, actor, project.id, {
    name: "Community pass",
    priceMinor: 0,
  });
  await server.services.eventLanguages.update(actor, project.id, {
    languages: ["en", "de"],
    translations: [
      { language: "de", subject: "project", field: "name", text: "Hafenkonferenz" },
      { language: "de", subject: door.id, field: "name", text: "Abendkasse" },
      // Not offered: dropped, never shown.
      { language: "fr", subject: "project", field: "name", text: "Conférence du port" },
    ],
  });
  return { user, actor, project, door, free };
}

/** The hidden fields of a fresh registration form, in the language the request negotiates. */
async function registrationForm(server: TestServer, projectId: string, headers: Record<string, string> = {}) {
  const form = await (await fetch(`${server.url}/e/${projectId}/register?lang=de`, { headers })).text();
  const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form)?.[1] ?? "";
  return {
    form,
    fields: {
      idempotencyKey: hidden("idempotencyKey"),
      issuedAt: hidden("issuedAt"),
      signature: hidden("signature"),
      language: hidden("language"),
    },
  };
}

for (const engine of testEngines()) {
  describe(`the event page and attendee emails in the attendee's language (${engine.name})`, () => {
    const { server, mailbox } = serverWithMailboxPerSuite(engine);

    test("only a manager changes the languages; a stranger's project looks missing", async () => {
      const { project, actor } = await bilingualEvent(server);
      const stranger = await createUser(server.services);
      await assert.rejects(
        server.services.eventLanguages.update(userActor(stranger.id), project.id, {
          languages: ["de"],
          translations: [],
        }),
        { code: "NOT_FOUND" },
      );
      const member = await createUser(server.services);
      await addMember(server.services, actor, project.id, member.email, "MEMBER");
      await assert.rejects(
        server.services.eventLanguages.update(userActor(member.id), project.id, {
          languages: ["de"],
          translations: [],
        }),
        { code: "FORBIDDEN" },
      );
      assert.deepEqual(
        (await server.services.eventLanguages.read(userActor(member.id), project.id)).languages,
        ["en", "de"],
      );
    });

    test("refuses garbage: an unknown language, a language twice, another project's ticket, a control character", async () => {
      const { project, actor } = await bilingualEvent(server);
      const other = await bilingualEvent(server);
      const update = (input: Parameters<TestServer["services"]["eventLanguages"]["update"]>[2]) =>
        server.services.eventLanguages.update(actor, project.id, input);
      await assert.rejects(update({ languages: ["xx" as "en"], translations: [] }), {
        code: "BAD_USER_INPUT",
      });
      await assert.rejects(update({ languages: ["de", "de"], translations: [] }), { code: "BAD_USER_INPUT" });
      await assert.rejects(update({ languages: [], translations: [] }), { code: "BAD_USER_INPUT" });
      await assert.rejects(
        update({
          languages: ["en", "de"],
          translations: [{ language: "de", subject: other.door.id, field: "name", text: "X" }],
        }),
        { code: "BAD_USER_INPUT" },
      );
      await assert.rejects(
        update({
          languages: ["en", "de"],
          translations: [{ language: "de", subject: "project", field: "name", text: "a\u0007b" }],
        }),
        { code: "BAD_USER_INPUT" },
      );
      await assert.rejects(
        update({
          languages: ["en", "de"],
          translations: [{ language: "de", subject: "project", field: "name", text: "x".repeat(201) }],
        }),
        { code: "BAD_USER_INPUT" },
      );
      // Nothing of the refused writes was kept.
      const stored = await server.services.eventLanguages.read(actor, project.id);
      assert.deepEqual(stored.translations.map((t) => t.text).sort(), ["Abendkasse", "Hafenkonferenz"]);
    });

    test("follows Accept-Language among the event's languages, caches each language apart, and ?lang= wins", async () => {
      const { project } = await bilingualEvent(server);
      const page = (headers: Record<string, string>, query = "") =>
        fetch(`${server.url}/e/${project.id}${query}`, { headers });
      const german = await page({ "accept-language": "de-DE,de;q=0.9,en;q=0.5" });
      const body = await german.text();
      assert.match(body, /<html lang="de">/);
      assert.match(body, /<h1>Hafenkonferenz<\/h1>/);
      assert.match(body, /Abendkasse/);
      assert.match(body, /49,00\u00a0€, Zahlung am Eingang/);
      assert.match(body, /Montag, 4\. Mai 2026|Mo\., 4\. Mai 2026/);
      // Untranslated texts appear in the event's own language.
      assert.match(body, /Two days by the sea\./);
      assert.match(body, /Community pass/);
      assert.match(german.headers.get("vary") ?? "", /accept-language/);
      // The switcher: plain links, the current language marked.
      assert.match(body, /<a href="\/e\/\w{4}\?lang=en" hreflang="en" lang="en">English<\/a>/);
      assert.match(body, /hreflang="de" lang="de" aria-current="true">Deutsch<\/a>/);
      assert.match(body, new RegExp(`href="/e/${project.id}/register\\?ticket=[^"]+&amp;lang=de"`));

      const english = await (await page({ "accept-language": "en" })).text();
      assert.match(english, /<html lang="en">/);
      assert.match(english, /<h1>Harbour Conf<\/h1>/);
      assert.match(english, /€49.00, pay at the door/);
      // French is not offered (its stored translation was dropped): the event's first language.
      const french = await (await page({ "accept-language": "fr-FR,fr" })).text();
      assert.match(french, /<html lang="en">/);
      assert.ok(!french.includes("Conférence du port"));
      const chosen = await (await page({ "accept-language": "en" }, "?lang=de")).text();
      assert.match(chosen, /<html lang="de">/);
      // A header of garbage, and a huge one, still get a page.
      const garbage = await page({ "accept-language": `${"q=;,".repeat(2_000)}de` });
      assert.equal(garbage.status, 200);
      assert.match(await garbage.text(), /<html lang="en">/);
    });

    test("a one-language event keeps its addresses and says no Vary on language", async () => {
      const { actor, project } = await createOrganizer(server.services, {
        project: { name: "Solo Conf", status: "PUBLISHED" },
      });
      await createTicketType(server.services, actor, project.id, { name: "Solo pass", priceMinor: 0 });
      const response = await fetch(`${server.url}/e/${project.id}`, { headers: { "accept-language": "de" } });
      const body = await response.text();
      assert.match(body, /<html lang="en">/);
      assert.ok(!body.includes("lang=de") && !body.includes('class="languages"'));
      assert.ok(!(response.headers.get("vary") ?? "").includes("accept-language"));
    });

    test("registers in German, stores the language, and mails the confirmation and a resent ticket in German", async () => {
      const { project, actor, door } = await bilingualEvent(server);
      const { form, fields } = await registrationForm(server, project.id);
      assert.match(form, /Anmeldung für Hafenkonferenz/);
      assert.match(form, /Abendkasse · 49,00\u00a0€, Zahlung am Eingang/);
      assert.equal(fields.language, "de");
      const email = `greta-${engine.name}@example.org`;
      const posted = await fetch(`${server.url}/e/${project.id}/register`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...fields, ticketTypeId: door.id, name: "Greta Gast", email }),
      });
      assert.equal(posted.status, 303);
      assert.equal(posted.headers.get("location"), `/e/${project.id}/registered?lang=de`);
      const inbox = await (await fetch(`${server.url}${posted.headers.get("location")}`)).text();
      assert.match(inbox, /Sehen Sie in Ihr Postfach/);

      const received = await mailbox.latest(email);
      // The mailbox gives quoted-printable escapes as Latin-1 characters; these are UTF-8 bytes.
      const mail = { ...received, text: Buffer.from(received.text, "latin1").toString("utf8") };
      assert.equal(mail.subject, "Ihre Anmeldung für Hafenkonferenz");
      assert.match(mail.text, /^Hallo Greta Gast,/);
      assert.match(mail.text, /Sie sind für Hafenkonferenz angemeldet\./);
      assert.match(mail.text, /Ticket: Abendkasse/);
      assert.match(mail.text, /Preis: 49,00\u00a0€, Zahlung am Eingang\./);

      // The manage link opens in the language the attendee registered in, whatever the browser says.
      const link = /(\/e\/\w{4}\/registration\/[A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? "";
      const manage = await (
        await fetch(`${server.url}${link}`, { headers: { "accept-language": "en" } })
      ).text();
      assert.match(manage, /<h1>Ihre Anmeldung<\/h1>/);
      assert.match(manage, /<dd>Abendkasse<\/dd>/);

      const greta = await server.services.attendees.registeredByEmail(
        server.services.database.db,
        project.id,
        email,
      );
      assert.equal(greta?.language, "de");
      // The organizer resends the ticket: the mail worker writes it in the attendee's language too.
      await server.services.ticketMails.send(actor, project.id, [greta?.id ?? ""]);
      const deadline = Date.now() + 10_000;
      while (mailbox.to(email).length < 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      const resent = mailbox.to(email)[1];
      assert.equal(resent?.subject, "Ihr Ticket für Hafenkonferenz");
      assert.match(
        Buffer.from(resent?.text ?? "", "latin1").toString("utf8"),
        /hier ist Ihr Ticket für Hafenkonferenz\./,
      );
    });
  });
}
