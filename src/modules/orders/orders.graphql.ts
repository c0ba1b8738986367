import type { AttendeesTable } from "../../db/schema.js";
import { builder } from "../../graphql/builder.js";
import { connectionTypes, projectConnection } from "../../graphql/connections.js";
import { requiredLocal } from "../../graphql/ids.js";
import { boundedList } from "../../graphql/limits/list-bounds.js";
import { inputMutation, payloadType } from "../../graphql/mutations.js";
import { nodeLoader } from "../../graphql/nodes.js";
import { requires } from "../../graphql/permissions.js";
import { reads } from "../../graphql/selection.js";
import { AttendeeRef } from "../attendees/attendees.graphql.js";
import { InvoiceRef } from "../invoices/invoices.graphql.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import { MoneyRef, TicketTypeRef } from "../tickets/tickets.graphql.js";
import { maxTicketsPerOrder } from "./order-placement.js";
import type { Order, OrderLine } from "./orders.model.js";
import type { Refund } from "./refunds.js";

const OrderRef = builder.objectRef<Order>("Order");

const OrderStateEnum = builder.enumType("OrderState", {
  description: "Where an order stands (docs/payments.md).",
  values: {
    PENDING: {
      description: "Awaiting payment; its tickets hold their seats (until holdExpiresAt, when set).",
    },
    PAID: { description: "Paid (or free); its tickets keep their seats." },
    EXPIRED: { description: "The hold lapsed unpaid; its tickets were cancelled and their seats freed." },
    CANCELLED: { description: "Cancelled; its tickets were cancelled and their seats freed." },
    REFUNDED: {
      description: "Paid, then refunded in full; its tickets were cancelled and their seats freed.",
    },
  } as const,
});

const PaymentProviderEnum = builder.enumType("PaymentProvider", {
  description: "How an order is paid.",
  values: {
    FREE: { description: "Nothing to pay." },
    AT_DOOR: { description: "Paid at the door; an organizer marks it paid." },
    INVOICE: { description: "Paid by the organizer's invoice; an organizer marks it paid." },
    BANK_TRANSFER: {
      description: "Paid by bank transfer quoting paymentReference; an organizer marks it paid.",
    },
    STRIPE: {
      description: "Paid by card on Stripe Checkout; only Stripe's signed notification marks it paid.",
    },
  } as const,
});

const RefundStateEnum = builder.enumType("RefundState", {
  description: "Where a refund stands.",
  values: {
    PENDING: { description: "Asked of the payment provider, its answer not in yet; its amount is reserved." },
    SUCCEEDED: { description: "Made (by the provider, or recorded as sent back by hand)." },
    FAILED: { description: "Refused by the provider; its amount is refundable again." },
  } as const,
});

const RefundReasonEnum = builder.enumType("RefundReason", {
  description: "Why money was sent back.",
  values: {
    REQUESTED: { description: "An organizer or app refunded (part of) the order." },
    LATE: {
      description:
        "A card payment arrived after the hold lapsed and its seats were taken: refunded on its own.",
    },
    DUPLICATE: { description: "A second payment of an order paid already: refunded on its own." },
    MISMATCH: { description: "A payment whose amount or currency was not the order's: refunded on its own." },
  } as const,
});

const RefundRef = builder.objectRef<Refund>("Refund").implement({
  inheritsAccess: true,
  description: "Money sent back for an order (docs/payments.md).",
  fields: (t) => ({
    amountMinor: t.exposeInt("amountMinor", { description: "Minor units of the order's currency." }),
    state: t.expose("state", { type: RefundStateEnum, description: "Where it stands." }),
    reason: t.expose("reason", { type: RefundReasonEnum, description: "Why it was made." }),
    manual: t.exposeBoolean("manual", {
      description:
        "True when recorded as sent back by hand (bank transfer, invoice); false: through the provider.",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was asked for." }),
  }),
});

const OrderLineRef = builder.objectRef<OrderLine>("OrderLine").implement({
  inheritsAccess: true,
  description: "One ticket type of an order, priced as when the order was placed.",
  fields: (t) => ({
    ticketType: t.field({
      type: TicketTypeRef,
      nullable: true,
      description: "The ticket type.",
      resolve: (line, _args, c) => c.loaders.ticketType.get(line.ticketTypeId),
    }),
    ticketTypeName: t.exposeString("ticketTypeName", { description: "The ticket type's name when ordered." }),
    quantity: t.exposeInt("quantity", { description: "Tickets of this type." }),
    unitPriceMinor: t.exposeInt("unitPriceMinor", {
      description:
        "Price per ticket in minor units of the order's currency, when ordered, before any discount; tax included.",
    }),
    unitDiscountMinor: t.exposeInt("unitDiscountMinor", {
      description: "What the order's discount code took off each ticket of this line (0 without one).",
    }),
    taxRateBasisPoints: t.exposeInt("taxRateBasisPoints", {
      description: "The tax rate the line was sold at, in basis points (1900 is 19 %).",
    }),
    taxMinor: t.exposeInt("taxMinor", {
      description:
        "The tax included in the line's amount (quantity × (unit price − discount)), in minor units, rounded once per line.",
    }),
  }),
});

/** Defines orders (every field needs orders:read), `Project.orders`, `Attendee.order` and their mutations. */
export function defineOrderTypes(): void {
  builder.node(OrderRef, {
    ...requires("orders:read"),
    description:
      "One purchase by one buyer: one or more tickets (attendees) of one or more ticket types. Every field but id needs orders:read.",
    id: { resolve: (o) => o.id },
    loadWithoutCache: nodeLoader((c, id) => c.services.orders.findOrder(c.actor, id)),
    fields: (t) => ({
      code: t.exposeString("code", {
        nullable: true,
        description: "The code people quote, unique in the project, e.g. aB3x-7KQ3MX.",
      }),
      buyerName: t.exposeString("buyerName", { nullable: true, description: "The buyer's name." }),
      buyerEmail: t.exposeString("buyerEmail", { nullable: true, description: "The buyer's email." }),
      state: t.expose("state", {
        type: OrderStateEnum,
        nullable: true,
        description: "Where the order stands.",
      }),
      total: t.field({
        type: MoneyRef,
        nullable: true,
        description:
          "What the order costs, computed from the ticket types' prices when it was placed, less its code's discount.",
        resolve: (o) => ({ amountMinor: o.totalMinor, currency: o.currency }),
      }),
      refunded: t.field({
        type: MoneyRef,
        nullable: true,
        description: "What was refunded of it so far, refunds awaiting the provider's answer included.",
        resolve: (o) => ({ amountMinor: o.refundedMinor, currency: o.currency }),
      }),
      refunds: t.field({
        ...boundedList(100),
        type: [RefundRef],
        nullable: true,
        description: "Money sent back for it, oldest first.",
        resolve: (o, _args, c) => c.loaders.orderRefunds.load(o.id),
      }),
      discountCode: t.exposeString("discountCode", {
        nullable: true,
        description: "The discount or access code the order was placed with; null without one.",
      }),
      discount: t.field({
        type: MoneyRef,
        nullable: true,
        description: "What the code took off in all; total is after it.",
        resolve: (o) => ({ amountMinor: o.discountMinor, currency: o.currency }),
      }),
      provider: t.expose("provider", {
        type: PaymentProviderEnum,
        nullable: true,
        description: "How it is paid.",
      }),
      paymentReference: t.exposeString("paymentReference", {
        nullable: true,
        description: "What the buyer quotes when paying (bank transfer, invoice); null otherwise.",
      }),
      holdExpiresAt: t.expose("holdExpiresAt", {
        type: "DateTime",
        nullable: true,
        description: "While PENDING: when the hold lapses and the seats are freed; null when they are kept.",
      }),
      createdAt: t.expose("createdAt", {
        type: "DateTime",
        nullable: true,
        description: "When it was placed.",
      }),
      paidAt: t.expose("paidAt", { type: "DateTime", nullable: true, description: "When it was paid." }),
      closedAt: t.expose("closedAt", {
        type: "DateTime",
        nullable: true,
        description: "When it was cancelled or expired.",
      }),
      lines: t.field({
        ...boundedList(maxTicketsPerOrder),
        type: [OrderLineRef],
        nullable: true,
        description: "Its ticket types with quantities and unit prices.",
        resolve: (o, _args, c) => c.loaders.orderLines.load(o.id),
      }),
      tax: t.field({
        type: MoneyRef,
        nullable: true,
        description: "The tax included in the total: the sum of its lines' tax.",
        resolve: async (o, _args, c) => ({
          amountMinor: (await c.loaders.orderLines.load(o.id)).reduce((sum, l) => sum + l.taxMinor, 0),
          currency: o.currency,
        }),
      }),
      invoices: t.field({
        ...boundedList(maxTicketsPerOrder * 2),
        type: [InvoiceRef],
        nullable: true,
        description:
          "Its invoice and credit notes in number order, each with the URL of its PDF (empty until one is issued).",
        resolve: (o, _args, c) => c.loaders.orderInvoices.load(o.id),
      }),
      tickets: t.field({
        extensions: {
          ...requires("attendees:read").extensions,
          ...boundedList(maxTicketsPerOrder).extensions,
        },
        type: [AttendeeRef],
        nullable: true,
        description:
          "Its tickets, each an attendee with a name, an email and a ticket code (attendees:read).",
        resolve: (o, _args, c) => c.services.orders.ticketsOf(o),
      }),
    }),
  });

  builder.objectField(AttendeeRef, "order", (t) =>
    t.field({
      ...reads<AttendeesTable>(["order_id"], requires("orders:read")),
      type: OrderRef,
      nullable: true,
      description:
        "The order that bought this ticket; null for a registration made without one (orders:read).",
      resolve: (a, _args, c) => (a.orderId ? c.loaders.order.load(a.orderId) : null),
    }),
  );

  builder.objectField(ProjectRef, "orders", (t) =>
    t.connection(
      {
        ...projectIdOnly(requires("orders:read")),
        type: OrderRef,
        nullable: true,
        description: "Orders by the time they were placed.",
        args: { state: t.arg({ type: OrderStateEnum, description: "Only orders in this state." }) },
        resolve: (project, args, c) => {
          const filter = { state: args.state ?? undefined };
          return projectConnection(c, project.id, args, (access) => ({
            list: (window) => c.services.orders.listOrders(access, filter, window),
            count: () => c.services.orders.countOrders(access, filter),
          }));
        },
      },
      ...connectionTypes("Order", "orders"),
    ),
  );

  const OrderIdInput = (name: string, what: string) =>
    builder.inputType(name, {
      description: what,
      fields: (t) => ({ id: t.id({ required: true, description: "The order's global id." }) }),
    });
  const payload = (name: string, what: string) => payloadType(name, "order", OrderRef, what);
  const input = OrderIdInput("MarkOrderPaidInput", "The order that was paid.");
  const cancelInput = OrderIdInput("CancelOrderInput", "The order to cancel.");

  const RefundOrderInput = builder.inputType("RefundOrderInput", {
    description: "A refund of a paid order.",
    fields: (t) => ({
      id: t.id({ required: true, description: "The order's global id." }),
      amountMinor: t.int({
        description:
          "Minor units to refund; omitted: everything not refunded yet. Never more than was paid less what was refunded.",
      }),
    }),
  });

  builder.mutationFields((t) => ({
    refundOrder: inputMutation(t, {
      permission: "orders:write",
      description:
        "Refunds all or part of a paid order: through Stripe for a card order (Idempotency-Key per refund), recorded as sent back by hand otherwise. A refund of everything cancels its tickets and frees their seats.",
      input: RefundOrderInput,
      payload: payload("RefundOrderPayload", "The result of refundOrder."),
      field: "order",
      write: (args, c) =>
        c.services.refunds.refundOrder(c.actor, {
          id: requiredLocal(args.id, "Order"),
          amountMinor: args.amountMinor ?? undefined,
        }),
    }),
    markOrderPaid: inputMutation(t, {
      permission: "orders:write",
      description:
        "Records that an order was paid (idempotent). A payment after the hold lapsed is accepted only while all its seats are still free; otherwise a userError says to refund it.",
      input,
      payload: payload("MarkOrderPaidPayload", "The result of markOrderPaid."),
      field: "order",
      write: (args, c) => c.services.orders.markOrderPaid(c.actor, { id: requiredLocal(args.id, "Order") }),
    }),
    cancelOrder: inputMutation(t, {
      permission: "orders:write",
      description:
        "Cancels an order (idempotent): its tickets are cancelled and their seats freed. A paid order is first refunded what is left of it through its provider (Stripe, or recorded as sent back by hand) and credited; when Stripe does not answer, the order stays paid, nothing is cancelled, and the error's code is SERVICE_UNAVAILABLE.",
      input: cancelInput,
      payload: payload("CancelOrderPayload", "The result of cancelOrder."),
      field: "order",
      write: (args, c) => c.services.refunds.cancelOrder(c.actor, { id: requiredLocal(args.id, "Order") }),
    }),
  }));
}
