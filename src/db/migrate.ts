import { type Migration, type MigrationProvider, type MigrationResult, Migrator } from "kysely";
import { type DatabaseHandle, type Db, openDatabase, redactUrl } from "./database.js";
import * as initial from "./migrations/2026-11-23T00-00_initial.js";
import * as serverSecrets from "./migrations/2026-11-23T01-00_server-secrets.js";
import * as projectDataVersion from "./migrations/2026-11-23T02-00_project-data-version.js";
import * as searchIndex from "./migrations/2026-11-24T01-00_search-index.js";
import * as invitations from "./migrations/2026-11-24T02-00_invitations.js";
import * as webhooks from "./migrations/2026-11-24T10-00_webhooks.js";
import * as installFlowAndAccounts from "./migrations/2026-11-24T11-00_install-flow-and-accounts.js";
import * as auditLog from "./migrations/2026-11-24T12-00_audit-log.js";
import * as ticketCodes from "./migrations/2026-11-24T13-00_ticket-codes.js";
import * as doorCounts from "./migrations/2026-11-24T13-10_door-counts.js";
import * as attendeeImports from "./migrations/2026-11-24T14-00_attendee-imports.js";
import * as eventPage from "./migrations/2026-11-24T15-00_event-page.js";
import * as dataAreaVersions from "./migrations/2026-11-24T16-00_data-area-versions.js";
import * as changeNotifications from "./migrations/2026-11-24T17-00_change-notifications.js";
import * as webhookQueueHeads from "./migrations/2026-11-24T18-00_webhook-queue-heads.js";
import * as sessionSpeakerOrder from "./migrations/2026-11-24T19-00_session-speaker-order.js";
import * as projectVersions from "./migrations/2026-11-27T10-00_project-versions.js";
import * as accessVersions from "./migrations/2026-11-28T10-00_access-versions.js";
import * as ticketMails from "./migrations/2026-11-28T10-00_ticket-mails.js";
import * as billingDetails from "./migrations/2026-11-28T11-00_billing-details.js";
import * as ticketTypeNames from "./migrations/2026-11-28T12-00_ticket-type-names.js";
import * as registrationLinks from "./migrations/2026-11-28T18-00_registration-links.js";
import * as orders from "./migrations/2026-11-28T20-00_orders.js";
import * as overviewCounts from "./migrations/2026-11-28T21-00_overview-counts.js";
import * as invoices from "./migrations/2026-11-29T00-10_invoices.js";
import * as discountCodes from "./migrations/2026-11-29T00-20_discount-codes.js";
import * as idempotencyKeys from "./migrations/2026-11-29T01-00_idempotency-keys.js";
import * as oauthGrants from "./migrations/2026-11-29T01-10_oauth-grants.js";
import * as stripeRefunds from "./migrations/2026-11-29T01-20_stripe-refunds.js";
import * as orderLinesDeferredCheck from "./migrations/2026-11-29T02-00_order-lines-deferred-check.js";
import * as testProjects from "./migrations/2026-11-29T02-10_test-projects.js";
import * as messages from "./migrations/2026-11-29T03-00_messages.js";
import * as registrationQuestions from "./migrations/2026-11-29T03-10_registration-questions.js";
import * as selfCancel from "./migrations/2026-11-29T03-20_self-cancel.js";
import * as bulkOperations from "./migrations/2026-11-29T03-30_bulk-operations.js";
import * as waitingList from "./migrations/2026-11-29T04-00_waiting-list.js";
import * as eventLanguages from "./migrations/2026-11-29T04-20_event-languages.js";
import * as webhookObjectOrder from "./migrations/2026-11-29T04-30_webhook-object-order.js";
import * as appApiVersion from "./migrations/2026-11-29T04-40_app-api-version.js";
import * as pricesNet from "./migrations/2026-11-29T04-50_prices-net.js";
import * as testProjectLinks from "./migrations/2026-11-29T05-00_test-project-links.js";
import * as idempotencyCommitted from "./migrations/2026-11-29T05-10_idempotency-committed.js";
import * as refundCancels from "./migrations/2026-11-29T07-10_orders.js";
import * as languages from "./migrations/2026-11-29T07-20_languages.js";
import * as bulkResults from "./migrations/2026-11-29T07-50_bulk-results.js";

// Listed explicitly rather than read from a folder, so the compiled build needs no file scanning
// and the order is visible in review. Names sort by their timestamp prefix.
const migrations: Record<string, Migration> = {
  "2026-11-23T00-00_initial": initial,
  "2026-11-23T01-00_server-secrets": serverSecrets,
  "2026-11-23T02-00_project-data-version": projectDataVersion,
  "2026-11-24T01-00_search-index": searchIndex,
  "2026-11-24T02-00_invitations": invitations,
  "2026-11-24T10-00_webhooks": webhooks,
  "2026-11-24T11-00_install-flow-and-accounts": installFlowAndAccounts,
  "2026-11-24T12-00_audit-log": auditLog,
  "2026-11-24T13-00_ticket-codes": ticketCodes,
  "2026-11-24T13-10_door-counts": doorCounts,
  "2026-11-24T14-00_attendee-imports": attendeeImports,
  "2026-11-24T15-00_event-page": eventPage,
  "2026-11-24T16-00_data-area-versions": dataAreaVersions,
  "2026-11-24T17-00_change-notifications": changeNotifications,
  "2026-11-24T18-00_webhook-queue-heads": webhookQueueHeads,
  "2026-11-24T19-00_session-speaker-order": sessionSpeakerOrder,
  "2026-11-27T10-00_project-versions": projectVersions,
  "2026-11-28T10-00_access-versions": accessVersions,
  "2026-11-28T10-00_ticket-mails": ticketMails,
  "2026-11-28T11-00_billing-details": billingDetails,
  "2026-11-28T12-00_ticket-type-names": ticketTypeNames,
  "2026-11-28T18-00_registration-links": registrationLinks,
  "2026-11-28T20-00_orders": orders,
  "2026-11-28T21-00_overview-counts": overviewCounts,
  "2026-11-29T00-10_invoices": invoices,
  "2026-11-29T00-20_discount-codes": discountCodes,
  "2026-11-29T01-00_idempotency-keys": idempotencyKeys,
  "2026-11-29T01-10_oauth-grants": oauthGrants,
  "2026-11-29T01-20_stripe-refunds": stripeRefunds,
  "2026-11-29T02-00_order-lines-deferred-check": orderLinesDeferredCheck,
  "2026-11-29T02-10_test-projects": testProjects,
  "2026-11-29T03-00_messages": messages,
  "2026-11-29T03-10_registration-questions": registrationQuestions,
  "2026-11-29T03-20_self-cancel": selfCancel,
  "2026-11-29T03-30_bulk-operations": bulkOperations,
  "2026-11-29T04-00_waiting-list": waitingList,
  "2026-11-29T04-20_event-languages": eventLanguages,
  "2026-11-29T04-30_webhook-object-order": webhookObjectOrder,
  "2026-11-29T04-40_app-api-version": appApiVersion,
  "2026-11-29T04-50_prices-net": pricesNet,
  "2026-11-29T05-00_test-project-links": testProjectLinks,
  "2026-11-29T05-10_idempotency-committed": idempotencyCommitted,
  "2026-11-29T07-10_orders": refundCancels,
  "2026-11-29T07-20_languages": languages,
  "2026-11-29T07-50_bulk-results": bulkResults,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * The names of the migrations in order; the first N are the schema of a release that shipped N.
 * copy-data compares a source's applied migrations with it; test/ops/migrations.test.ts rebuilds
 * released schemas from it.
 */
export const migrationNames: readonly string[] = Object.keys(migrations).sort();

/** Names of the migrations not yet applied, in the order they would run (reads only). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const all = await new Migrator({ db, provider }).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * Migrates forward to `name` (inclusive) and no further: how tests rebuild a released schema.
 * @internal used by test/ops/migrations.test.ts
 */
export async function migrateUpTo(db: Db, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateTo(name);
  if (error) throw error;
}

/** Applies every pending migration; safe to call from several processes at once (Kysely locks). */
export async function migrateToLatest(db: Db): Promise<MigrationResult[]> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) throw error;
  return results ?? [];
}

/**
 * Checks that the database at `url` answers, then brings its schema up to date with `migrate`. Either
 * failure becomes one error that names the database (its password redacted); closing it is the caller's.
 */
export async function openAndMigrate(
  database: DatabaseHandle,
  url: string,
  migrate: (database: DatabaseHandle) => Promise<unknown>,
): Promise<void> {
  try {
    await database.ping();
    await migrate(database);
  } catch (error) {
    throw new Error(`Cannot open the database at ${redactUrl(url)}: ${(error as Error).message}`);
  }
}

/**
 * Migrates a server's database. On PostgreSQL it does so on a pool of its own, opened for the
 * migrations alone without the server's statement timeout (serverDatabaseOptions): building an
 * index on a large table may rightly take longer than a request. SQLite has no such timeout.
 */
export async function migrateServerDatabase(database: DatabaseHandle, url: string): Promise<void> {
  if (database.engine !== "postgres") {
    await migrateToLatest(database.db);
    return;
  }
  const own = openDatabase(url, { poolSize: 1 });
  try {
    await migrateToLatest(own.db);
  } finally {
    await own.close();
  }
}
