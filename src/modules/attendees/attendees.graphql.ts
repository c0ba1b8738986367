import { builder } from "../../graphql/builder.js";
import { connectionTypes, projectConnection } from "../../graphql/connections.js";
import { optionalLocal, referenceLocal, requiredLocal } from "../../graphql/ids.js";
import { serviceInput } from "../../graphql/inputs.js";
import { inputMutation, payloadType } from "../../graphql/mutations.js";
import { nodesLoader } from "../../graphql/nodes.js";
import { requires } from "../../graphql/permissions.js";
import { columnSelector, preloadSelector, preloads, reads } from "../../graphql/selection.js";
import { ProjectRef, projectIdOnly } from "../projects/projects.graphql.js";
import { AnswerInput, answersFromInput } from "../questions/answer-input.graphql.js";
import { TicketTypeRef } from "../tickets/tickets.graphql.js";
import type { AttendeeRow } from "./attendees.repository.js";
import type { Attendee } from "./attendees.service.js";

export const AttendeeRef = builder.objectRef<Attendee>("Attendee");

const AttendeeStatusEnum = builder.enumType("AttendeeStatus", {
  description: "Whether a registration stands.",
  values: {
    REGISTERED: { description: "Holds a ticket." },
    CANCELLED: { description: "Registration cancelled; the ticket is free again." },
  } as const,
});

// The columns of an attendee row each field reads (see graphql/selection.ts).
const attendee = (...columns: (keyof AttendeeRow)[]) => reads<AttendeeRow>(columns);
const attendeesSelected = columnSelector(["edges", "node"]);
const attendeesPreloaded = preloadSelector<Attendee>(["edges", "node"]);

/** Defines attendees (personal data: every field but `id` needs attendees:read) and their mutations. */
export function defineAttendeeTypes(): void {
  builder.node(AttendeeRef, {
    ...requires("attendees:read"),
    description:
      "A person registered for the event. Personal data: never public; every field but id needs attendees:read.",
    id: { resolve: (a) => a.id, ...attendee() },
    loadManyWithoutCache: nodesLoader((c, ids) => c.services.attendees.findAttendees(c.actor, ids)),
    fields: (t) => ({
      name: t.exposeString("name", {
        ...attendee("name"),
        nullable: true,
        description: "Full name.",
      }),
      email: t.exposeString("email", {
        ...attendee("email"),
        nullable: true,
        description: "Email address.",
      }),
      company: t.exposeString("company", {
        ...attendee("company"),
        nullable: true,
        description: "Company or organisation.",
      }),
      status: t.expose("status", {
        ...attendee("status"),
        type: AttendeeStatusEnum,
        nullable: true,
        description: "Registered or cancelled.",
      }),
      registeredAt: t.expose("registeredAt", {
        ...attendee("registered_at"),
        type: "DateTime",
        nullable: true,
        description: "When they registered.",
      }),
      cancelledAt: t.expose("cancelledAt", {
        ...attendee("cancelled_at"),
        type: "DateTime",
        nullable: true,
        description: "When the registration was cancelled.",
      }),
      ticketCode: t.exposeString("ticketCode", {
        ...attendee("ticket_code"),
        nullable: true,
        description:
          "The unguessable code on the ticket (16 characters in groups of four, e.g. 7K3M-9QXR-2D4F-HV8N), shown as a QR code and scanned at the door.",
      }),
      ticketType: t.field({
        ...reads<AttendeeRow>(
          ["ticket_type_id"],
          preloads<Attendee>((rows, c) => c.loaders.ticketType.preload(rows.map((a) => a.ticketTypeId))),
        ),
        type: TicketTypeRef,
        nullable: true,
        description: "The ticket they hold.",
        resolve: (a, _args, c) => c.loaders.ticketType.get(a.ticketTypeId),
      }),
    }),
  });

  builder.objectField(ProjectRef, "attendees", (t) =>
    t.connection(
      {
        ...requires("attendees:read"),
        // A search reads up to 2,000 index entries and rows (maxSearchMatches): priced like 100 rows.
        ...projectIdOnly({
          extensions: { ...requires("attendees:read").extensions, cost: { argumentCosts: { search: 100 } } },
        }),
        type: AttendeeRef,
        nullable: true,
        description: "Attendees by registration time.",
        args: {
          search: t.arg.string({
            description:
              "At least 3 characters found in the name, email or company, case-insensitive; looks at the first 2,000 matches. Adds 100 to the cost.",
          }),
          status: t.arg({ type: AttendeeStatusEnum, description: "Only attendees with this status." }),
          ticketTypeId: t.arg.id({ description: "Only holders of this ticket type." }),
        },
        resolve: (project, args, c, info) => {
          const filter = {
            search: args.search ?? undefined,
            status: args.status ?? undefined,
            ticketTypeId: optionalLocal(args.ticketTypeId, "TicketType") ?? undefined,
          };
          return projectConnection(c, project.id, args, (access) => ({
            list: (window) =>
              c.services.attendees.listAttendees(
                access,
                filter,
                window,
                "registered",
                attendeesSelected(info, c),
              ),
            count: () => c.services.attendees.countAttendees(access, filter),
            preload: (rows) => attendeesPreloaded(info)(rows, c),
          }));
        },
      },
      ...connectionTypes("Attendee", "attendees"),
    ),
  );

  const RegisterAttendeeInput = builder.inputType("RegisterAttendeeInput", {
    description: "A new registration.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The 4-character Project ID." }),
      name: t.string({ required: true, description: "Full name." }),
      email: t.string({
        required: true,
        description: "Email address; one active registration per email and event.",
      }),
      ticketTypeId: t.id({
        required: true,
        description: "The ticket type (of the same project), not sold out.",
      }),
      company: t.string({ description: "Company or organisation." }),
      answers: t.field({
        type: [AnswerInput],
        description:
          "Answers to the event's registration questions asked for this ticket type; each required one needs an answer. Refusals name `answers.<question id>`.",
      }),
    }),
  });
  const UpdateAttendeeInput = builder.inputType("UpdateAttendeeInput", {
    description: "Changes to a registration; omitted fields stay as they are.",
    fields: (t) => ({
      id: t.id({ required: true, description: "The attendee's global id." }),
      name: t.string({ description: "Full name." }),
      email: t.string({ description: "Email address." }),
      company: t.string({ description: "Company; null clears it." }),
      ticketTypeId: t.id({ description: "Another ticket type of the same project." }),
    }),
  });
  const CancelAttendeeInput = builder.inputType("CancelAttendeeInput", {
    description: "The registration to cancel.",
    fields: (t) => ({ id: t.id({ required: true, description: "The attendee's global id." }) }),
  });
  const EraseAttendeeInput = builder.inputType("EraseAttendeeInput", {
    description: "The attendee whose personal data to erase.",
    fields: (t) => ({ id: t.id({ required: true, description: "The attendee's global id." }) }),
  });
  const payload = (name: string, what: string) => payloadType(name, "attendee", AttendeeRef, what);
  const attendeeWrite = { permission: "attendees:write", field: "attendee" } as const;

  builder.mutationFields((t) => ({
    registerAttendee: inputMutation(t, {
      ...attendeeWrite,
      payload: payload("RegisterAttendeePayload", "The result of registerAttendee."),
      description: "Registers a person for the event with a ticket type.",
      input: RegisterAttendeeInput,
      write: (input, c) =>
        c.services.attendees.registerAttendee(
          c.actor,
          serviceInput({
            ...input,
            ticketTypeId: referenceLocal(input.ticketTypeId, "TicketType"),
            answers: answersFromInput(input.answers),
          }),
        ),
    }),
    updateAttendee: inputMutation(t, {
      ...attendeeWrite,
      payload: payload("UpdateAttendeePayload", "The result of updateAttendee."),
      description: "Changes a registration.",
      input: UpdateAttendeeInput,
      write: (input, c) =>
        c.services.attendees.updateAttendee(
          c.actor,
          serviceInput({
            ...input,
            id: requiredLocal(input.id, "Attendee"),
            ticketTypeId: optionalLocal(input.ticketTypeId, "TicketType") ?? undefined,
          }),
        ),
    }),
    cancelAttendee: inputMutation(t, {
      ...attendeeWrite,
      payload: payload("CancelAttendeePayload", "The result of cancelAttendee."),
      description: "Cancels a registration (idempotent); a current check-in is undone.",
      input: CancelAttendeeInput,
      write: (input, c) =>
        c.services.attendees.cancelAttendee(c.actor, { id: requiredLocal(input.id, "Attendee") }),
    }),
    eraseAttendee: inputMutation(t, {
      ...attendeeWrite,
      payload: payload("EraseAttendeePayload", "The result of eraseAttendee."),
      description:
        "Erases a person's personal data (GDPR Art. 17; idempotent, cannot be undone): name, email and company are replaced in the registration, the audit log's values, webhook payloads and logs, imported files and orders they bought. The registration, its ticket and check-ins stay, so counts add up; subscribed apps get attendee.erased.",
      input: EraseAttendeeInput,
      write: (input, c) =>
        c.services.attendees.eraseAttendee(c.actor, { id: requiredLocal(input.id, "Attendee") }),
    }),
  }));
}
