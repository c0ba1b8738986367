import type { CompanyField } from "../../db/schema.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { addressKey } from "../../shared/client-address.js";
import { nowIso } from "../../shared/time.js";
import { publicActor } from "../access/actor.js";
import type { Throttle, ThrottleRule } from "../accounts/throttle.js";
import { invoiceDownloadRule } from "../invoices/invoice-reply.js";
import type { PlacedOrder, PlaceOrderInput } from "../orders/order-placement.js";
import type { OrdersService } from "../orders/orders.service.js";
import type { Refunds } from "../orders/refunds.js";

/**
 * Orders from one client address per hour: as generous as registrations (a company orders from
 * behind one address), and it stops a script from holding an event's seats.
 */
const orderIpRule: ThrottleRule = { name: "event-order-ip", limit: 60, windowMs: 3_600_000 };

/** A checkout on the event page: the order, plus the page's fields. */
export type PageOrderInput = PlaceOrderInput & {
  idempotencyKey: string;
  buyerToken: string;
  honeypot?: string | undefined;
};

/**
 * The event page's checkout: the page's own rules (its address budget, page open, registration
 * open, company as the organizer asks, the honeypot) before the orders service's (seats, prices,
 * payment). Undefined for a bot that filled the honeypot: nothing is stored.
 */
export async function placePageOrder(
  deps: { throttle: Throttle; orders: OrdersService },
  openPage: (
    projectId: string,
  ) => Promise<{ settings: { registrationOpen: boolean; companyField: CompanyField } } | undefined>,
  input: PageOrderInput,
  clientIp: string,
): Promise<PlacedOrder | undefined> {
  if (!(await deps.throttle.take([{ rule: orderIpRule, key: addressKey(clientIp) }]))) {
    throw new AppError(ErrorCode.RATE_LIMITED, "Too many orders from your network. Try again in an hour.", {
      retryAfterSeconds: orderIpRule.windowMs / 1000,
    });
  }
  const page = await openPage(input.projectId);
  if (!page) throw notFound("Project");
  if (input.honeypot) return undefined;
  if (!page.settings.registrationOpen) {
    const message = "Registration for this event is closed";
    throw new AppError(ErrorCode.CONFLICT, message, { fieldErrors: [{ field: ["tickets"], message }] });
  }
  const company = page.settings.companyField === "HIDDEN" ? null : input.company;
  if (page.settings.companyField === "REQUIRED" && !company) {
    throw badInput([{ field: ["company"], message: "must not be empty" }]);
  }
  const { honeypot: _ignored, ...order } = input;
  return deps.orders.placeOrder(publicActor, { ...order, company });
}

/** The buyer's side of an order on the event page: its page behind the link, its invoices, the checkout's tax. */
export function pageOrderReads(
  deps: { throttle: Throttle; orders: OrdersService; refunds: Refunds },
  openPage: (projectId: string) => Promise<unknown>,
) {
  /** The order behind a buyer's link, with its lines, tickets, invoices and how to pay; undefined for a wrong link. */
  async function orderByLink(projectId: string, code: string, token: string) {
    if (!(await openPage(projectId))) return undefined;
    const order = await deps.orders.findByBuyerToken(projectId, code, token);
    if (!order) return undefined;
    const [lines, tickets, settings, invoices] = await Promise.all([
      deps.orders.linesOf([order.id]),
      deps.orders.ticketsOf(order),
      deps.orders.pageSettings(projectId),
      deps.orders.invoicesOf([order.id]),
    ]);
    // Offered while the organizer allows it; the refund checks again under the order's lock.
    const cancelUntil =
      order.state === "PAID" && settings.selfCancelUntil !== null && settings.selfCancelUntil > nowIso()
        ? settings.selfCancelUntil
        : null;
    return {
      order,
      lines: lines.get(order.id) ?? [],
      tickets,
      bankDetails: settings.bankDetails,
      invoices: invoices.get(order.id) ?? [],
      cancelUntil,
    };
  }

  return {
    orderByLink,

    /**
     * The buyer cancels the paid order behind their link, or one ticket of it (`ticketId`), for a
     * refund (refunds.ts); undefined for a wrong link or a ticket of another order.
     */
    async cancelOrderByLink(projectId: string, code: string, token: string, ticketId?: string) {
      const found = await orderByLink(projectId, code, token);
      if (!found) return undefined;
      if (ticketId === undefined) return deps.refunds.cancelByBuyer(projectId, found.order.id);
      if (!found.tickets.some((t) => t.id === ticketId)) return undefined;
      return deps.refunds.cancelTicketByBuyer(projectId, found.order.id, ticketId);
    },

    /**
     * An invoice of the order behind a buyer's link, or undefined (a wrong link, another order's
     * invoice and a missing one look the same). PDFs per client address are throttled.
     */
    async invoiceByLink(projectId: string, code: string, token: string, invoiceId: string, clientIp: string) {
      const found = await orderByLink(projectId, code, token);
      const invoice = found?.invoices.find((i) => i.id === invoiceId);
      if (!invoice) return undefined;
      if (!(await deps.throttle.take([{ rule: invoiceDownloadRule, key: addressKey(clientIp) }]))) {
        throw new AppError(
          ErrorCode.RATE_LIMITED,
          "Too many downloads from your network. Try again in an hour.",
        );
      }
      return invoice;
    },

    /** A published project's tax rate (of ticket types without their own) and whether prices are net, for the checkout's totals. */
    checkoutTax: async (projectId: string) => {
      const settings = await deps.orders.pageSettings(projectId);
      return { rateBasisPoints: settings.taxRateBasisPoints, pricesNet: settings.pricesNet };
    },
  };
}
