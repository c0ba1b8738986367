import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { SMTPServer } from "smtp-server";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createAttendee,
  createProject,
  createTicketType,
  userActor,
} from "../../../test/helpers/factories.js";
import { withMailWorker } from "../../../test/helpers/mail-worker.js";
import { ownTestContextPerSuite } from "../../../test/helpers/test-services.js";
import { ticketMailsRepository as repo } from "./ticket-mails.repository.js";

/** A real SMTP server that refuses every recipient with `code` (451: try later, 550: never). */
async function refusingSmtp(code: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo: (_address, _session, callback) =>
      callback(
        Object.assign(new Error(code === 451 ? "try again later" : "no such mailbox"), {
          responseCode: code,
        }),
      ),
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  return {
    url: `smtp://127.0.0.1:${address.port}`,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

for (const engine of testEngines()) {
  describe(`the ticket-mail outbox (${engine.name})`, () => {
    // A database of its own: on the shared one, every other test file's server runs a worker that
    // claims due mails, ours included.
    const ctx = ownTestContextPerSuite(engine, "ticket_mails");

    async function queued(count: number) {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = userActor(ownerId);
      const type = await createTicketType(ctx.services, owner, project.id);
      const ids: string[] = [];
      for (let i = 0; i < count; i++)
        ids.push((await createAttendee(ctx.services, owner, project.id, type.id)).id);
      await ctx.services.ticketMails.send(owner, project.id, ids);
      return { project, ids };
    }

    test("claims running at once never lease one mail twice", async () => {
      const { project } = await queued(30);
      const now = new Date().toISOString();
      const leaseUntil = new Date(Date.now() + 60_000).toISOString();
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          repo.claim(ctx.database.db, { now, leaseUntil, token: `t${i}`, limit: 10 }),
        ),
      );
      const ours = claims.flat().filter((m) => m.project_id === project.id);
      assert.equal(new Set(ours.map((m) => m.id)).size, ours.length, "no mail in two claims");
      assert.equal(ours.length, 30);
    });

    test("Resend of a ticket that still waits queues no second mail", async () => {
      const { project, ids } = await queued(1);
      const owner = userActor(
        (
          await ctx.database.db
            .selectFrom("project_members")
            .select("user_id")
            .where("project_id", "=", project.id)
            .executeTakeFirstOrThrow()
        ).user_id,
      );
      for (let i = 0; i < 3; i++)
        assert.equal(await ctx.services.ticketMails.send(owner, project.id, ids), 1);
      const rows = await ctx.database.db
        .selectFrom("ticket_mails")
        .select("id")
        .where("project_id", "=", project.id)
        .execute();
      assert.equal(rows.length, 1);
    });

    for (const [code, status, attempts] of [
      [451, "PENDING", 1],
      [550, "FAILED", 1],
    ] as const) {
      test(`an SMTP ${code} leaves the mail ${status} with the server's reason`, async () => {
        const smtp = await refusingSmtp(code);
        const { project } = await queued(1);
        // Mails of earlier tests were leased for a minute: the worker sees only this one due.
        const deadline = Date.now() + 15_000;
        let row:
          | { status: string; attempts: number; last_error: string | null; next_attempt_at: string }
          | undefined;
        await withMailWorker(ctx, smtp.url, async () => {
          while (Date.now() < deadline) {
            row = await ctx.database.db
              .selectFrom("ticket_mails")
              .select(["status", "attempts", "last_error", "next_attempt_at"])
              .where("project_id", "=", project.id)
              .executeTakeFirst();
            if (row && row.attempts > 0) break;
            await new Promise((r) => setTimeout(r, 100));
          }
        });
        await smtp.close();
        assert.equal(row?.status, status);
        assert.equal(row?.attempts, attempts);
        assert.match(row?.last_error ?? "", code === 451 ? /try again later/ : /no such mailbox/);
        if (code === 451)
          assert.ok(Date.parse(row?.next_attempt_at ?? "") > Date.now() + 30_000, "retried later");
      });
    }
  });
}
