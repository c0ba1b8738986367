import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from "fastify";
import { execute, validate } from "graphql";
import { schema } from "./api-schema.js";
import type { Cluster } from "./cluster/cluster.js";
import type { Config } from "./config.js";
import { registerDashboard } from "./dashboard/dashboard.js";
import type { DatabaseHandle } from "./db/database.js";
import { registerDocsRoutes } from "./docs/docs.routes.js";
import { AppError, ErrorCode } from "./errors.js";
import { registerEventSite } from "./event-site/event-site.js";
import { createContext } from "./graphql/context.js";
import { registerGraphQLRoutes } from "./graphql/http.js";
import { registerInvoiceDownload } from "./graphql/invoice-download.js";
import { chooseVersion } from "./graphql/versions/api-versions.js";
import { registerCompression } from "./http/compression.js";
import { FrontDoor } from "./http/front-door.js";
import { registerHealthRoutes } from "./http/health.routes.js";
import { type Logger, lazyChildLogger } from "./logger.js";
import { registerMetrics } from "./metrics/metrics.routes.js";
import { auditPruneEveryMs } from "./modules/audit/audit.service.js";
import { BulkRunner } from "./modules/bulk/bulk.runner.js";
import { registerBulkDownload } from "./modules/bulk/bulk-download.route.js";
import { projectSubject } from "./modules/event-page/event-languages.js";
import { keyPruneEveryMs } from "./modules/idempotency/idempotency.service.js";
import { registerOAuthRoutes } from "./modules/oauth/oauth.routes.js";
import { OrderExpiryWorker } from "./modules/orders/order-expiry-worker.js";
import { registerStripeWebhook } from "./modules/orders/stripe/stripe-webhook.route.js";
import { TicketMailWorker } from "./modules/ticket-mails/ticket-mail-worker.js";
import { waitingListEveryMs } from "./modules/waiting-list/offers.js";
import { WebhookDispatcher } from "./modules/webhooks/dispatcher.js";
import { ObjectRenderer } from "./modules/webhooks/render.js";
import { createServices, type Services } from "./services.js";
import { areaBit } from "./shared/data-areas.js";
import { schedulePeriodic } from "./shared/periodic.js";

export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  /** Shared rate limits and invalidations (`connectCluster`); the process stays on its own without it. */
  cluster?: Cluster;
}

declare module "fastify" {
  interface FastifyInstance {
    services: Services;
  }
  interface FastifyReply {
    /**
     * The header fields every response carries, as a flat `[name, value, …]` list: set when Fastify
     * sends, and by a hijacked reply.
     */
    lastHeaderFields(): string[];
  }
}

/** Builds the HTTP application; `main.ts` and the tests build exactly the same one. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database, logger } = deps;
  const door = new FrontDoor(logger);
  const app = Fastify({
    serverFactory: door.serverFactory,
    // pino's Logger is Fastify's logger; the cast keeps FastifyInstance at its default type parameters.
    loggerInstance: logger as FastifyBaseLogger,
    childLoggerFactory: lazyChildLogger,
    trustProxy: config.trustProxy,
    bodyLimit: config.limits.maxBodyBytes,
    genReqId: door.requestId,
    logController: door.logController,
    // SIGTERM closes keep-alive connections that are idle; busy ones finish their request first.
    forceCloseConnections: "idle",
    // The front door refuses new requests during shutdown, on arrival (src/http/front-door.ts).
    return503OnClosing: false,
    // A client trickling its request (1 byte every 5 s) is cut once these pass; Node checks them
    // every `connectionsCheckingInterval` (30 s by default, too coarse for a 10 s limit).
    requestTimeout: config.http.bodyTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    http: { headersTimeout: config.http.headersTimeoutMs, connectionsCheckingInterval: 1_000 },
  });
  // Beyond this many open connections new ones are closed at once: file descriptors and memory per
  // connection stay bounded whatever a client opens.
  app.server.maxConnections = config.http.maxConnections;
  const services = createServices(database, config, logger, deps.cluster);
  door.onBatch(() => services.responseCache.requestsArrive());
  app.decorate("services", services);
  // Runs after in-flight requests finished and before the caller closes the database, so the
  // request counts still in memory are written. A failure is already logged by the recorder.
  const stopPruning = schedulePeriodic(
    "audit log pruning",
    () => services.audit.prune(config.auditRetentionDays),
    auditPruneEveryMs,
    logger,
  );
  const stopKeyPruning = schedulePeriodic(
    "idempotency key pruning",
    () => services.idempotency.prune(),
    keyPruneEveryMs,
    logger,
  );
  // Offers freed seats to the waiting lists and passes lapsed offers on (modules/waiting-list/offers.ts).
  const stopWaitingList = schedulePeriodic(
    "waiting list offers",
    () => services.waitingList.serve(),
    waitingListEveryMs,
    logger,
  );
  app.addHook("onClose", async () => {
    stopPruning();
    stopKeyPruning();
    stopWaitingList();
    await services.apps.flushUsage().catch(() => {});
    await services.oauth.flushUse().catch(() => {});
    // Approval-request emails of an app widened a moment ago (they log their own failures).
    await services.updateRequests.settled();
  });
  // A request still in flight at shutdown gets `Connection: close` on its answer.
  app.addHook("preClose", async () => door.close());
  app.decorateReply("lastHeaderFields", function (this: FastifyReply) {
    return door.lastHeaderFields(this.request.id);
  });
  // A callback hook, not an async one: it runs on every response, and a promise per response costs.
  app.addHook("onSend", (_request, reply, payload, done) => {
    const fields = reply.lastHeaderFields();
    for (let i = 0; i < fields.length; i += 2) reply.header(fields[i] as string, fields[i + 1]);
    done(null, payload);
  });

  // Once per outage, not once per failed request: the circuit breaker reports transitions only.
  const offHealth = database.health.onChange((state) => {
    if (state.status === "down") {
      logger.error(
        { detail: state.lastError },
        "Database unreachable: API requests answer 503 until it returns",
      );
    } else logger.info("Database reachable again");
  });
  app.addHook("onClose", async () => {
    offHealth();
  });
  // PostgreSQL pushes every process's commits: the cache evicts as they arrive, and a hit needs
  // no version query while the feed listens (src/db/change-feed.ts).
  const offChangeFeed = database.changeFeed?.subscribe((projectId, areas) =>
    services.responseCache.invalidateProject(projectId, areas),
  );
  app.addHook("onClose", async () => {
    offChangeFeed?.();
  });
  // Before any route: it attaches itself to each route as the route is added.
  await registerCompression(app);
  const observe = await registerMetrics(app, {
    config,
    database,
    cache: services.responseCache,
    cluster: deps.cluster,
    live: services.live,
    logger,
  });
  registerHealthRoutes(app, database, () => deps.cluster?.readiness());
  // Every version's schema is built here, once, before the first request (VersionedSteps).
  registerGraphQLRoutes(app, services, schema, { door, observe });
  registerInvoiceDownload(app, services);
  startWebhooks(app, services);
  startBulkOperations(app, services);
  startLive(app, services);
  startTicketMails(app, services);
  startOrderExpiry(app, services);
  await registerOAuthRoutes(app, services, logger);
  registerDocsRoutes(app);
  await registerStripeWebhook(app);
  await registerEventSite(app);
  await registerDashboard(app);
  return app;
}

/**
 * Webhook delivery runs in every server process: each write that queued a delivery wakes the dispatcher,
 * which stops claiming at shutdown and lets the requests in flight finish (results recorded).
 */
function startWebhooks(app: FastifyInstance, services: Services): void {
  const renderer = new ObjectRenderer(schema, services);
  services.webhooks.useSelectionCheck((version, typename, selection) =>
    renderer.check(version, typename, selection),
  );
  const dispatcher = new WebhookDispatcher({
    database: services.database,
    config: services.config,
    logger: services.logger,
    access: services.access,
    mailer: services.mailer,
    renderer,
  });
  const unsubscribe = services.webhooks.onQueued((apps) => dispatcher.wake(apps));
  app.addHook("onReady", async () => dispatcher.start());
  app.addHook("preClose", async () => {
    unsubscribe();
    await dispatcher.stop();
  });
}

/**
 * Bulk operations run in every server process: a start here wakes this process's runner, and each
 * runner also polls, so jobs started elsewhere, leases of dead processes and expired results are seen.
 * Each page executes against the API schema of the app's pinned version as the app, exactly as its
 * request without a version header would.
 */
function startBulkOperations(app: FastifyInstance, services: Services): void {
  registerBulkDownload(app, services.bulk);
  let pages = 0;
  const runner = new BulkRunner({
    db: services.database.db,
    logger: services.logger,
    onFinished: (row) =>
      services.webhooks.notifyApp(row.app_id, row.project_id, "bulk_operation.finished", {
        id: row.id,
        projectId: row.project_id,
        status: row.status,
        objectCount: row.object_count,
        errorMessage: row.error,
      }),
    // Validated again at each page: a job started before an upgrade may meet a changed schema.
    // A page runs in the API version the app is pinned to, as its requests without a header do.
    execute: (actor, document, variables) => {
      const pinned = chooseVersion(
        undefined,
        actor.kind === "app" ? actor.apiVersion : undefined,
        new Date(),
      );
      const apiSchema = schema(pinned.ok ? pinned.version : undefined);
      const errors = validate(apiSchema, document, undefined, { maxErrors: 1 });
      if (errors.length > 0) return Promise.resolve({ errors });
      return Promise.resolve(
        execute({
          schema: apiSchema,
          document,
          variableValues: variables,
          contextValue: createContext(services, actor, `bulk-${++pages}`),
        }),
      );
    },
  });
  const unsubscribe = services.bulk.onStarted(() => runner.wake());
  app.addHook("onReady", async () => runner.start());
  app.addHook("preClose", async () => {
    unsubscribe();
    await runner.stop();
  });
}

/**
 * Subscriptions hear other processes through the database (docs/guides/14-subscriptions.md): on
 * PostgreSQL their events and access changes through the change feed, and a lost feed ends every
 * stream (it fails closed); on SQLite, which has no push channel, `data_version` is read every
 * 250 ms while streams are open, and any other connection's commit (the CLI revoking a link) makes
 * every stream check its access. At shutdown every stream ends with SERVICE_UNAVAILABLE.
 */
function startLive(app: FastifyInstance, services: Services): void {
  const { live, database } = services;
  const feed = database.changeFeed;
  const offAccess = feed?.subscribe((projectId, areas) => {
    if (areas & areaBit.project) live.accessChanged(projectId);
  });
  const offEvents = feed?.subscribeLive({
    event: (event) => live.publish(event),
    lost: () =>
      live.endAll(
        new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The server lost its change feed; subscribe again"),
      ),
  });
  let seen = database.externalWrites();
  const poll = feed
    ? undefined
    : setInterval(() => {
        if (live.size === 0) return;
        const now = database.externalWrites();
        if (now !== undefined && now === seen) return;
        seen = now;
        live.accessChangedEverywhere();
      }, 250);
  poll?.unref();
  app.addHook("preClose", async () => {
    offAccess?.();
    offEvents?.();
    clearInterval(poll);
    live.stop();
    live.endAll(new AppError(ErrorCode.SERVICE_UNAVAILABLE, "The server is shutting down; subscribe again"));
  });
}

/** Lapsed order holds are expired by every server process (docs/payments.md). */
function startOrderExpiry(app: FastifyInstance, services: Services): void {
  const worker = new OrderExpiryWorker({ orders: services.orders, logger: services.logger });
  app.addHook("onReady", async () => worker.start());
  app.addHook("preClose", async () => worker.stop());
}

/** Ticket emails go out from every server process, each at most `config.mailPerSecond`. */
function startTicketMails(app: FastifyInstance, services: Services): void {
  const worker = new TicketMailWorker({
    db: services.database.db,
    mailer: services.mailer,
    logger: services.logger,
    perSecond: services.config.mailPerSecond,
    orderMail: async (projectId, orderId) => {
      const project = (await services.projects.byIds([projectId])).get(projectId);
      if (!project) return undefined;
      return services.orders.confirmationOf(projectId, orderId, async (language) => {
        const { words, named } = await services.eventLanguages.mailWording(projectId, language);
        return { words, projectName: named(projectSubject, project.name), ticketName: named };
      });
    },
    offerMail: (projectId, entryId) => services.waitingList.offerMail(projectId, entryId),
  });
  const unsubscribe = services.ticketMails.onQueued(() => worker.wake());
  app.addHook("onReady", async () => worker.start());
  app.addHook("preClose", async () => {
    unsubscribe();
    await worker.stop();
  });
}
