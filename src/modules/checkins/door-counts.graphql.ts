import { builder } from "../../graphql/builder.js";
import type { GraphQLContext } from "../../graphql/context.js";
import { globalId } from "../../graphql/ids.js";
import { atMost, boundedList } from "../../graphql/limits/list-bounds.js";
import { requires } from "../../graphql/permissions.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import type { DoorCount } from "./checkins.service.js";

/** The most ticket types a list of door counts holds (those with registrations, by id). */
export const maxDoorCounts = 100;

/** The permission door counts need, on the query and on the subscription alike. */
export const doorCountsPermission = "checkins:write";

export const DoorCountRef = builder.objectRef<DoorCount>("DoorCount");

/**
 * The door's counters of a project, as `Project.doorCounts` answers them; the `doorCounts`
 * subscription resolves each of its events with this same function.
 */
export function doorCountsOf(c: GraphQLContext, projectId: string): Promise<DoorCount[]> {
  return c.services.checkins.doorCounts(c.actor, projectId).then((counts) => atMost(counts, maxDoorCounts));
}

/** Defines `DoorCount` and `Project.doorCounts`: checked in / registered per ticket type. */
export function defineDoorCountTypes(): void {
  DoorCountRef.implement({
    inheritsAccess: true,
    description: "How many of one ticket type's registered attendees are checked in.",
    fields: (t) => ({
      ticketTypeId: t.id({
        description: "Global id of the ticket type.",
        resolve: (count) => globalId("TicketType", count.ticketTypeId),
      }),
      expected: t.exposeInt("expected", { description: "Registered (not cancelled) attendees of the type." }),
      checkedIn: t.exposeInt("checkedIn", { description: "Of those, checked in now." }),
    }),
  });
  builder.objectFields(ProjectRef, (t) => ({
    doorCounts: t.field({
      ...projectIdOnly({
        extensions: {
          ...requires(doorCountsPermission).extensions,
          ...boundedList(maxDoorCounts).extensions,
        },
      }),
      type: [DoorCountRef],
      nullable: true,
      description: `Checked in / registered per ticket type, for the door (ticket types without registrations are absent; at most ${maxDoorCounts}).`,
      resolve: (project, _args, c) => doorCountsOf(c, project.id),
    }),
  }));
}
