import type { Permission } from "../access/permissions.js";

/** An event type an app may subscribe to, and the permission a project's link must grant for it. */
interface EventTypeInfo {
  type: string;
  /** Undefined: every app reaching the project receives it (project basics, its own links). */
  permission: Permission | undefined;
  description: string;
}

const crud = (noun: string, what: string, permission: Permission): EventTypeInfo[] =>
  ["created", "updated", "deleted"].map((verb) => ({
    type: `${noun}.${verb}`,
    permission,
    description: `A ${what} was ${verb}.`,
  }));

/** Every event type, in the order the dashboard lists them (issue #10). */
export const eventCatalogue: readonly EventTypeInfo[] = [
  { type: "project.updated", permission: undefined, description: "The project's basic fields changed." },
  ...crud("session", "session", "agenda:read"),
  ...crud("speaker", "speaker", "agenda:read"),
  ...crud("track", "track", "agenda:read"),
  ...crud("room", "room", "agenda:read"),
  ...crud("ticket_type", "ticket type", "tickets:read"),
  { type: "attendee.registered", permission: "attendees:read", description: "An attendee registered." },
  { type: "attendee.updated", permission: "attendees:read", description: "An attendee's details changed." },
  { type: "attendee.cancelled", permission: "attendees:read", description: "A registration was cancelled." },
  {
    type: "attendee.erased",
    permission: "attendees:read",
    description:
      "An attendee's personal data was erased (name, email and company replaced everywhere); delete your copy.",
  },
  { type: "checkin.created", permission: "attendees:read", description: "An attendee was checked in." },
  { type: "checkin.undone", permission: "attendees:read", description: "A check-in was taken back." },
  {
    type: "waiting_list.joined",
    permission: "attendees:read",
    description: "Someone joined the waiting list of a sold-out ticket type.",
  },
  {
    type: "waiting_list.offered",
    permission: "attendees:read",
    description: "A freed seat was offered to the next person on a waiting list (held for a set time).",
  },
  { type: "order.created", permission: "orders:read", description: "An order was placed." },
  { type: "order.paid", permission: "orders:read", description: "An order was marked paid." },
  {
    type: "order.expired",
    permission: "orders:read",
    description: "An order's hold lapsed unpaid; its seats were freed.",
  },
  {
    type: "order.cancelled",
    permission: "orders:read",
    description: "An order was cancelled; its seats were freed.",
  },
  {
    type: "order.refunded",
    permission: "orders:read",
    description: "Money was sent back for an order (part or all of it; all of it frees its seats).",
  },
  {
    type: "invoice.issued",
    permission: "orders:read",
    description: "An order's invoice was issued (when paid, or when placed to be paid by invoice).",
  },
  {
    type: "invoice.credited",
    permission: "orders:read",
    description: "A credit note was issued, taking back (part of) an order's invoice.",
  },
  { type: "app.link.created", permission: undefined, description: "A project connected this app." },
  { type: "app.link.updated", permission: undefined, description: "A link's permissions changed." },
  { type: "app.link.revoked", permission: undefined, description: "A project disconnected this app." },
  {
    type: "bulk_operation.finished",
    permission: undefined,
    description: "A bulk operation this app started completed, failed or was cancelled (only to that app).",
  },
];

const byType = new Map(eventCatalogue.map((e) => [e.type, e]));

/** The catalogue entry of a type, or undefined for a name that is none. */
export function eventTypeInfo(type: string): EventTypeInfo | undefined {
  return byType.get(type);
}

/** Whether holding `permissions` lets an app receive `type`. */
export function mayReceive(type: string, permissions: ReadonlySet<Permission>): boolean {
  const info = byType.get(type);
  return info !== undefined && (info.permission === undefined || permissions.has(info.permission));
}

/**
 * What `data.object` holds when an app set no fragment for the type: the fields a receiver needs to
 * act without calling back, with the same names and global ids as the GraphQL type. Written for the
 * newest API version; an app pinned to an older one gets them as that version spells them
 * (`selectionIn`, graphql/versions/api-versions.ts).
 */
export const defaultSelections: Readonly<Record<string, string>> = {
  Project: "id name description timezone startsAt endsAt status website updatedAt",
  Session: "id title description startsAt endsAt status capacity room { id } track { id } speakers { id }",
  Speaker: "id name bio company jobTitle photoUrl",
  Track: "id name color",
  Room: "id name capacity",
  TicketType: "id name description price { amountMinor currency } capacity salesStartAt salesEndAt",
  Attendee:
    "id name email company status registeredAt cancelledAt ticketType { id } checkIn { checkedInAt undoneAt }",
  WaitingListEntry: "id name email state ticketType { id } offeredAt offerExpiresAt createdAt",
  Order:
    "id code state buyerName buyerEmail total { amountMinor currency } provider paymentReference holdExpiresAt createdAt paidAt closedAt discountCode discount { amountMinor currency } lines { ticketTypeName quantity unitPriceMinor unitDiscountMinor }",
};
