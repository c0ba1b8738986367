import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loggedInOrganizer, uploadedPreview } from "../helpers/dashboard-organizer.js";
import { sqliteEngine } from "../helpers/engines.js";
import { createAttendee } from "../helpers/factories.js";
import type { HttpClient } from "../helpers/http-client.js";
import { serverPerSuite, serverWithMailboxPerSuite, type TestServer } from "../helpers/test-server.js";

const organizer = (server: TestServer) => loggedInOrganizer(server, { name: "Hopper Con" });

/** Uploads a CSV through the dashboard's form and runs it with the guessed mapping. */
async function importCsv(
  server: TestServer,
  client: HttpClient,
  projectId: string,
  csv: string,
  send: boolean,
) {
  const location = await uploadedPreview(server, client, projectId, csv);
  const preview = await client.get(location);
  assert.match(
    preview.body,
    /name="sendTickets" value="yes" checked/,
    "the import offers to send tickets, on",
  );
  const fields: Record<string, string> = {};
  for (const name of ["map_name", "map_email", "map_company", "map_ticketType"]) {
    fields[name] = client.formValue(name) ?? "";
  }
  if (send) fields.sendTickets = "yes";
  assert.equal((await client.post(`${location}/run`, fields)).status, 303);
  return location.split("/").pop() ?? "";
}

async function waitFor(check: () => Promise<boolean> | boolean, what: string, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Priority one of issue 38: people the organizer registers or imports get their ticket by email,
// through the outbox, at the rate the SMTP server is given.
describe("ticket emails from the dashboard over a real SMTP server", () => {
  const { server, mailbox } = serverWithMailboxPerSuite(sqliteEngine, { MAIL_PER_SECOND: "20" });

  test("Register emails the ticket code and its QR; unticked, it sends nothing", async () => {
    const { client, project, ticketType } = await organizer(server);
    const page = await client.get(`/b/${project.id}/attendees`);
    assert.match(page.body, /name="sendTickets" value="yes" checked/);
    const registered = await client.post(`/b/${project.id}/attendees`, {
      name: "Ada Lovelace",
      email: "ada-register@example.org",
      ticketTypeId: ticketType.id,
      sendTickets: "yes",
    });
    assert.equal(registered.status, 303);
    const mail = await mailbox.latest("ada-register@example.org");
    assert.equal(mail.subject, "Your ticket for Hopper Con");
    const attendee = await server.database.db
      .selectFrom("attendees")
      .select("ticket_code")
      .where("email", "=", "ada-register@example.org")
      .executeTakeFirstOrThrow();
    assert.match(mail.text, new RegExp(`Ticket code: ${attendee.ticket_code}`));
    // The helper decodes quoted-printable bytes one by one, so the euro sign arrives mangled.
    assert.match(mail.text, /Price: \S+99\.00\./);
    assert.equal(mail.attachments[0]?.contentType, "image/svg+xml");
    const flash = await client.get(`/b/${project.id}/attendees`);
    assert.match(flash.body, /Ada Lovelace is registered\. The ticket email is on its way\./);

    await client.post(`/b/${project.id}/attendees`, {
      name: "Quiet Person",
      email: "quiet@example.org",
      ticketTypeId: ticketType.id,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(mailbox.to("quiet@example.org").length, 0, "unticked: no ticket email");
  });

  test("a CSV import sends every new attendee their ticket, no faster than MAIL_PER_SECOND", async () => {
    const { client, project } = await organizer(server);
    const rows = Array.from(
      { length: 30 },
      (_, i) => `Person ${i},import-${i}-${project.id}@example.org,Standard`,
    );
    await importCsv(server, client, project.id, ["Name,Email,Ticket type", ...rows].join("\n"), true);
    const addresses = rows.map((_, i) => `import-${i}-${project.id}@example.org`);
    const started = Date.now();
    await waitFor(() => addresses.every((a) => mailbox.to(a).length === 1), "30 ticket emails");
    // 20 per second: the 30 take at least 29 gaps of 50 ms after the first. A mail is marked sent
    // after the SMTP server took it, so the last mark may follow its arrival.
    const sentTimes = () =>
      server.database.db
        .selectFrom("ticket_mails")
        .select("sent_at")
        .where("project_id", "=", project.id)
        .where("sent_at", "is not", null)
        .orderBy("sent_at")
        .execute();
    await waitFor(async () => (await sentTimes()).length === 30, "30 ticket emails marked sent");
    const times = await sentTimes();
    const first = Date.parse(times[0]?.sent_at ?? "");
    const last = Date.parse(times[29]?.sent_at ?? "");
    assert.ok(last - first >= 29 * 50 - 50, `30 mails went out in ${last - first} ms, faster than 20/s`);
    assert.ok(Date.now() - started < 20_000);
    for (const address of addresses.slice(0, 3))
      assert.match(mailbox.to(address)[0]?.text ?? "", /Ticket code: /);
  });

  test("an import with sending unticked queues nothing", async () => {
    const { client, project } = await organizer(server);
    await importCsv(
      server,
      client,
      project.id,
      `Name,Email,Ticket type\nNo Mail,nomail-${project.id}@example.org,Standard`,
      false,
    );
    await waitFor(
      async () =>
        (await server.services.attendees.registeredByEmail(
          server.database.db,
          project.id,
          `nomail-${project.id}@example.org`,
        )) !== undefined,
      "the import",
    );
    const queued = await server.database.db
      .selectFrom("ticket_mails")
      .select("id")
      .where("project_id", "=", project.id)
      .execute();
    assert.equal(queued.length, 0);
  });

  test("Resend ticket on the attendee's page and for a selection of the list", async () => {
    const { client, project, actor, ticketType } = await organizer(server);
    const one = await createAttendee(server.services, actor, project.id, ticketType.id, {
      email: `one-${project.id}@example.org`,
    });
    const two = await createAttendee(server.services, actor, project.id, ticketType.id, {
      email: `two-${project.id}@example.org`,
    });
    const page = await client.get(`/b/${project.id}/attendees/${one.id}`);
    assert.match(page.body, /No ticket email was sent\./);
    assert.equal((await client.post(`/b/${project.id}/attendees/${one.id}/resend-ticket`, {})).status, 303);
    await mailbox.latest(one.email);
    await waitFor(
      async () => /Ticket emailed /.test((await client.get(`/b/${project.id}/attendees/${one.id}`)).body),
      "the page to say sent",
    );

    await client.get(`/b/${project.id}/attendees`);
    const bulk = await client.post(`/b/${project.id}/attendees/bulk-resend`, { id: [one.id, two.id] });
    assert.equal(bulk.status, 303);
    await waitFor(
      () => mailbox.to(one.email).length === 2 && mailbox.to(two.email).length === 1,
      "two more mails",
    );
    assert.match((await client.get(`/b/${project.id}/attendees`)).body, /2 ticket emails are on their way\./);
  });

  test("nobody resends tickets of another project, nor of a cancelled registration", async () => {
    const { project, actor, ticketType } = await organizer(server);
    const victim = await createAttendee(server.services, actor, project.id, ticketType.id, {
      email: `victim-${project.id}@example.org`,
    });
    const { client: stranger, project: own } = await organizer(server);
    await stranger.get(`/b/${own.id}/attendees`);
    const direct = await stranger.post(`/b/${project.id}/attendees/${victim.id}/resend-ticket`, {});
    assert.equal(direct.status, 404);
    // Another project's attendee id in the stranger's own bulk form is ignored.
    await stranger.get(`/b/${own.id}/attendees`);
    await stranger.post(`/b/${own.id}/attendees/bulk-resend`, { id: [victim.id] });
    await server.services.attendees.cancelAttendee(actor, { id: victim.id });
    assert.equal(await server.services.ticketMails.send(actor, project.id, [victim.id]), 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(mailbox.to(victim.email).length, 0);
  });
});

describe("ticket emails without an SMTP server", () => {
  const server = serverPerSuite(sqliteEngine);

  test("the dashboard says no email was sent and where the ticket is; the outbox row says why", async () => {
    const { client, project, ticketType } = await organizer(server);
    const page = await client.get(`/b/${project.id}/attendees`);
    assert.match(page.body, /no SMTP server \(SMTP_URL\), so no email can go out/);
    await client.post(`/b/${project.id}/attendees`, {
      name: "Offline Person",
      email: `offline-${project.id}@example.org`,
      ticketTypeId: ticketType.id,
      sendTickets: "yes",
    });
    const after = await client.get(`/b/${project.id}/attendees`);
    assert.match(after.body, /No email was sent: this server has no SMTP server \(SMTP_URL\)\./);
    assert.doesNotMatch(after.body, /on its way/);
    await waitFor(async () => {
      const row = await server.database.db
        .selectFrom("ticket_mails")
        .select(["status", "last_error"])
        .where("project_id", "=", project.id)
        .executeTakeFirst();
      return row?.status === "FAILED" && /no SMTP server/.test(row.last_error ?? "");
    }, "the outbox row to fail with the reason");
  });
});
