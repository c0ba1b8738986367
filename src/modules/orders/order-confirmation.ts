import { z } from "zod";
import type { Db } from "../../db/database.js";
import { notFound } from "../../errors.js";
import { formatMoney } from "../../shared/money.js";
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

/**
 * The buyer's confirmation of an order: what was bought with its tax, how it is paid, every ticket
 * with its code (and its QR attached, as the ticket email does), and the invoice attached as PDF
 * when one was issued. Sent once the order is paid, or placed when nothing is paid online.
 */
function orderConfirmationMail(input: {
  order: Order;
  lines: readonly OrderLine[];
  tickets: readonly Attendee[];
  projectName: string;
  invoice: { invoice: Invoice; pdf: Buffer } | undefined;
}): Email {
  const { order, projectName } = input;
  const money = (minor: number) => formatMoney(minor, order.currency);
  const tax = input.lines.reduce((sum, line) => sum + line.taxMinor, 0);
  const tickets = input.tickets.filter((t) => t.status === "REGISTERED");
  const paid = order.state === "PAID";
  const text = [
    `Hello ${order.buyerName},`,
    "",
    paid
      ? `thank you for your order ${order.code} for ${projectName}. It is paid.`
      : `thank you for your order ${order.code} for ${projectName}. ${paymentProvider(order.provider).title}.`,
    "",
    ...input.lines.map((line) => `${line.quantity} × ${line.ticketTypeName}: ${linePriceWords(line, money)}`),
    `Total: ${money(order.totalMinor)}${tax > 0 ? ` (incl. tax ${money(tax)})` : ""}`,
    ...(order.paymentReference && !paid ? [`Payment reference: ${order.paymentReference}`] : []),
    "",
    "Your tickets (each QR code is attached):",
    ...tickets.map((t) => `- ${t.name} <${t.email}>: ticket code ${t.ticketCode}`),
    "",
    input.invoice ? `Your invoice ${input.invoice.invoice.number} is attached.` : undefined,
    "Show the ticket code, or its QR code, at the entrance.",
    "",
    "If you did not place this order, reply to the organizer of the event.",
  ].filter((line): line is string => line !== undefined);
  return {
    to: order.buyerEmail,
    subject: `Your order ${order.code} for ${projectName}`,
    text: text.join("\n"),
    attachments: [
      ...tickets.map((t) => ticketAttachment(t.ticketCode, `Ticket QR code of ${t.name}`)),
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
     * The confirmation email of an order to its buyer (the mail worker, as the server), or undefined
     * when it is no longer due: only a paid order, or a pending one whose seats are kept (at the
     * door, by invoice), is confirmed.
     */
    async confirmationOf(
      projectId: string,
      orderId: string,
      projectName: string,
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
        projectName,
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
