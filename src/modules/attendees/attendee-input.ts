import { z } from "zod";
import { languages } from "../../shared/i18n/languages.js";
import { newId } from "../../shared/ids.js";
import { nowIso } from "../../shared/time.js";
import {
  email,
  idText,
  notNull,
  optionalText,
  parseInput,
  requiredText,
  searchText,
} from "../../shared/validation.js";
import type { ProjectAccess } from "../access/access.service.js";
import { assertPermission } from "../access/policy.js";
import type { RawAnswers } from "../questions/registration-answers.js";
import type { AttendeeQuery, AttendeeRow } from "./attendees.repository.js";
import { generateTicketCode } from "./ticket-code.js";

// What a registration write or an attendee list may ask for, and the row or query it becomes: the
// one schema the API, the dashboard and CSV imports check their input with, before any row is read.

const id = idText;
const registerInput = z.object({
  projectId: idText,
  name: requiredText(200),
  email,
  ticketTypeId: id,
  company: optionalText(200),
  /** The page's language the attendee registered in (the event page sets it; nobody else does). */
  language: z.enum(languages).optional(),
});
export const updateInput = z.object({
  id,
  name: notNull(requiredText(200)).optional(),
  email: notNull(email).optional(),
  company: optionalText(200).optional(),
  ticketTypeId: notNull(id).optional(),
});
export const cancelInput = z.object({ id });
const listFilter = z.object({
  // From GraphQL arguments, where an omitted filter may be null.
  // The search index works on trigrams: a shorter term would need a scan of every attendee.
  search: searchText(200)
    .refine((text) => text.length === 0 || [...text].length >= 3, "must be at least 3 characters")
    .nullish(),
  status: z.enum(["REGISTERED", "CANCELLED"]).nullish(),
  ticketTypeId: idText.nullish(),
  checkedIn: z.boolean().nullish(),
});

/** A new registration: the person, the ticket type and the answers to the event's questions. */
export type RegisterAttendeeInput = z.input<typeof registerInput> & {
  /** Question id to answer, checked by the questions module's `validateAnswers`. */
  answers?: RawAnswers | undefined;
};
export type UpdateAttendeeInput = z.input<typeof updateInput>;
export type AttendeeFilter = z.input<typeof listFilter>;

/**
 * The row of a new registration, from input checked by the one schema of registrations (the API, the
 * dashboard and CSV imports all go through it); throws BAD_USER_INPUT naming the fields.
 */
export function registrationRow(input: RegisterAttendeeInput, now = nowIso()): AttendeeRow {
  const data = parseInput(registerInput, input);
  return {
    id: newId(),
    project_id: data.projectId,
    ticket_type_id: data.ticketTypeId,
    name: data.name,
    email: data.email,
    email_normalized: data.email.toLowerCase(),
    company: data.company,
    status: "REGISTERED",
    registered_at: now,
    cancelled_at: null,
    updated_at: now,
    ticket_code: generateTicketCode(),
    order_id: null,
    held_until: null,
    language: data.language ?? null,
  };
}

/** The repository query of a list filter, once the access holds attendees:read. */
export function attendeeQueryFor(access: ProjectAccess, filter: AttendeeFilter): AttendeeQuery {
  assertPermission(access, "attendees:read");
  const data = parseInput(listFilter, filter);
  return {
    search: data.search ? data.search.toLowerCase() : undefined,
    status: data.status ?? undefined,
    ticketTypeId: data.ticketTypeId ?? undefined,
    checkedIn: data.checkedIn ?? undefined,
  };
}
