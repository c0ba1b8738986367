import type { Generated } from "kysely";

/*
 * The public event site: its settings, translations, registration links and public registrations.
 * The database as a whole: ../schema.ts.
 */

/** Whether the event page's registration form asks for the company. */
export type CompanyField = "OPTIONAL" | "REQUIRED" | "HIDDEN";

/** The organizer's switches for the public event page; a project without a row has the defaults. */
export interface EventPageSettingsTable {
  project_id: string;
  /** 1 or 0: whether /e/<id> is shown at all (the project must also be PUBLISHED). */
  page_enabled: Generated<number>;
  /** 1 or 0: whether visitors may register on the page. */
  registration_open: Generated<number>;
  company_field: Generated<CompanyField>;
  updated_at: string;
  /** The event's languages, comma-separated, its own texts' language first (see shared/i18n). */
  languages: Generated<string>;
}

/** An organizer's text of the event in one of its other languages (see the event-languages migration). */
export interface EventTranslationsTable {
  project_id: string;
  language: string;
  /** 'project', or the id of a ticket type. */
  subject: string;
  /** 'name' or 'description'. */
  field: string;
  text: string;
}

/** A registration made on the event page: the manage link's secret (hashed) and the form's idempotency key. */
/** A manage link mailed after a registration's first (a repeated registration); only its hash. */
export interface RegistrationLinksTable {
  token_hash: string;
  attendee_id: string;
  project_id: string;
  created_at: string;
}

export interface PublicRegistrationsTable {
  attendee_id: string;
  project_id: string;
  manage_token_hash: string;
  idempotency_key: string;
  created_at: string;
  /** Whom to invoice (name or company, address, VAT ID), for a ticket paid by invoice; else null. */
  billing_details: Generated<string | null>;
}
