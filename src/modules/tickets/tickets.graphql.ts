import { builder } from "../../graphql/builder.js";
import { connectionTypes, projectConnection } from "../../graphql/connections.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { requiredLocal } from "../../graphql/ids.js";
import { serviceInput } from "../../graphql/inputs.js";
import { crudMutations } from "../../graphql/mutations.js";
import { nodeLoader } from "../../graphql/nodes.js";
import { requires, restricts, widenedBy } from "../../graphql/permissions.js";
import type { PageArgs } from "../../shared/pagination.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import { seatsLeft } from "./seats-left.js";
import type { TicketType } from "./tickets.service.js";

export const TicketTypeRef = builder.objectRef<TicketType>("TicketType");

/** Whether the ticket type's sales window is open now. */
function onSale(ticketType: TicketType, now = new Date().toISOString()): boolean {
  return (
    (!ticketType.salesStartAt || ticketType.salesStartAt <= now) &&
    (!ticketType.salesEndAt || ticketType.salesEndAt > now)
  );
}

export const MoneyRef = builder.objectRef<{ amountMinor: number; currency: string }>("Money").implement({
  inheritsAccess: true,
  description: "An amount of money.",
  fields: (t) => ({
    amountMinor: t.exposeInt("amountMinor", { description: "Amount in minor units (cents for EUR)." }),
    currency: t.exposeString("currency", { description: "ISO 4217 currency code, e.g. EUR." }),
  }),
});

const TicketPaymentModeRef = builder.enumType("TicketPaymentMode", {
  description:
    "How a paid ticket is paid when someone registers for it on the public event page (/e/<id>); there is no built-in payment provider. Free ticket types ignore it.",
  values: {
    NONE: { description: "Not offered for registration on the event page (sold another way)." },
    AT_DOOR: { description: "Registration on the event page; paid at the door." },
    INVOICE: { description: "Registration on the event page; the organizer sends an invoice." },
    BANK_TRANSFER: {
      description:
        "Bought on the event page through an order paid by bank transfer; the seats are held until the order is paid or its hold lapses.",
    },
    STRIPE: {
      description:
        "Bought on the event page through an order paid by card on Stripe Checkout; the seats are held until Stripe confirms the payment or the hold lapses.",
    },
  } as const,
});

/** Defines ticket types, `Project.ticketTypes` and the ticket type mutations. */
export function defineTicketTypes(): void {
  builder.node(TicketTypeRef, {
    description: "A kind of ticket: price, sales window and, with tickets:read, capacity and sales.",
    id: { public: true, resolve: (t) => t.id },
    loadWithoutCache: nodeLoader((c, id) => c.services.tickets.findTicketType(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { public: true, description: "Name, e.g. Early bird." }),
      description: t.exposeString("description", {
        public: true,
        nullable: true,
        description: "What the ticket includes.",
      }),
      price: t.field({
        public: true,
        type: MoneyRef,
        description: "Price per ticket.",
        resolve: (tt) => ({ amountMinor: tt.priceMinor, currency: tt.currency }),
      }),
      salesStartAt: t.expose("salesStartAt", {
        public: true,
        type: "DateTime",
        nullable: true,
        description: "When sales open.",
      }),
      salesEndAt: t.expose("salesEndAt", {
        public: true,
        type: "DateTime",
        nullable: true,
        description: "When sales close.",
      }),
      paymentMode: t.field({
        public: true,
        type: TicketPaymentModeRef,
        description: "How a paid ticket is paid when registered for on the public event page.",
        resolve: (tt) => tt.paymentMode,
      }),
      taxRateBasisPoints: t.exposeInt("taxRateBasisPoints", {
        public: true,
        nullable: true,
        description:
          "The tax included in the price, in basis points (1900 is 19 %); null: the project's default rate applies.",
      }),
      hidden: t.exposeBoolean("hidden", {
        ...requires("tickets:read"),
        nullable: true,
        description:
          "Offered only to buyers holding a discount or access code that names it; never listed publicly (tickets:read).",
      }),
      onSale: t.boolean({
        public: true,
        description: "Whether the sales window is open now.",
        resolve: (tt) => onSale(tt),
      }),
      available: t.boolean({
        public: true,
        description:
          "Whether a ticket can be bought now: on sale and a seat left (seats freed while people are on the waiting list are theirs). Public; no counts.",
        resolve: (tt, _args, c) =>
          onSale(tt) && c.loaders.seatFigures.load(tt.id).then((seats) => seatsLeft(tt.quantity, seats) > 0),
      }),
      // Named `quantity` until version 2026-12-01 (graphql/versions/api-versions.ts).
      capacity: t.exposeInt("quantity", {
        public: true,
        ...requires("tickets:read"),
        nullable: true,
        description: "Tickets available in total.",
      }),
      sold: t.int({
        public: true,
        ...requires("tickets:read"),
        nullable: true,
        description:
          "Seats taken: registered attendees, tickets of pending orders within their hold, and open waiting-list offers.",
        resolve: (tt, _args, c) => c.loaders.seatFigures.load(tt.id).then((seats) => seats.sold),
      }),
      remaining: t.int({
        public: true,
        ...requires("tickets:read"),
        nullable: true,
        description:
          "Tickets left to sell: the capacity less the seats taken (`sold`) and less free seats owed to people on the waiting list.",
        resolve: (tt, _args, c) =>
          c.loaders.seatFigures.load(tt.id).then((seats) => seatsLeft(tt.quantity, seats)),
      }),
      createdAt: t.expose("createdAt", {
        public: true,
        type: "DateTime",
        description: "When it was created.",
      }),
      updatedAt: t.expose("updatedAt", {
        public: true,
        type: "DateTime",
        description: "When it last changed.",
      }),
    }),
  });

  const [ticketTypeConnection, ticketTypeEdge] = connectionTypes("TicketType", "ticket types");
  const TicketTypeConnection = builder.connectionObject(
    { type: TicketTypeRef, ...ticketTypeConnection },
    ticketTypeEdge,
  );
  const ticketTypePage = async (
    project: { id: string },
    args: PageArgs,
    c: GraphQLContext,
    onSaleOnly: boolean,
  ) => {
    const filter = { onSaleOnly };
    return projectConnection(c, project.id, args, (access) => ({
      list: (window) => c.services.tickets.listTicketTypes(access, filter, window),
      count: () => c.services.tickets.countTicketTypes(access, filter),
    }));
  };
  builder.objectFields(ProjectRef, (t) => ({
    ticketTypes: t.connection(
      {
        ...projectIdOnly(),
        public: true,
        type: TicketTypeRef,
        description:
          "Ticket types by creation: those on sale now by default; all of them with onSaleOnly: false (tickets:read).",
        args: {
          onSaleOnly: t.arg.boolean({
            ...restricts("tickets:read", [true]),
            defaultValue: true,
            description: "Only ticket types on sale now; false (all of them) needs tickets:read.",
            deprecationReason: widenedBy("allTicketTypes"),
          }),
        },
        resolve: (project, args, c) => ticketTypePage(project, args, c, args.onSaleOnly ?? true),
      },
      TicketTypeConnection,
    ),
    allTicketTypes: t.connection(
      {
        ...projectIdOnly(requires("tickets:read")),
        type: TicketTypeRef,
        nullable: true,
        description:
          "Every ticket type by creation, on sale or not; null (with a FORBIDDEN error on this field alone) without tickets:read.",
        resolve: (project, args, c) => ticketTypePage(project, args, c, false),
      },
      TicketTypeConnection,
    ),
  }));

  const fields = {
    name: "Name.",
    description: "What the ticket includes; null clears it.",
  };
  const CreateTicketTypeInput = builder.inputType("CreateTicketTypeInput", {
    description: "A new ticket type.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      name: t.string({ required: true, description: fields.name }),
      description: t.string({ description: fields.description }),
      priceMinor: t.int({ required: true, description: "Price in minor units (0 for free)." }),
      currency: t.string({ required: true, description: "ISO 4217 code, e.g. EUR." }),
      quantity: t.int({ required: true, description: "Tickets available in total." }),
      salesStartAt: t.field({ type: "DateTime", description: "When sales open; null for now." }),
      salesEndAt: t.field({ type: "DateTime", description: "When sales close; null for never." }),
      paymentMode: t.field({
        type: TicketPaymentModeRef,
        description: "How a paid ticket is paid on the event page; omitted or null for NONE.",
      }),
      taxRateBasisPoints: t.int({
        description:
          "The tax included in the price, in basis points (1900 is 19 %, 0 to 10000); null: the project's default rate.",
      }),
      hidden: t.boolean({
        description: "Offered only with a code that names it (an access code); default false.",
      }),
    }),
  });
  const UpdateTicketTypeInput = builder.inputType("UpdateTicketTypeInput", {
    description: "Changes to a ticket type; omitted fields stay as they are.",
    fields: (t) => ({
      id: t.id({ required: true, description: "The ticket type's global id." }),
      name: t.string({ description: fields.name }),
      description: t.string({ description: fields.description }),
      priceMinor: t.int({ description: "Price in minor units." }),
      currency: t.string({ description: "ISO 4217 code." }),
      quantity: t.int({ description: "Tickets available in total; not below the number sold." }),
      salesStartAt: t.field({ type: "DateTime", description: "When sales open; null for now." }),
      salesEndAt: t.field({ type: "DateTime", description: "When sales close; null for never." }),
      paymentMode: t.field({
        type: TicketPaymentModeRef,
        description: "How a paid ticket is paid on the event page; null for NONE.",
      }),
      taxRateBasisPoints: t.int({
        description:
          "The tax included in the price, in basis points (1900 is 19 %, 0 to 10000); null: the project's default rate.",
      }),
      hidden: t.boolean({ description: "Offered only with a code that names it (an access code)." }),
    }),
  });
  const DeleteTicketTypeInput = builder.inputType("DeleteTicketTypeInput", {
    description: "The ticket type to delete.",
    fields: (t) => ({ id: t.id({ required: true, description: "The ticket type's global id." }) }),
  });
  builder.mutationFields((t) =>
    crudMutations(t, {
      typeName: "TicketType",
      field: "ticketType",
      noun: "ticket type",
      ref: TicketTypeRef,
      permission: "tickets:write",
      create: {
        input: CreateTicketTypeInput,
        description: "Adds a ticket type.",
        write: (input, c) => c.services.tickets.createTicketType(c.actor, serviceInput(input)),
      },
      update: {
        input: UpdateTicketTypeInput,
        description: "Changes a ticket type.",
        write: (input, c) =>
          c.services.tickets.updateTicketType(
            c.actor,
            serviceInput({ ...input, id: requiredLocal(input.id, "TicketType") }),
          ),
      },
      delete: {
        input: DeleteTicketTypeInput,
        description: "Deletes a ticket type that has no registrations.",
        write: (input, c) =>
          c.services.tickets.deleteTicketType(c.actor, { id: requiredLocal(input.id, "TicketType") }),
      },
    }),
  );
}
