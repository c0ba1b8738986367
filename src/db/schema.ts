import type { Generated } from "kysely";

/**
 * Row types of every table, shared by both engines. Timestamps are ISO-8601 UTC strings
 * (`2026-05-04T09:00:00.000Z`) on SQLite and PostgreSQL alike, so they sort as text and the
 * same repository code serves both. Booleans are nullable timestamps ("verified at").
 */
export interface Database {
  users: UsersTable;
  auth_sessions: AuthSessionsTable;
  email_tokens: EmailTokensTable;
  projects: ProjectsTable;
  project_versions: ProjectVersionsTable;
  project_members: ProjectMembersTable;
  project_invitations: ProjectInvitationsTable;
  tracks: TracksTable;
  rooms: RoomsTable;
  speakers: SpeakersTable;
  sessions: SessionsTable;
  session_speakers: SessionSpeakersTable;
  ticket_types: TicketTypesTable;
  attendees: AttendeesTable;
  check_ins: CheckInsTable;
  overview_ticket_counts: OverviewTicketCountsTable;
  overview_registrations: OverviewRegistrationsTable;
  overview_check_ins: OverviewCheckInsTable;
  apps: AppsTable;
  app_links: AppLinksTable;
  app_usage: AppUsageTable;
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  server_secrets: ServerSecretsTable;
  audit_events: AuditEventsTable;
  event_page_settings: EventPageSettingsTable;
  event_translations: EventTranslationsTable;
  public_registrations: PublicRegistrationsTable;
  registration_links: RegistrationLinksTable;
  idempotency_keys: IdempotencyKeysTable;
  bulk_operations: BulkOperationsTable;
  attendee_imports: AttendeeImportsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  ticket_mails: TicketMailsTable;
  orders: OrdersTable;
  order_lines: OrderLinesTable;
  order_settings: OrderSettingsTable;
  payment_accounts: PaymentAccountsTable;
  order_refunds: OrderRefundsTable;
  payment_notifications: PaymentNotificationsTable;
  invoices: InvoicesTable;
  invoice_counters: InvoiceCountersTable;
  discount_codes: DiscountCodesTable;
  messages: MessagesTable;
  registration_questions: RegistrationQuestionsTable;
  attendee_answers: AttendeeAnswersTable;
  waiting_list_entries: WaitingListEntriesTable;
  waiting_list_settings: WaitingListSettingsTable;
}

export interface UsersTable {
  id: string;
  email: string;
  /** Lower-cased email; unique, so sign-up is case-insensitive. */
  email_normalized: string;
  name: string;
  password_hash: string;
  email_verified_at: string | null;
  created_at: string;
  updated_at: string;
}

/** Dashboard login sessions; `id` is the SHA-256 of the cookie value. */
export interface AuthSessionsTable {
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
  last_seen_at: string;
  /** The browser's User-Agent header when the session was last touched (shown on the account page). */
  user_agent: string | null;
  /** The client address when the session was last touched. */
  ip: string | null;
}

/** One-time links sent by email (verification, password reset); only the hash is stored. */
export interface EmailTokensTable {
  token_hash: string;
  user_id: string;
  purpose: "verify_email" | "reset_password" | "change_email";
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** For `change_email`: the address that replaces the account's once this link is opened. */
  new_email: string | null;
}

export type ProjectStatus = "DRAFT" | "PUBLISHED" | "ARCHIVED";

export interface ProjectsTable {
  /** Exactly 4 characters [A-Za-z0-9]. */
  id: string;
  name: string;
  description: string | null;
  timezone: string;
  starts_at: string | null;
  ends_at: string | null;
  venue_name: string | null;
  venue_address: string | null;
  venue_city: string | null;
  venue_country: string | null;
  website: string | null;
  status: ProjectStatus;
  /** 1 for a developer's test project (demo data, never published, never counted); 0 otherwise. */
  is_test: Generated<number>;
  /** The demo generator's seed of a test project, which a reset generates again; null otherwise. */
  test_seed: number | null;
  created_at: string;
  updated_at: string;
  // Also in the table until the next release drops them, read and written by nothing of this one:
  // data_version and the five area counters, now in project_versions (rolling upgrades, see
  // migration 2026-11-27T10-00_project-versions).
}

/**
 * A project's version counters, one per area of its data (src/shared/data-areas.ts): every write
 * bumps those of the areas it wrote, and the response cache validates hits against them. A row of
 * their own, which no foreign key references (see migration 2026-11-27T10-00_project-versions).
 */
export interface ProjectVersionsTable {
  project_id: string;
  project_version: Generated<number>;
  agenda_version: Generated<number>;
  tickets_version: Generated<number>;
  attendees_version: Generated<number>;
  checkins_version: Generated<number>;
}

export type MemberRole = "OWNER" | "ADMIN" | "MEMBER";

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  role: MemberRole;
  created_at: string;
}

/** An invitation to join a project, accepted through an emailed link (only its hash is stored). */
export interface ProjectInvitationsTable {
  id: string;
  project_id: string;
  email: string;
  email_normalized: string;
  role: MemberRole;
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

export interface TracksTable {
  id: string;
  project_id: string;
  name: string;
  color: string | null;
  created_at: string;
}

export interface RoomsTable {
  id: string;
  project_id: string;
  name: string;
  capacity: number | null;
  created_at: string;
}

export interface SpeakersTable {
  id: string;
  project_id: string;
  name: string;
  bio: string | null;
  company: string | null;
  job_title: string | null;
  photo_url: string | null;
  /** JSON array of {label, url}. */
  links: string;
  created_at: string;
  updated_at: string;
}

export type SessionStatus = "DRAFT" | "PUBLISHED" | "CANCELLED";

export interface SessionsTable {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  starts_at: string;
  ends_at: string;
  room_id: string | null;
  track_id: string | null;
  capacity: number | null;
  status: SessionStatus;
  created_at: string;
  updated_at: string;
}

export interface SessionSpeakersTable {
  session_id: string;
  speaker_id: string;
  /** Order of the speaker on the session. */
  position: number;
}

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
interface EventTranslationsTable {
  project_id: string;
  language: string;
  /** 'project', or the id of a ticket type. */
  subject: string;
  /** 'name' or 'description'. */
  field: string;
  text: string;
}

/** An API mutation's Idempotency-Key: its lock while it runs, then the answer to replay. */
export interface IdempotencyKeysTable {
  /** Whose key space: `app:<id>` (modules/idempotency). */
  scope: string;
  key: string;
  /** SHA-256 of the request (document, operation name, variables): a reuse with another body is refused. */
  fingerprint: string;
  /** While the first request runs: until when its lock holds (a crashed run's lock ends). */
  locked_until: string | null;
  /** The stored answer's HTTP status; null while the first request runs. */
  status: number | null;
  /** The stored answer's media type. */
  media: string | null;
  /** The stored answer's bytes (UTF-8 JSON), replayed as they are. */
  body: string | null;
  /**
   * When a transaction of the first request committed (set inside it): a run that changed
   * something is never run again, even when its answer was lost with its process.
   */
  committed_at: string | null;
  created_at: string;
  expires_at: string;
}

/** A registration made on the event page: the manage link's secret (hashed) and the form's idempotency key. */
/** A manage link mailed after a registration's first (a repeated registration); only its hash. */
interface RegistrationLinksTable {
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
interface OverviewTicketCountsTable {
  ticket_type_id: string;
  /** REGISTERED attendees of the ticket type. */
  registered: number;
  /** Those of them with an active check-in. */
  checked_in: number;
}

/** Attendees (any status) per project and UTC hour of `registered_at` (`2026-05-04T09`). */
interface OverviewRegistrationsTable {
  project_id: string;
  hour: string;
  registrations: number;
}

/** Active check-ins per project, UTC hour and quarter of that hour (0–3). */
interface OverviewCheckInsTable {
  project_id: string;
  hour: string;
  quarter: number;
  check_ins: number;
}

export interface AppsTable {
  id: string;
  /** The home project the app was created in. */
  project_id: string;
  name: string;
  description: string | null;
  /** Space-separated permission names, e.g. "agenda:read tickets:read". */
  permissions: string;
  /** SHA-256 (hex) of the current token; the token itself is never stored. */
  token_hash: string;
  token_last4: string;
  token_created_at: string;
  last_used_at: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** Where the organizer's browser goes after Authorize or Cancel on the consent page. */
  redirect_url: string | null;
  /** The app's website, linked on the consent page. */
  website_url: string | null;
  /** The app's privacy policy, linked on the consent page. */
  privacy_url: string | null;
  /** The API version its requests are answered in when they name none (graphql/versions/). */
  api_version: Generated<string>;
}

export interface AppLinksTable {
  id: string;
  app_id: string;
  project_id: string;
  authorized_by: string | null;
  authorized_at: string;
  /** The permissions granted at consent, space-separated. */
  permissions: string;
  revoked_at: string | null;
  revoked_by: string | null;
}

/** An app's OAuth client credentials: the secret's hash and the registered redirect URIs. */
export interface OAuthClientsTable {
  app_id: string;
  secret_hash: string;
  secret_last4: string;
  secret_created_at: string;
  /** Newline-separated absolute URLs, matched exactly. */
  redirect_uris: string;
}

/** One consent through the OAuth flow: an app's access to one project, with its scopes. */
export interface OAuthGrantsTable {
  id: string;
  app_id: string;
  project_id: string;
  /** The link the consent created or renewed; a revoked link ends the grant. */
  link_id: string;
  /** Space-separated permission names. */
  scopes: string;
  authorized_by: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  revoked_reason: string | null;
}

/** An authorization code (its hash), single use, bound to client, redirect URI and PKCE challenge. */
export interface OAuthCodesTable {
  code_hash: string;
  app_id: string;
  project_id: string;
  link_id: string;
  authorized_by: string | null;
  redirect_uri: string;
  code_challenge: string;
  scopes: string;
  expires_at: string;
  used_at: string | null;
  grant_id: string | null;
}

/** An access or refresh token of a grant (its hash). */
export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: "access" | "refresh";
  scopes: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Requests per app and UTC day. */
interface AppUsageTable {
  app_id: string;
  day: string;
  requests: number;
}

/** Keys the service generates for itself, shared by every process (e.g. the cookie-signing key). */
interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: string;
}

/** Who acted in an audit entry: an organizer, an app through its token, the operator's CLI, or an attendee. */
export type AuditActorKind = "user" | "app" | "system" | "public";

/** Where an audited action came from. */
type AuditVia = "dashboard" | "api" | "cli" | "server";

/** One audited action (docs/audit-log.md); no foreign keys, so it outlives what it names. */
export interface AuditEventsTable {
  id: string;
  /** Null only for the tombstone of a deleted project (its id is then `object_id`). */
  project_id: string | null;
  occurred_at: string;
  actor_kind: AuditActorKind;
  /** The user's or app's id; null for the operator. */
  actor_id: string | null;
  /** The user's email or the app's name at the time, kept when they are gone. */
  actor_label: string;
  /** The link an app acted through in a project other than its home project. */
  link_id: string | null;
  via: AuditVia;
  ip: string | null;
  /** `<object>.<verb>`, e.g. `session.updated`, `member.removed`. */
  action: string;
  object_type: string;
  object_id: string;
  /** JSON object of the changed fields and their new values (secrets never appear). */
  changes: string | null;
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
/** An app's one webhook endpoint (issue #10). */
export interface WebhookEndpointsTable {
  app_id: string;
  url: string;
  /** Subscribed event types, space-separated. */
  events: string;
  /** JSON object: event type -> GraphQL fragment text selecting `data.object`. */
  fragments: string;
  /** The signing secret (`whsec_...`); needed in clear to sign, like any HMAC key. */
  secret: string;
  /** The secret before the last rotation, still signing beside the new one until it expires. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** When the endpoint's current run of failed attempts began (null after a success). */
  failing_since: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** PENDING until delivered (2xx), FAILED after the last retry, CANCELLED when the app lost access. */
export type DeliveryStatus = "PENDING" | "DELIVERED" | "FAILED" | "CANCELLED";

/** One event for one app: the outbox row, then its delivery state. */
export interface WebhookDeliveriesTable {
  /** Commit order (per project); bigint on PostgreSQL, read back as a string there. */
  seq: Generated<number | string>;
  id: string;
  app_id: string;
  project_id: string;
  event_type: string;
  object_typename: string;
  object_id: string;
  /** JSON array of the changed field names, for updates. */
  changed: string | null;
  /** The exact body sent, fixed at the first attempt so every retry is byte-identical. */
  payload: string | null;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  /** Who holds the delivery now (a process's claim) and until when; the result counts only under it. */
  lease_token: string | null;
  locked_until: string | null;
  response_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** One HTTP request of a delivery, kept with its answer for the delivery log. */
export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  url: string;
  /** JSON object of the request headers sent (signature included: it is useless without the secret). */
  request_headers: string;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  /** The first 4 KB of the response body. */
  response_body: string | null;
  error: string | null;
}

/** PENDING: waiting to be sent (or retried); SENT; FAILED: gave up after the last retry; SKIPPED: cancelled before it went out. */
export type TicketMailStatus = "PENDING" | "SENT" | "FAILED" | "SKIPPED";

/** One ticket email in the outbox (see migrations/2026-11-28T10-00_ticket-mails.ts). */
interface TicketMailsTable {
  id: string;
  project_id: string;
  /** The attendee the mail is about; null only for a waiting-list offer (`waiting_entry_id`). */
  attendee_id: string | null;
  /** Set for an order's confirmation to its buyer (about all its tickets); null for one ticket's email. */
  order_id: Generated<string | null>;
  /** Set for one recipient of an organizer's message (modules/messages); null for a ticket email. */
  message_id: Generated<string | null>;
  /** Set for a waiting-list offer to the entry's person (modules/waiting-list). */
  waiting_entry_id: Generated<string | null>;
  status: TicketMailStatus;
  attempts: Generated<number>;
  next_attempt_at: string;
  /** While set and in the future, one worker is sending it. */
  lease_until: string | null;
  lease_token: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

/**
 * PENDING: awaiting payment, seats held; PAID; EXPIRED: the hold lapsed unpaid; CANCELLED (when it
 * was paid, what was left of it refunded: `refunded_minor`); REFUNDED: paid, then refunded in full
 * by amount (its tickets cancelled).
 */
export type OrderState = "PENDING" | "PAID" | "EXPIRED" | "CANCELLED" | "REFUNDED";

/** How an order is paid (modules/orders/payment-providers.ts). */
export type PaymentProviderName = "FREE" | "AT_DOOR" | "INVOICE" | "BANK_TRANSFER" | "STRIPE";

/** One purchase by one buyer (see migrations/2026-11-28T20-00_orders.ts). */
export interface OrdersTable {
  id: string;
  project_id: string;
  /** The code people quote, unique in its project (`aB3x-7KQ3M`). */
  code: string;
  buyer_name: string;
  buyer_email: string;
  state: OrderState;
  /** Sum of the lines, in minor units of `currency`, computed on the server. */
  total_minor: number;
  currency: string;
  provider: PaymentProviderName;
  /** What the buyer writes on the bank transfer; null for providers without one. */
  payment_reference: string | null;
  /** While PENDING: when the hold lapses. */
  hold_expires_at: string | null;
  /** The checkout form's key: a repeated submit finds this order. */
  idempotency_key: string | null;
  /** SHA-256 of the secret in the buyer's link to the order's page; null for orders placed elsewhere. */
  buyer_token_hash: string | null;
  /** Whom to invoice, as the buyer gave it at checkout (null: not given). */
  buyer_company: Generated<string | null>;
  buyer_address: Generated<string | null>;
  buyer_vat_id: Generated<string | null>;
  created_at: string;
  paid_at: string | null;
  /** When it was cancelled or expired. */
  closed_at: string | null;
  updated_at: string;
  /** The provider's checkout (a Stripe Checkout Session id) the buyer was last sent to. */
  provider_session_id: Generated<string | null>;
  /** The provider's payment that paid it (a Stripe PaymentIntent id): what a refund names. */
  provider_payment_id: Generated<string | null>;
  /** Minor units refunded, refunds in flight included: never more than `total_minor`. */
  refunded_minor: Generated<number>;
  /** The discount code the order was placed with (null: none, or deleted since). */
  discount_code_id: Generated<string | null>;
  /** The code as applied, kept when the code is deleted. */
  discount_code: Generated<string | null>;
  /** What the code took off the order in all, in minor units (total_minor is after it). */
  discount_minor: Generated<number>;
}

/** One ticket type of an order, with its price frozen when the order was placed. */
export interface OrderLinesTable {
  order_id: string;
  ticket_type_id: string;
  ticket_type_name: string;
  quantity: number;
  /** Gross, tax included. */
  unit_price_minor: number;
  /** The tax rate the line was sold at, in basis points. */
  tax_rate_bp: Generated<number>;
  /** The tax included in the line's gross amount (quantity × unit price), rounded to a minor unit. */
  tax_minor: Generated<number>;
  /** What the order's code took off each ticket of the line, in minor units. */
  unit_discount_minor: Generated<number>;
  /** 1: the price was entered net and the tax added per ticket; 0: entered gross, tax included. */
  prices_net: Generated<number>;
}

/** What a discount code does: an amount off each ticket it covers, or only unlocking hidden types. */
export type DiscountKind = "PERCENTAGE" | "FIXED_AMOUNT" | "ACCESS";

/** A discount or access code of a project (modules/discount-codes). */
export interface DiscountCodesTable {
  id: string;
  project_id: string;
  /** As the organizer wrote it. */
  code: string;
  /** Upper-cased: lookups ignore case; unique per project. */
  code_key: string;
  kind: DiscountKind;
  /** 1..100 for PERCENTAGE; else null. */
  percent_off: number | null;
  /** Minor units off each ticket for FIXED_AMOUNT (never below zero); else null. */
  amount_off_minor: number | null;
  /** Tickets the code may be applied to in all; null: no limit. */
  max_uses: number | null;
  /** Tickets of one order the code may be applied to; null: no limit. */
  max_per_order: number | null;
  valid_from: string | null;
  valid_until: string | null;
  /** JSON array of the ticket type ids it covers; null: every ticket type. */
  ticket_type_ids: string | null;
  /** The label of the bulk generation that made it, or null. */
  batch: string | null;
  /** Tickets it was applied to, in orders not cancelled or expired. */
  uses: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** A project's order settings; a project without a row has the defaults. */
export interface OrderSettingsTable {
  project_id: string;
  hold_minutes: number;
  /** Shown to buyers paying by bank transfer (account holder, IBAN, BIC); null: bank transfer off. */
  bank_details: string | null;
  /** The default tax rate of the project's ticket types, in basis points. */
  tax_rate_bp: Generated<number>;
  /** Who sells, as printed on invoices (name, address, VAT id); null: no invoices are issued. */
  seller_details: Generated<string | null>;
  /** What invoice numbers start with (`INV-2026-`): the number is the prefix and a 4-digit sequence. */
  invoice_prefix: Generated<string>;
  /** Until when buyers may cancel their own paid order for a refund (ISO instant); null: they may not. */
  self_cancel_until: Generated<string | null>;
  /** 1: ticket prices are entered net and tax is added on top; 0 (default): entered gross. */
  prices_net: Generated<number>;
  updated_at: string;
}

/** A project's Stripe keys, encrypted at rest (modules/orders/stripe/key-box.ts); no row: no Stripe. */
export interface PaymentAccountsTable {
  project_id: string;
  stripe_secret_key: string;
  stripe_webhook_secret: string;
  /** What the dashboard shows instead of the key: its mode prefix and last four characters. */
  stripe_key_hint: string;
  updated_at: string;
}

/** PENDING while the provider is asked; SUCCEEDED; FAILED (its amount is refundable again). */
type RefundState = "PENDING" | "SUCCEEDED" | "FAILED";

/**
 * REQUESTED: an organizer or app refunded (part of) the order's payment. LATE: a card payment
 * arrived after the hold lapsed and the seats were gone. DUPLICATE: a second payment of a paid
 * order. MISMATCH: a payment whose amount or currency is not the order's. The last three are sent
 * back on their own (docs/payments.md) and do not count against the order's refundable amount.
 */
export type RefundReason = "REQUESTED" | "LATE" | "DUPLICATE" | "MISMATCH";

/** One refund of an order; its id is the provider's idempotency key. */
export interface OrderRefundsTable {
  id: string;
  project_id: string;
  order_id: string;
  amount_minor: number;
  state: RefundState;
  reason: RefundReason;
  /** The provider's payment it sends money back from; null for a manual refund. */
  provider_payment_id: string | null;
  /** The provider's refund (a Stripe `re_…` id); null for a manual refund. */
  provider_refund_id: string | null;
  /** The ticket (attendee) this refund cancels once made; null: it names no ticket. */
  attendee_id: string | null;
  /** 1: this refund cancels the whole order once made (an organizer's or buyer's cancellation). */
  cancels_order: Generated<number>;
  created_at: string;
  updated_at: string;
}

/** Provider notifications already applied, by the provider's event id: a replay changes nothing. */
interface PaymentNotificationsTable {
  project_id: string;
  event_id: string;
  type: string;
  received_at: string;
}

/** INVOICE for an order's payment; CREDIT_NOTE takes back (part of) an invoice. */
export type InvoiceKind = "INVOICE" | "CREDIT_NOTE";

/** An invoice or credit note as issued, never changed (see migrations/2026-11-29T00-10_invoices.ts). */
export interface InvoicesTable {
  id: string;
  project_id: string;
  order_id: string;
  kind: InvoiceKind;
  /** The project's gapless sequence, shared by invoices and credit notes. */
  sequence: number;
  number: string;
  /** Gross total in minor units; negative for a credit note. */
  total_minor: number;
  currency: string;
  /** The issued document as JSON (modules/invoices/invoice-document.ts). */
  document: string;
  issued_at: string;
}

/** The last invoice sequence number issued in a project. */
interface InvoiceCountersTable {
  project_id: string;
  last_sequence: number;
}

/** An organizer's message to attendees (see migrations/2026-11-29T03-00_messages.ts). */
export interface MessagesTable {
  id: string;
  project_id: string;
  subject: string;
  body: string;
  /** The recipients' filter as JSON (modules/messages/message-filter.ts). */
  filter: string;
  /** When its mails fall due: its creation for "send now". */
  send_at: string;
  created_at: string;
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
  /** JSON array of the ticket type ids it is asked for; null: every ticket type. */
  ticket_type_ids: string | null;
  /** The organizer's order, ascending. */
  position: number;
  created_at: string;
  updated_at: string;
}

/** One attendee's answer to one question; `value` is JSON (string, number, boolean or string[]). */
export interface AttendeeAnswersTable {
  attendee_id: string;
  question_id: string;
  project_id: string;
  value: string;
  updated_at: string;
}

/** An app's bulk query over a project (modules/bulk): its state, lease and result file's lifetime. */
export interface BulkOperationsTable {
  id: string;
  app_id: string;
  project_id: string;
  /** The GraphQL document as the app sent it (validated when started). */
  query: string;
  status: "CREATED" | "RUNNING" | "COMPLETED" | "FAILED" | "CANCELED" | "EXPIRED";
  object_count: number;
  /** Why a FAILED job failed, for the app (never a stack). */
  error: string | null;
  /** The process holding the job, and until when its lease holds (renewed each page). */
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  finished_at: string | null;
  /** When the COMPLETED file is pruned (7 days after finishing). */
  expires_at: string | null;
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
interface WaitingListSettingsTable {
  project_id: string;
  offer_hours: number;
}
