import type { CompanyField } from "../../db/schema.js";
import { AppError, badInput, ErrorCode, notFound } from "../../errors.js";
import { addressKey } from "../../shared/client-address.js";
import { publicActor } from "../access/actor.js";
import type { Throttle, ThrottleRule } from "../accounts/throttle.js";
import type { PlacedOrder, PlaceOrderInput } from "../orders/order-placement.js";
import type { OrdersService } from "../orders/orders.service.js";

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
