import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { publicActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createSellingProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import { Mailbox } from "../helpers/mailbox.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { type Child, startServerProcess } from "../helpers/processes.js";
import { type StripeServer, startStripeServer } from "../helpers/stripe-server.js";
import { createTestContext, type TestContext } from "../helpers/test-services.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Issue 40: the server is killed (SIGKILL) after Stripe's notification arrived and before its effect
// committed. Nothing of it may stay half done, and Stripe's retry (the same event, signed again) must
// leave the order paid exactly once: one recorded event, one invoice, one order.paid, one email.
for (const engine of testEngines()) {
  describe(`a server killed while applying Stripe's notification (${engine.name})`, () => {
    let ctx: TestContext;
    let stand: StripeServer;
    const mailbox = new Mailbox();
    const children: Child[] = [];
    // A test that fails half-way must not leave its lock holder open: the worker could not exit.
    const blockers = new Set<PlainSql>();
    before(async () => {
      stand = await startStripeServer();
      await mailbox.start();
      ctx = await createTestContext(engine, { STRIPE_API_BASE: stand.url });
    });
    after(async () => {
      for (const child of children) child.process.kill("SIGKILL");
      for (const blocker of blockers) await blocker.close();
      await ctx.close();
      await stand.close();
      await mailbox.close();
    });

    const serverEnv = () => ({
      DATABASE_URL: ctx.config.databaseUrl,
      LOG_LEVEL: "info",
      STRIPE_API_BASE: stand.url,
      SMTP_URL: mailbox.url,
    });

    test("after a restart, Stripe's retry pays the order once: one payment, one invoice, one email", async () => {
      const { services } = ctx;
      const { project, owner } = await createSellingProject(services, {
        holdMinutes: 60,
        bankDetails: null,
        sellerDetails: "Kill Conf GmbH\nBerlin",
        invoicePrefix: "K-",
      });
      await services.stripeAccounts.save(owner, project.id, {
        secretKey: stand.secretKey,
        webhookSecret: stand.webhookSecret,
      });
      const pass = await createTicketType(services, owner, project.id, {
        name: "Pass",
        priceMinor: 24_900,
        paymentMode: "STRIPE",
      });
      const buyerEmail = uniqueEmail("buyer");
      const { order } = await services.orders.placeOrder(publicActor, {
        projectId: project.id,
        buyerName: "Bea Buyer",
        buyerEmail,
        tickets: [{ ticketTypeId: pass.id, name: "Holder", email: uniqueEmail("holder") }],
      });
      const url = await services.stripe.checkoutUrl(order, {
        success: "http://127.0.0.1/return",
        cancel: "http://127.0.0.1/return",
      });
      const sessionId = url.split("/").pop() ?? "";
      // The buyer paid on Stripe: this is the event Stripe sends, and sends again until a 2xx.
      const event = stand.completedEvent(sessionId);
      const body = JSON.stringify(event);

      const first = await startServerProcess(serverEnv(), { timeoutMs: 60_000 });
      children.push(first.child);
      stand.pointAt(first.url);
      // Another connection holds what the notification's transaction needs (SQLite's write lock;
      // the order's row on PostgreSQL), so the server has received it and cannot commit.
      const blocker = await plainSql(ctx.config.databaseUrl);
      blockers.add(blocker);
      if (engine.name === "sqlite") await blocker.run("begin immediate");
      else {
        await blocker.run("begin");
        await blocker.run("select id from orders where id = ? for update", order.id);
      }
      let answered = false;
      const delivery = stand.deliver(project.id, body).finally(() => {
        answered = true;
      });
      delivery.catch(() => {});
      if (engine.name === "sqlite") await sleep(1_500);
      else {
        // Until the server's transaction waits for the order's row lock (up to 30 s: a server just
        // started answers its first request slowly on a loaded CI host; 10 s once ran out there).
        let waiting = 0;
        for (let i = 0; i < 600 && waiting === 0; i++) {
          await sleep(50);
          const [row] = await blocker.all<{ n: number | string }>(
            "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          waiting = Number(row?.n ?? 0);
        }
        // If it never waited, whether the server answered tells a refusal from a server that stalled.
        assert.ok(waiting > 0, `the server's transaction waits for the order's lock (answered: ${answered})`);
      }
      assert.equal(answered, false, "the notification is not answered: its effect is not committed");
      first.child.process.kill("SIGKILL");
      await first.child.exited;
      await blocker.run("rollback");
      await blocker.close();
      blockers.delete(blocker);
      await assert.rejects(delivery, "Stripe got no answer, so it will send the event again");

      const rows = () =>
        Promise.all([
          ctx.database.db.selectFrom("orders").select("state").where("id", "=", order.id).executeTakeFirst(),
          ctx.database.db
            .selectFrom("payment_notifications")
            .select("event_id")
            .where("event_id", "=", event.id)
            .execute(),
          ctx.database.db.selectFrom("invoices").select("number").where("order_id", "=", order.id).execute(),
          ctx.database.db
            .selectFrom("audit_events")
            .select("id")
            .where("object_id", "=", order.id)
            .where("action", "=", "order.paid")
            .execute(),
        ]);
      let [state, recorded, invoices, paidEntries] = await rows();
      assert.deepEqual(
        [state?.state, recorded.length, invoices.length, paidEntries.length],
        ["PENDING", 0, 0, 0],
        "nothing of the killed transaction remains",
      );

      const second = await startServerProcess(serverEnv(), { timeoutMs: 60_000 });
      children.push(second.child);
      stand.pointAt(second.url);
      // Stripe's retry, then a duplicate of it (Stripe delivers at least once).
      const retried = await stand.deliver(project.id, body);
      assert.equal(retried.status, 200, JSON.stringify(retried.json));
      assert.equal((await stand.deliver(project.id, body)).status, 200);
      [state, recorded, invoices, paidEntries] = await rows();
      assert.deepEqual(
        [state?.state, recorded.length, invoices.map((i) => i.number), paidEntries.length],
        ["PAID", 1, ["K-0001"], 1],
      );
      // The mail worker of a freshly started process on a loaded machine may take a while.
      for (let i = 0; i < 600 && mailbox.to(buyerEmail).length === 0; i++) await sleep(50);
      // Time for a second confirmation to arrive, if one were queued.
      await sleep(1_500);
      assert.equal(mailbox.to(buyerEmail).length, 1, "one confirmation");
      second.child.process.kill("SIGTERM");
      await second.child.exited;
    });
  });
}
