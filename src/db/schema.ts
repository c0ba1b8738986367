import type {
  AuthSessionsTable,
  EmailTokensTable,
  ServerSecretsTable,
  UsersTable,
} from "./schema/accounts.js";
import type {
  RoomsTable,
  SessionSpeakersTable,
  SessionsTable,
  SpeakersTable,
  TracksTable,
} from "./schema/agenda.js";
import type {
  AppLinksTable,
  AppsTable,
  AppUsageTable,
  BulkOperationChunksTable,
  BulkOperationsTable,
  OAuthClientsTable,
  OAuthCodesTable,
  OAuthGrantsTable,
  OAuthTokensTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from "./schema/apps.js";
import type {
  AttendeeAnswersTable,
  AttendeeImportsTable,
  AttendeesTable,
  CheckInsTable,
  OverviewCheckInsTable,
  OverviewRegistrationsTable,
  OverviewTicketCountsTable,
  QuestionTranslationsTable,
  RegistrationQuestionsTable,
  TicketTypesTable,
  WaitingListEntriesTable,
  WaitingListSettingsTable,
} from "./schema/attendees.js";
import type {
  EventPageSettingsTable,
  EventTranslationsTable,
  PublicRegistrationsTable,
  RegistrationLinksTable,
} from "./schema/event-site.js";
import type { MessagesTable, TicketMailsTable } from "./schema/mail.js";
import type {
  DiscountCodesTable,
  InvoiceCountersTable,
  InvoicesTable,
  OrderLinesTable,
  OrderRefundsTable,
  OrderSettingsTable,
  OrdersTable,
  PaymentAccountsTable,
  PaymentNotificationsTable,
} from "./schema/orders.js";
import type {
  AuditEventsTable,
  IdempotencyKeysTable,
  ProjectInvitationsTable,
  ProjectMembersTable,
  ProjectsTable,
  ProjectVersionsTable,
} from "./schema/projects.js";

export type * from "./schema/accounts.js";
export type * from "./schema/agenda.js";
export type * from "./schema/apps.js";
export type * from "./schema/attendees.js";
export type * from "./schema/event-site.js";
export type * from "./schema/mail.js";
export type * from "./schema/orders.js";
export type * from "./schema/projects.js";
/**
 * Every table of the database, by name; their row types live in schema/, one file per area, and are
 * exported from here too. Row types are shared by both engines. Timestamps are ISO-8601 UTC strings
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
  bulk_operation_chunks: BulkOperationChunksTable;
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
  question_translations: QuestionTranslationsTable;
  attendee_answers: AttendeeAnswersTable;
  waiting_list_entries: WaitingListEntriesTable;
  waiting_list_settings: WaitingListSettingsTable;
}
