import type { Generated } from "kysely";

/*
 * Registrations: ticket types, attendees, check-ins, the Overview's counters, imports, questions
 * and answers, the waiting list. The database as a whole: ../schema.ts.
 */

export interface TicketTypesTable {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  /** Price in minor units of `currency` (cents). */
  price_minor: number;
  /** ISO 4217 code, upper case. */
  currency: string;
  quantity: number;
  sales_start_at: string | null;
  sales_end_at: string | null;
  /** How a paid ticket is paid when registered for on the event page; free ones ignore it. */
  payment_mode: Generated<TicketPaymentMode>;
  /** Tax rate in basis points (1900: 19 %) included in the price; null: the project's default. */
  tax_rate_bp: Generated<number | null>;
  /** 1 or 0: offered only to a buyer holding a code that covers it (an access code). */
  hidden: Generated<number>;
  created_at: string;
  updated_at: string;
}

/**
 * NONE: a paid ticket is not offered on the event page; AT_DOOR / INVOICE: it is, paid that way;
 * BANK_TRANSFER: it is bought through an order paid by bank transfer (modules/orders).
 * STRIPE: it is bought through an order paid by card on Stripe Checkout (modules/orders/stripe).
 */
export type TicketPaymentMode = "NONE" | "AT_DOOR" | "INVOICE" | "BANK_TRANSFER" | "STRIPE";

export type AttendeeStatus = "REGISTERED" | "CANCELLED";

export interface AttendeesTable {
  id: string;
  project_id: string;
  ticket_type_id: string;
  name: string;
  email: string;
  email_normalized: string;
  company: string | null;
  status: AttendeeStatus;
  registered_at: string;
  cancelled_at: string | null;
  updated_at: string;
  /** Unguessable code on the ticket (QR), unique across projects; see attendees/ticket-code.ts. */
  ticket_code: string;
  /** The order that bought this ticket; null for a registration made without one. */
  order_id: Generated<string | null>;
  /** While the order is pending: when the seat stops being held (seat counts ignore it after). */
  held_until: Generated<string | null>;
  /** The language the attendee registered in; null: the event's first language. */
  language: Generated<string | null>;
}

/** A check-in; undoing sets `undone_at`. At most one active (not undone) row per attendee. */
export interface CheckInsTable {
  id: string;
  project_id: string;
  attendee_id: string;
  checked_in_at: string;
  by_user_id: string | null;
  by_app_id: string | null;
  undone_at: string | null;
}

/**
 * The Overview's counters, kept by triggers in every writing transaction (migration
 * 2026-11-28T21-00_overview-counts says what each counts); read by modules/overview only.
 */
export interface OverviewTicketCountsTable {
  ticket_type_id: string;
  /** REGISTERED attendees of the ticket type. */
  registered: number;
  /** Those of them with an active check-in. */
  checked_in: number;
}

/** Attendees (any status) per project and UTC hour of `registered_at` (`2026-05-04T09`). */
export interface OverviewRegistrationsTable {
  project_id: string;
  hour: string;
  registrations: number;
}

/** Active check-ins per project, UTC hour and quarter of that hour (0–3). */
export interface OverviewCheckInsTable {
  project_id: string;
  hour: string;
  quarter: number;
  check_ins: number;
}

type AttendeeImportStatus = "READY" | "RUNNING" | "DONE";

/** An uploaded attendee CSV waiting to be previewed and imported (see the attendee-imports migration). */
export interface AttendeeImportsTable {
  id: string;
  project_id: string;
  created_by: string | null;
  file_name: string;
  content: string;
  row_count: number;
  status: AttendeeImportStatus;
  /** JSON of the column mapping the import ran with. */
  mapping: string | null;
  processed_rows: number;
  imported_rows: number;
  skipped_rows: number;
  created_at: string;
  updated_at: string;
}

/** What a registration question asks for (modules/questions). */
export type QuestionKind =
  | "SHORT_TEXT"
  | "LONG_TEXT"
  | "ONE_CHOICE"
  | "SEVERAL_CHOICES"
  | "YES_NO"
  | "NUMBER"
  | "DATE"
  | "COUNTRY";

/** A question a project asks at registration (modules/questions). */
export interface RegistrationQuestionsTable {
  id: string;
  project_id: string;
  label: string;
  kind: QuestionKind;
  /** 1: an answer is needed to register. */
  required: number;
  /** JSON array of the choices of ONE_CHOICE and SEVERAL_CHOICES; else null. */
  options: string | null;
  /** A line of help shown under the question; null: none. */
  help: string | null;
  /** JSON array of the ticket type ids it is asked for; null: every ticket type. */
  ticket_type_ids: string | null;
  /** The organizer's order, ascending. */
  position: number;
  created_at: string;
  updated_at: string;
}

/** A registration question's texts in one of the event's other languages (null: as written). */
export interface QuestionTranslationsTable {
  question_id: string;
  project_id: string;
  language: string;
  label: string | null;
  help: string | null;
  /** JSON object from each option as written to its translation; null: none translated. */
  options: string | null;
}

/** One attendee's answer to one question; `value` is JSON (string, number, boolean or string[]). */
export interface AttendeeAnswersTable {
  attendee_id: string;
  question_id: string;
  project_id: string;
  value: string;
  updated_at: string;
}

/** WAITING in line; OFFERED a held seat; ACCEPTED (registered); EXPIRED (the offer lapsed); REMOVED by the organizer. */
export type WaitingListState = "WAITING" | "OFFERED" | "ACCEPTED" | "EXPIRED" | "REMOVED";

/** One person waiting for a seat of a sold-out ticket type (see migrations/2026-11-29T04-00_waiting-list.ts). */
export interface WaitingListEntriesTable {
  id: string;
  project_id: string;
  ticket_type_id: string;
  name: string;
  email: string;
  email_normalized: string;
  state: WaitingListState;
  /** SHA-256 of the offer link's secret, while an offer was made. */
  offer_token_hash: string | null;
  offered_at: string | null;
  /** Until when an OFFERED entry holds its seat. */
  offer_expires_at: string | null;
  /** The registration that took the offer. */
  attendee_id: string | null;
  created_at: string;
  updated_at: string;
}

/** How long a project's offers hold their seat; no row: 48 hours. */
export interface WaitingListSettingsTable {
  project_id: string;
  offer_hours: number;
}
