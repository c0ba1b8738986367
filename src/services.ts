import { type Cluster, localCluster } from "./cluster/cluster.js";
import type { Config } from "./config.js";
import { channel } from "./db/change-feed.js";
import type { DatabaseHandle } from "./db/database.js";
import { ResponseCache } from "./graphql/cache/response-cache.js";
import { createRateLimiter } from "./graphql/limits/rate-limiter.js";
import type { Logger } from "./logger.js";
import { createAccessService } from "./modules/access/access.service.js";
import type { Actor } from "./modules/access/actor.js";
import { createAccountErasure } from "./modules/account-erasure/account-erasure.service.js";
import { createAccountService } from "./modules/accounts/account.service.js";
import { createAuthService } from "./modules/accounts/auth.service.js";
import { createMailer } from "./modules/accounts/mailer.js";
import { createSessionsService } from "./modules/accounts/sessions.service.js";
import { createOidcClient } from "./modules/accounts/sso/oidc-client.js";
import { createSsoService } from "./modules/accounts/sso/sso.service.js";
import { createThrottle } from "./modules/accounts/throttle.js";
import { createUsersService } from "./modules/accounts/users.service.js";
import { createAgendaService } from "./modules/agenda/agenda.service.js";
import { createAppsService } from "./modules/apps/apps.service.js";
import { createUpdateRequestNotifier } from "./modules/apps/update-requests.js";
import { createAttendeesService } from "./modules/attendees/attendees.service.js";
import { createAttendeeImportService } from "./modules/attendees/attendees-import.service.js";
import { createOrderTickets } from "./modules/attendees/order-tickets.js";
import { createAuditService, eraseFromAuditLog } from "./modules/audit/audit.service.js";
import { createBulkService } from "./modules/bulk/bulk.service.js";
import { forgetBulkResultsOf } from "./modules/bulk/erasure.js";
import { createCheckinsService, undoCheckInOfCancelled } from "./modules/checkins/checkins.service.js";
import { createDemoService } from "./modules/demo/demo.service.js";
import { createTestProjectsService } from "./modules/demo/test-projects.js";
import { createDiscountCodesService } from "./modules/discount-codes/discount-codes.service.js";
import { eventLanguagesService } from "./modules/event-page/event-languages.js";
import { createEventPageService, forgetPublicRegistration } from "./modules/event-page/event-page.service.js";
import { createIdempotencyService } from "./modules/idempotency/idempotency.service.js";
import { createInvoicing } from "./modules/invoices/invoices.service.js";
import { createMessagesService } from "./modules/messages/messages.service.js";
import { createOAuthService } from "./modules/oauth/oauth.service.js";
import { importBankStatement } from "./modules/orders/bank-statement.js";
import { createOrdersService, eraseOrderBuyer } from "./modules/orders/orders.service.js";
import { createRefunds } from "./modules/orders/refunds.js";
import { createStripeAccounts } from "./modules/orders/stripe/stripe-account.js";
import { stripeGateway } from "./modules/orders/stripe/stripe-gateway.js";
import { createStripePayments } from "./modules/orders/stripe/stripe-payments.js";
import { createOverviewService } from "./modules/overview/overview.service.js";
import { createInvitationsService } from "./modules/projects/invitations.service.js";
import { createMembersService } from "./modules/projects/members.service.js";
import { projectsRepository } from "./modules/projects/projects.repository.js";
import { createProjectsService } from "./modules/projects/projects.service.js";
import { createQuestionsService, eraseAnswers } from "./modules/questions/questions.service.js";
import {
  createTicketMailsService,
  forgetTicketMailsOf,
} from "./modules/ticket-mails/ticket-mails.service.js";
import { createTicketsService } from "./modules/tickets/tickets.service.js";
import {
  createWaitingListService,
  eraseWaitingListEntries,
} from "./modules/waiting-list/waiting-list.service.js";
import { eraseFromWebhookLogs } from "./modules/webhooks/erasure.js";
import { createWebhooksService } from "./modules/webhooks/webhooks.service.js";
import { areaBit } from "./shared/data-areas.js";
import type { OnAttendeeErased } from "./shared/erasure.js";
import { LiveHub } from "./shared/live/live-hub.js";
import { liveRecorder } from "./shared/live/live-recorder.js";
import { ProjectChanges } from "./shared/project-changes.js";

/**
 * Every domain service, built once per process over one database. The dashboard, the API and the
 * CLI all call these, so each rule lives in exactly one place. `cluster` (from `connectCluster`)
 * shares rate limits and throttles with the other processes; without it they stay local.
 */
export function createServices(
  database: DatabaseHandle,
  config: Config,
  logger: Logger,
  cluster: Cluster = localCluster(),
) {
  const { db } = database;
  // 32 MiB of answers, half of it open to any answer and the rest only to answers asked for twice:
  // under a stream of distinct queries the process stays well under 250 MB (docs/performance.md).
  const responseCache = new ResponseCache({
    maxBytes: 32 * 1024 * 1024,
    admitOnSecondRequestAbove: 16 * 1024 * 1024,
    externalWrites: database.externalWrites,
  });
  // Fast path `remembered-credentials` (the rule and its invariant: modules/access/remembered.ts).
  const access = createAccessService(db, responseCache, config.fastPaths["remembered-credentials"]);
  const feed = database.changeFeed;
  const changes = new ProjectChanges(
    (trx, projectId, areas) => projectsRepository.bumpDataVersion(trx, projectId, areas),
    feed && (() => feed.heardEverywhere()),
  );
  // This process's own writes evict at once, after their commit; other processes' arrive through the
  // database (app.ts: PostgreSQL's change feed; SQLite's data_version, read by the cache's epoch).
  changes.subscribe((projectId, areas) => responseCache.invalidateProject(projectId, areas));
  // Subscriptions (docs/guides/14-subscriptions.md): a write's events reach this process's streams
  // after its commit, and other processes' through the change feed (app.ts); a change of a
  // project's access makes its streams check that they still may listen.
  const live = new LiveHub(config.limits);
  changes.addRecorder(liveRecorder(database.engine, channel, (event) => live.publish(event)));
  changes.subscribe((projectId, areas) => {
    if (areas & areaBit.project) live.accessChanged(projectId);
  });
  const users = createUsersService(db, config.passwordCost);
  const projects = createProjectsService(db, access, changes);
  const sessions = createSessionsService(db);
  const mailer = createMailer(config, logger);
  // Every domain event is an audit entry, written in the transaction of the write it describes.
  const audit = createAuditService(db, access, logger);
  changes.addRecorder((trx, actor, event) => audit.record(trx, actor, event));
  const throttle = createThrottle({ redis: cluster.redis, keyPrefix: cluster.keyPrefix, logger });
  const updateRequests = createUpdateRequestNotifier({ db, config, mailer, throttle, logger });
  const apps = createAppsService(db, access, changes, config, logger, updateRequests);
  const oauth = createOAuthService({ db, config, logger, access, changes, apps });
  const agenda = createAgendaService(db, access, changes);
  const tickets = createTicketsService(db, access, changes);
  // What an erasure takes out of each module's own tables, in the erasing transaction.
  const onErased: OnAttendeeErased = async (trx, person) => {
    await eraseFromAuditLog(trx, person);
    await eraseFromWebhookLogs(trx, person);
    await forgetTicketMailsOf(trx, person);
    await eraseOrderBuyer(trx, person);
    await forgetPublicRegistration(trx, person);
    await eraseAnswers(trx, person);
    await eraseWaitingListEntries(trx, person);
    await forgetBulkResultsOf(trx, person);
  };
  const attendees = createAttendeesService(db, access, changes, undoCheckInOfCancelled, onErased);
  const ticketMails = createTicketMailsService(db, access, mailer);
  const orderTickets = createOrderTickets({ changes, onCancelled: undoCheckInOfCancelled });
  const invoicing = createInvoicing(db, changes);
  const orders = createOrdersService(db, access, changes, orderTickets, invoicing, ticketMails.announce);
  const stripeAccounts = createStripeAccounts({ db, config, access, changes });
  const gateway = stripeGateway(config.payments.stripeApiBase);
  const refunds = createRefunds({
    db,
    access,
    changes,
    tickets: orderTickets,
    invoicing,
    accounts: stripeAccounts,
    gateway,
  });
  const stripe = createStripePayments({
    db,
    changes,
    orders,
    accounts: stripeAccounts,
    gateway,
    refunds,
    logger,
  });
  const discountCodes = createDiscountCodesService(db, access, changes);
  const questions = createQuestionsService(db, access, changes);
  const members = createMembersService(db, access, changes);
  const accountErasure = createAccountErasure({ db, changes, projects });
  const waitingList = createWaitingListService({
    db,
    access,
    changes,
    throttle,
    tickets,
    attendees,
    orders,
    baseUrl: () => config.baseUrl,
    announce: ticketMails.announce,
  });
  return {
    config,
    logger,
    database,
    changes,
    responseCache,
    live,
    rateLimiter: createRateLimiter({ redis: cluster.redis, keyPrefix: cluster.keyPrefix, logger }),
    /** Attempt counters (accounts, the event site, the dashboard's request budget). */
    throttle,
    access,
    users,
    sessions,
    mailer,
    auth: createAuthService({ db, config, users, sessions, mailer, throttle }),
    /** Single sign-on (OIDC_*); undefined when not configured. */
    sso: config.oidc && {
      config: config.oidc,
      // Read at each log-in: the address the provider sends the browser back to follows BASE_URL.
      client: createOidcClient(config.oidc, () => `${config.baseUrl}/login/oidc/callback`),
      service: createSsoService({ db, sessions, logger, passwordCost: config.passwordCost }),
    },
    account: createAccountService({
      db,
      config,
      users,
      sessions,
      mailer,
      throttle,
      eraseAccount: accountErasure.erase,
    }),
    accountErasure,
    projects,
    members,
    invitations: createInvitationsService({ db, access, mailer, config, throttle, changes }),
    agenda,
    tickets,
    attendees,
    orders,
    /** Refunds of orders, through their provider or recorded as made by hand. */
    refunds,
    /** A CSV bank statement matched to pending bank-transfer orders (dry run, or marking them paid). */
    importBankStatement: (actor: Actor, input: { projectId: string; csv: string; dryRun: boolean }) =>
      importBankStatement({ db, access, orders }, actor, input),
    /** A project's Stripe keys (Settings → Payments). */
    stripeAccounts,
    /** Stripe Checkout and Stripe's notifications. */
    stripe,
    discountCodes,
    questions,
    /** Waiting lists of sold-out ticket types and the offers of freed seats. */
    waitingList,
    checkins: createCheckinsService(db, access, changes),
    ticketMails,
    /** The organizer's messages to attendees, sent through the ticket-mail outbox. */
    messages: createMessagesService(db, access, changes, ticketMails.announce),
    attendeeFiles: createAttendeeImportService(db, database.engine, access, changes, ticketMails.announce),
    overview: createOverviewService(db, tickets),
    apps,
    oauth,
    audit,
    updateRequests,
    // A run's lock outlives any request: its deadline, and a COMMIT under way at the deadline.
    idempotency: createIdempotencyService(db, { lockMs: config.limits.requestTimeoutMs + 30_000, logger }),
    webhooks: createWebhooksService(db, config, changes, apps, access),
    /** Apps' bulk queries (the runner that executes them starts with the app: app.ts). */
    bulk: createBulkService({ db, access, baseUrl: () => config.baseUrl }),
    demo: createDemoService(db, { users, projects, apps, changes }),
    testProjects: createTestProjectsService(db, { access, projects, members, apps, changes }),
    eventPage: createEventPageService({
      db,
      config,
      logger,
      access,
      changes,
      throttle,
      mailer,
      projects,
      agenda,
      tickets,
      attendees,
      orders,
      refunds,
      discountCodes,
    }),
    /** The event page's languages and the organizer's translations of its texts. */
    eventLanguages: eventLanguagesService({ db, access, changes, tickets }),
  };
}

export type Services = ReturnType<typeof createServices>;
