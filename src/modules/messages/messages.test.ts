import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createAttendee,
  createProject,
  createTicketType,
  userActor,
} from "../../../test/helpers/factories.js";
import { withMailWorker } from "../../../test/helpers/mail-worker.js";
import { Mailbox } from "../../../test/helpers/mailbox.js";
import { ownTestContextPerSuite } from "../../../test/helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`messages to attendees (${engine.name})`, () => {
    // A database of its own: another file's server would otherwise claim our due mails.
    const ctx = ownTestContextPerSuite(engine, "messages");
    let mailbox: Mailbox;
    before(async () => {
      mailbox = await new Mailbox().start();
    });
    after(async () => {
      await mailbox?.close();
    });

    /** A project with two ticket types: Ada and Bob on "Standard", Cy on "Speaker"; Bob is checked in. */
    async function event() {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const standard = await createTicketType(ctx.services, owner, project.id);
      const speaker = await createTicketType(ctx.services, owner, project.id, { name: "Speaker" });
      const ada = await createAttendee(ctx.services, owner, project.id, standard.id, { name: "Ada" });
      const bob = await createAttendee(ctx.services, owner, project.id, standard.id, { name: "Bob" });
      const cy = await createAttendee(ctx.services, owner, project.id, speaker.id, { name: "Cy" });
      await ctx.services.checkins.checkIn(owner, { attendeeId: bob.id });
      return { project, owner, standard, speaker, ada, bob, cy };
    }

    /** Runs a worker sending through the mailbox until `done` holds (or 15 s). */
    async function sendUntil(done: () => Promise<boolean>) {
      const deadline = Date.now() + 15_000;
      await withMailWorker(ctx, mailbox.url, async () => {
        while (Date.now() < deadline && !(await done())) await new Promise((r) => setTimeout(r, 100));
      });
    }

    const statusesOf = async (projectId: string, messageId: string, owner: ReturnType<typeof userActor>) =>
      (await ctx.services.messages.get(owner, projectId, messageId)).recipients.map(
        (r) => `${r.name}:${r.status}`,
      );

    test("refuses an app without attendees:write, and a placeholder that does not exist", async () => {
      const { project, owner } = await event();
      await assert.rejects(
        ctx.services.messages.send(appActor(project.id, ["attendees:read"]), {
          projectId: project.id,
          subject: "Hi",
          body: "Hello",
        }),
      );
      await assert.rejects(
        ctx.services.messages.send(owner, { projectId: project.id, subject: "Hi", body: "Hello {{nmae}}" }),
        /unknown placeholder \{\{nmae\}\}/,
      );
    });

    test("previews with the first recipient's details and counts whom the filter reaches", async () => {
      const { project, owner, standard } = await event();
      const preview = await ctx.services.messages.preview(owner, {
        projectId: project.id,
        subject: "Doors for {{name}}",
        body: "Your code: {{ticketCode}} ({{ticketType}}) at {{event}}",
        filter: { ticketTypeIds: [standard.id], checkedIn: false },
      });
      assert.equal(preview.recipients, 1);
      assert.equal(preview.mail?.subject, "Doors for Ada");
      assert.match(
        preview.mail?.text ?? "",
        new RegExp(`Your code: [\\w-]+ \\(Standard\\) at ${project.name}`),
      );
    });

    test("sends to the filtered attendees through a real SMTP server, and records each as SENT", async () => {
      const { project, owner, standard, ada, bob, cy } = await event();
      const sent = await ctx.services.messages.send(owner, {
        projectId: project.id,
        subject: "Hello {{name}}",
        body: "See you, {{name}}. <img src=x> stays text.",
        filter: { ticketTypeIds: [standard.id] },
      });
      assert.equal(sent.recipients, 2);
      await sendUntil(async () =>
        (await statusesOf(project.id, sent.id, owner)).every((s) => s.endsWith("SENT")),
      );
      assert.deepEqual(await statusesOf(project.id, sent.id, owner), ["Ada:SENT", "Bob:SENT"]);
      const toAda = (await mailbox.latest(ada.email)).text;
      assert.match(toAda, /See you, Ada\. <img src=x> stays text\./);
      assert.ok(mailbox.to(bob.email).some((m) => m.subject === "Hello Bob"));
      assert.ok(!mailbox.to(cy.email).some((m) => m.subject.startsWith("Hello")), "Speaker not picked");
      const [listed] = await ctx.services.messages.list(owner, project.id);
      assert.equal(listed?.counts.SENT, 2);
      const audit = await ctx.database.db
        .selectFrom("audit_events")
        .select("action")
        .where("project_id", "=", project.id)
        .where("action", "=", "message.created")
        .execute();
      assert.equal(audit.length, 1);
    });

    test("a scheduled message waits, and skips who cancelled or was erased meanwhile", async () => {
      const { project, owner, ada, bob, cy } = await event();
      const at = new Date(Date.now() + 1_500).toISOString();
      const sent = await ctx.services.messages.send(owner, {
        projectId: project.id,
        subject: "Later",
        body: "Hi {{name}}",
        when: { kind: "at", at },
      });
      assert.equal(sent.recipients, 3);
      await ctx.services.attendees.cancelAttendee(owner, { id: bob.id });
      await ctx.services.attendees.eraseAttendee(owner, { id: cy.id });
      await sendUntil(async () =>
        (await statusesOf(project.id, sent.id, owner)).every((s) => !s.endsWith("PENDING")),
      );
      const statuses = await statusesOf(project.id, sent.id, owner);
      assert.ok(statuses.includes("Ada:SENT"), statuses.join());
      assert.ok(statuses.includes("Bob:SKIPPED"), statuses.join());
      assert.ok(statuses.filter((s) => s.endsWith("SKIPPED")).length === 2, statuses.join());
      const recipients = (await ctx.services.messages.get(owner, project.id, sent.id)).recipients;
      const adaSentAt = recipients.find((r) => r.id === ada.id)?.sent_at ?? "";
      assert.ok(Date.parse(adaSentAt) >= Date.parse(at), "not sent before its time");
      assert.equal((await mailbox.latest(ada.email)).subject, "Later");
      assert.equal(mailbox.to(bob.email).filter((m) => m.subject === "Later").length, 0);
    });

    test("a process that dies holding a claim loses no mail, and none goes out twice", async () => {
      const { project, owner, ada } = await event();
      const sent = await ctx.services.messages.send(owner, {
        projectId: project.id,
        subject: "Once",
        body: "Only once, {{name}}",
        filter: { checkedIn: false },
      });
      // A process claimed the mails under a short lease (as the worker's claim writes it), then died.
      const db = ctx.database.db;
      await db
        .updateTable("ticket_mails")
        .set({ lease_until: new Date(Date.now() + 1_000).toISOString(), lease_token: "dead-process" })
        .where("message_id", "=", sent.id)
        .execute();
      await sendUntil(async () =>
        (await statusesOf(project.id, sent.id, owner)).every((s) => s.endsWith("SENT")),
      );
      assert.deepEqual(await statusesOf(project.id, sent.id, owner), ["Ada:SENT", "Cy:SENT"]);
      // The dead process's late report (the worker's settle, guarded by its token) changes nothing.
      const late = await db
        .updateTable("ticket_mails")
        .set({ status: "FAILED" })
        .where("message_id", "=", sent.id)
        .where("lease_token", "=", "dead-process")
        .executeTakeFirst();
      assert.equal(Number(late.numUpdatedRows), 0);
      assert.deepEqual(await statusesOf(project.id, sent.id, owner), ["Ada:SENT", "Cy:SENT"]);
      // A second worker started afterwards finds nothing left to send.
      await sendUntil(async () => true);
      assert.equal(mailbox.to(ada.email).filter((m) => m.subject === "Once").length, 1);
    });

    test("a reminder falls due the set time before the event starts; without a start it is refused", async () => {
      const { project, owner } = await event();
      await assert.rejects(
        ctx.services.messages.send(owner, {
          projectId: project.id,
          subject: "Soon",
          body: "Tomorrow",
          when: { kind: "beforeStart", minutes: 60 },
        }),
        /no start time/,
      );
      await ctx.database.db
        .updateTable("projects")
        .set({ starts_at: "2030-05-01T09:00:00.000Z" })
        .where("id", "=", project.id)
        .execute();
      const sent = await ctx.services.messages.send(owner, {
        projectId: project.id,
        subject: "Soon",
        body: "Tomorrow",
        when: { kind: "beforeStart", minutes: 24 * 60 },
      });
      assert.equal(sent.sendAt, "2030-04-30T09:00:00.000Z");
    });
  });
}
