import { builder } from "../../graphql/builder.js";
import { connectionTypes, projectConnection } from "../../graphql/connections.js";
import { nodeLoader } from "../../graphql/nodes.js";
import { requires } from "../../graphql/permissions.js";
import { TicketTypeRef } from "../tickets/tickets.graphql.js";
import type { WaitingListEntry } from "./waiting-list.model.js";

const WaitingListEntryRef = builder.objectRef<WaitingListEntry>("WaitingListEntry");

const WaitingListStateEnum = builder.enumType("WaitingListState", {
  description: "Where a person on a waiting list stands.",
  values: {
    WAITING: { description: "In line for a seat." },
    OFFERED: { description: "Offered a freed seat, held for them until offerExpiresAt." },
    ACCEPTED: { description: "Took the offer: registered, or an order placed for the seat." },
    EXPIRED: { description: "Let the offer lapse; the seat passed to the next in line." },
    REMOVED: { description: "Taken out of line by an organizer (or erased)." },
  } as const,
});

/** Defines `WaitingListEntry` (attendees:read) and `TicketType.waitingList`. */
export function defineWaitingListTypes(): void {
  builder.node(WaitingListEntryRef, {
    ...requires("attendees:read"),
    description:
      "One person on a ticket type's waiting list (the Waiting list guide). Personal data: every field but id needs attendees:read.",
    id: { resolve: (e) => e.id },
    loadWithoutCache: nodeLoader((c, id) => c.services.waitingList.findEntry(c.actor, id)),
    fields: (t) => ({
      name: t.exposeString("name", { nullable: true, description: "The person's name." }),
      email: t.exposeString("email", { nullable: true, description: "Where the offer is sent." }),
      state: t.expose("state", {
        type: WaitingListStateEnum,
        nullable: true,
        description: "Where they stand.",
      }),
      ticketType: t.field({
        type: TicketTypeRef,
        nullable: true,
        description: "The sold-out ticket type they wait for.",
        resolve: (e, _args, c) => c.loaders.ticketType.get(e.ticketTypeId),
      }),
      offeredAt: t.expose("offeredAt", {
        type: "DateTime",
        nullable: true,
        description: "When a seat was offered; null while waiting.",
      }),
      offerExpiresAt: t.expose("offerExpiresAt", {
        type: "DateTime",
        nullable: true,
        description: "Until when the offered seat is held for them.",
      }),
      createdAt: t.expose("createdAt", {
        type: "DateTime",
        nullable: true,
        description: "When they joined; the line is in this order (first come, first served).",
      }),
    }),
  });

  builder.objectField(TicketTypeRef, "waitingList", (t) =>
    t.connection(
      {
        ...requires("attendees:read"),
        type: WaitingListEntryRef,
        nullable: true,
        description:
          "The people waiting for a seat of this ticket type, in line order, with each one's state (attendees:read).",
        resolve: (ticketType, args, c) =>
          projectConnection(c, ticketType.projectId, args, (access) => ({
            list: (window) => c.services.waitingList.list(access, ticketType.id, window),
            count: () => c.services.waitingList.count(access, ticketType.id),
          })),
      },
      ...connectionTypes("WaitingListEntry", "waiting list entries"),
    ),
  );
}
