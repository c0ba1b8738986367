import { completeValue } from "@pothos/core";
import type { FieldError } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { globalId, requiredLocal } from "../../graphql/ids.js";
import { boundedList, maxCheckInsListed } from "../../graphql/limits/list-bounds.js";
import { inputMutation, payloadObject } from "../../graphql/mutations.js";
import { preloads, reads } from "../../graphql/selection.js";
import { AttendeeRef } from "../attendees/attendees.graphql.js";
import type { Attendee } from "../attendees/attendees.service.js";
import type { CheckIn, CheckInResult, DoorResult } from "./checkins.service.js";

const CheckInRef = builder.objectRef<CheckIn>("CheckIn");

const CheckInSourceEnum = builder.enumType("CheckInSource", {
  description: "Who checked the attendee in.",
  values: {
    ORGANIZER: { description: "An organizer in the dashboard." },
    APP: { description: "An app through the API." },
  } as const,
});

/** Defines check-ins and `checkInAttendee` / `undoCheckIn`. */
export function defineCheckInTypes(): void {
  // A check-in record holds no personal data, so an app with only checkins:write can read what it did.
  CheckInRef.implement({
    inheritsAccess: true,
    description: "An attendee's arrival at the venue. Undoing it keeps the record with undoneAt set.",
    fields: (t) => ({
      id: t.id({ description: "Global id of the check-in.", resolve: (ci) => globalId("CheckIn", ci.id) }),
      checkedInAt: t.expose("checkedInAt", { type: "DateTime", description: "When they were checked in." }),
      undoneAt: t.expose("undoneAt", {
        type: "DateTime",
        nullable: true,
        description: "When the check-in was taken back.",
      }),
      source: t.field({
        type: CheckInSourceEnum,
        description: "Whether an organizer or an app checked them in.",
        resolve: (ci) => (ci.byAppId ? "APP" : "ORGANIZER"),
      }),
    }),
  });

  // The check-in edges of Attendee live here, beside the check-ins, so that the attendees module
  // knows nothing of check-ins (and the two modules do not import each other). Attendee's own
  // requirement (attendees:read) covers them like every other field of the type.
  // One preload for both fields that read the current check-in: a page selecting both loads it once.
  const preloadActiveCheckIns = preloads<Attendee>((rows, c) =>
    c.loaders.activeCheckIn.preload(rows.map((a) => a.id)),
  );
  builder.objectFields(AttendeeRef, (t) => ({
    checkedIn: t.boolean({
      ...reads([], preloadActiveCheckIns),
      nullable: true,
      description: "Whether they are checked in now.",
      resolve: (a, _args, c) =>
        completeValue(c.loaders.activeCheckIn.get(a.id), (checkIn) => checkIn !== undefined),
    }),
    checkIn: t.field({
      ...reads([], preloadActiveCheckIns),
      type: CheckInRef,
      nullable: true,
      description: "The current check-in, if they are checked in.",
      resolve: (a, _args, c) => c.loaders.activeCheckIn.get(a.id),
    }),
    checkIns: t.field({
      type: [CheckInRef],
      nullable: true,
      description: `The latest ${maxCheckInsListed} check-ins, undone ones included, oldest first.`,
      ...reads([], boundedList(maxCheckInsListed)),
      // The latest ones matter: a check-in undone and redone many times keeps its current state.
      resolve: (a, _args, c) =>
        c.loaders.checkInHistory.load(a.id).then((history) => history.slice(-maxCheckInsListed)),
    }),
  }));

  const CheckInInput = builder.inputType("CheckInAttendeeInput", {
    description: "The attendee to check in or out.",
    fields: (t) => ({ attendeeId: t.id({ required: true, description: "The attendee's global id." }) }),
  });

  const CheckInPayload = payloadObject<{ result: CheckInResult | null; userErrors: FieldError[] }>(
    "CheckInPayload",
    {
      description: "The result of checkInAttendee or undoCheckIn.",
      fields: (t) => ({
        attendee: t.field({
          type: AttendeeRef,
          nullable: true,
          description: "The attendee (its fields other than id need attendees:read).",
          resolve: (p) => p.result?.attendee ?? null,
        }),
        checkIn: t.field({
          type: CheckInRef,
          nullable: true,
          description: "The check-in made, or the one undone.",
          resolve: (p) => p.result?.checkIn ?? null,
        }),
      }),
    },
  );

  const OutcomeEnum = builder.enumType("CheckInOutcome", {
    description: "What a scanned or typed ticket code did at the door.",
    values: {
      CHECKED_IN: { description: "Checked in now." },
      ALREADY_CHECKED_IN: { description: "Was already checked in; checkIn says since when." },
      CANCELLED: { description: "The registration is cancelled: do not let them in on this ticket." },
      UNPAID: {
        description:
          "The ticket's order awaits payment (e.g. a bank transfer not yet received): not admitted until the order is marked paid.",
      },
      OTHER_EVENT: { description: "A ticket of another event." },
      UNKNOWN_CODE: { description: "No ticket has this code (or it is not a ticket code at all)." },
    } as const,
  });

  const ByCodeInput = builder.inputType("CheckInByTicketCodeInput", {
    description: "A ticket code read at the door of a project.",
    fields: (t) => ({
      projectId: t.id({
        required: true,
        description: "The 4-character Project ID of the event at whose door the code was read.",
      }),
      ticketCode: t.string({
        required: true,
        description:
          "The code as scanned or typed: case, spaces and dashes do not matter, O reads as 0 and I or L as 1.",
      }),
    }),
  });

  const ByCodePayload = payloadObject<{ result: DoorResult | null; userErrors: FieldError[] }>(
    "CheckInByTicketCodePayload",
    {
      description: "The result of checkInByTicketCode.",
      fields: (t) => ({
        outcome: t.field({
          type: OutcomeEnum,
          nullable: true,
          description: "What happened; null when the input had problems.",
          resolve: (p) => p.result?.outcome ?? null,
        }),
        attendee: t.field({
          type: AttendeeRef,
          nullable: true,
          description:
            "The ticket's holder when the ticket is of this event (fields other than id need attendees:read).",
          resolve: (p) => p.result?.attendee ?? null,
        }),
        checkIn: t.field({
          type: CheckInRef,
          nullable: true,
          description: "The check-in made now, or the earlier one when ALREADY_CHECKED_IN.",
          resolve: (p) => p.result?.checkIn ?? null,
        }),
      }),
    },
  );

  const checkInWrite = { permission: "checkins:write", field: "result" } as const;
  builder.mutationFields((t) => ({
    checkInByTicketCode: inputMutation(t, {
      ...checkInWrite,
      description:
        "Checks in the holder of a ticket code, as a door scanner does. Never fails for a bad ticket: the outcome says already checked in, cancelled, another event or unknown.",
      input: ByCodeInput,
      payload: ByCodePayload,
      write: (input, c) =>
        c.services.checkins.checkInByCode(c.actor, {
          projectId: input.projectId,
          ticketCode: input.ticketCode,
        }),
    }),
    checkInAttendee: inputMutation(t, {
      ...checkInWrite,
      description: "Checks an attendee in. Idempotent: checking in twice returns the same check-in.",
      input: CheckInInput,
      payload: CheckInPayload,
      write: (input, c) =>
        c.services.checkins.checkIn(c.actor, { attendeeId: requiredLocal(input.attendeeId, "Attendee") }),
    }),
    undoCheckIn: inputMutation(t, {
      ...checkInWrite,
      description: "Takes back an attendee's current check-in. Idempotent.",
      input: CheckInInput,
      payload: CheckInPayload,
      write: (input, c) =>
        c.services.checkins.undoCheckIn(c.actor, { attendeeId: requiredLocal(input.attendeeId, "Attendee") }),
    }),
  }));
}
