import { createMailer } from "../../src/modules/accounts/mailer.js";
import {
  TicketMailWorker,
  type TicketMailWorkerDeps,
} from "../../src/modules/ticket-mails/ticket-mail-worker.js";
import type { TestContext } from "./test-services.js";

/**
 * Runs `work` while a ticket-mail worker on the context's database sends through the SMTP server at
 * `smtpUrl` (fast: 50 a second), and stops the worker afterwards, whatever `work` did.
 */
export async function withMailWorker<T>(
  ctx: TestContext,
  smtpUrl: string,
  work: () => Promise<T>,
  extra: Pick<TicketMailWorkerDeps, "offerMail" | "orderMail"> = {},
): Promise<T> {
  const worker = new TicketMailWorker({
    db: ctx.database.db,
    mailer: createMailer({ ...ctx.config, smtpUrl }, ctx.services.logger),
    logger: ctx.services.logger,
    perSecond: 50,
    ...extra,
  });
  worker.start();
  try {
    return await work();
  } finally {
    await worker.stop();
  }
}
