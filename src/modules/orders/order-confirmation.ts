import { z } from "zod";
import type { Db } from "../../db/database.js";
import { notFound } from "../../errors.js";
import type { Translator } from "../../shared/i18n/translator.js";
import { idText, parseInput } from "../../shared/validation.js";
import type { AccessService } from "../access/access.service.js";
import type { Actor } from "../access/actor.js";
import { assertPermission, orderVisible } from "../access/policy.js";
import type { Email } from "../accounts/mailer.js";
import type { Attendee } from "../attendees/attendees.service.js";
import type { OrderTickets } from "../attendees/order-tickets.js";
import { invoicePdf } from "../invoices/invoice-pdf.js";
import type { Invoice, Invoicing } from "../invoices/invoices.service.js";
import { ticketAttachment } from "../ticket-mails/ticket-mail.js";
import { requeueOrderMail } from "../ticket-mails/ticket-mails.service.js";
import {
  conflict,
  linePriceWords,
  type Order,
  type OrderLine,
  presentLine,
  presentOrder,
} from "./orders.model.js";
import { ordersRepository as repo } from "./orders.repository.js";
import { paymentProvider } from "./payment-providers.js";

/** The words of a confirmation: the buyer's language, and the event's names in it. */
export interface ConfirmationWording {
  words: Translator;
  projectName: string;
  /** A ticket type's name in the language (by its id), else its name as sold. */
  ticketName: (ticketTypeId: string, own: string) => string;
}

/**
 * The buyer's confirmation of an order, in the language the order was placed in: what was bought
 * with its tax, how it is paid, every ticket with its code (and its QR attached, as the ticket email
 * does), and the invoice attached as PDF when one was issued. Sent once the order is paid, or placed
 * when nothing is paid online.
 */
function orderConfirmationMail(input: {
  order: Order;
  lines: readonly OrderLine[];
  tickets: readonly Attendee[];
  wording: ConfirmationWording;
  invoice: { invoice: Invoice; pdf: Buffer } | undefined;
}): Email {
  const { order, wording } = input;
  const { words, projectName } = wording;
  const { t } = words;
  const money = (minor: number) => words.money(minor, order.currency);
  const tax = input.lines.reduce((sum, line) => sum + line.taxMinor, 0);
  const tickets = input.tickets.filter((ticket) => ticket.status === "REGISTERED");
  const paid = order.state === "PAID";
  const names = { code: order.code, event: projectName };
  const text = [
    t("mail.hello", { name: order.buyerName }),
    "",
    paid
      ? t("orderMail.paid", names)
      : t("orderMail.placed", { ...names, payment: t(`provider.${order.provider}`) }),
    "",
    ...input.lines.map(
      (line) =>
        `${line.quantity} × ${wording.ticketName(line.ticketTypeId, line.ticketTypeName)}: ${linePriceWords(line, words, order.currency)}`,
    ),
    tax > 0
      ? t("orderMail.totalTax", { total: money(order.totalMinor), tax: money(tax) })
      : t("orderMail.total", { total: money(order.totalMinor) }),
    ...(order.paymentReference && !paid
      ? [t("orderMail.reference", { reference: order.paymentReference })]
      : []),
    "",
    t("orderMail.tickets"),
    ...tickets.map((ticket) =>
      t("orderMail.ticket", { name: ticket.name, email: ticket.email, code: ticket.ticketCode }),
    ),
    "",
    input.invoice ? t("orderMail.invoice", { number: input.invoice.invoice.number }) : undefined,
    t("orderMail.showCode"),
    "",
    t("orderMail.notYou"),
  ].filter((line): line is string => line !== undefined);
  return {
    to: order.buyerEmail,
    subject: t("orderMail.subject", names),
    text: text.join("\n"),
    attachments: [
      ...tickets.map((ticket) => ticketAttachment(ticket.ticketCode, t("manage.qr", { name: ticket.name }))),
      ...(input.invoice
        ? [
            {
              filename: `${input.invoice.invoice.number.replaceAll("/", "-")}.pdf`,
              contentType: "application/pdf",
              content: input.invoice.pdf,
            },
          ]
        : []),
    ],
  };
}

const byId = z.object({ id: idText });

/** What the buyer's confirmations need. */
interface ConfirmationDeps {
  db: Db;
  access: AccessService;
  tickets: OrderTickets;
  invoicing: Invoicing;
  /** Wakes this process's mail worker after a commit that queued a confirmation. */
  mailQueued: () => void;
}

/** The buyer's confirmation email: built for the mail worker, and sent again on request. */
export function orderConfirmations({ db, access, tickets, invoicing, mailQueued }: ConfirmationDeps) {
  return {
    /**
     * The confirmation email of an order to its buyer (the mail worker, as the server), in the words
     * `wordingIn` gives for the order's language, or undefined
     * when it is no longer due: only a paid order, or a pending one whose seats are kept (at the
     * door, by invoice), is confirmed.
     */
    async confirmationOf(
      projectId: string,
      orderId: string,
      wordingIn: (language: string | null) => Promise<ConfirmationWording>,
    ): Promise<Email | undefined> {
      const row = (await repo.findByIds(db, [orderId]))[0];
      if (!row || row.project_id !== projectId) return undefined;
      const order = presentOrder(row);
      const kept = order.state === "PENDING" && paymentProvider(order.provider).start === "kept";
      if (order.state !== "PAID" && !kept) return undefined;
      const [lines, held, invoices] = await Promise.all([
        repo.linesOf(db, [orderId]),
        tickets.list(db, projectId, orderId),
        invoicing.ofOrders([orderId]),
      ]);
      const issued = invoices.get(orderId) ?? [];
      const invoice = issued.findLast((i) => i.kind === "INVOICE");
      return orderConfirmationMail({
        order,
        lines: lines.map(presentLine),
        tickets: held,
        // The language the order was placed in, which its tickets carry (null: placed elsewhere).
        wording: await wordingIn(held[0]?.language ?? null),
        invoice: invoice ? { invoice, pdf: await invoicePdf(invoice.document) } : undefined,
      });
    },

    /**
     * Sends the buyer's confirmation again (orders:write): a paid order, or a pending one whose seats
     * are kept; CONFLICT for any other. Nothing is queued while one still waits to be sent.
     */
    async resendConfirmation(actor: Actor, input: z.input<typeof byId>): Promise<Order> {
      const { id } = parseInput(byId, input);
      const located = await repo.locate(db, id);
      const found = located ? await access.resolve(actor, located.project_id) : undefined;
      if (!located || !found || !orderVisible(found)) throw notFound("Order");
      assertPermission(found, "orders:write");
      const order = presentOrder(located);
      const kept = order.state === "PENDING" && paymentProvider(order.provider).start === "kept";
      if (order.state !== "PAID" && !kept) throw conflict("Only a paid order is confirmed", ["id"]);
      const [first] = await tickets.list(db, order.projectId, order.id);
      if (first && (await requeueOrderMail(db, order.projectId, order.id, first.id))) mailQueued();
      return order;
    },
  };
}
