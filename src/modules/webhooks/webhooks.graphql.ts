import { AppError, ErrorCode } from "../../errors.js";
import { builder } from "../../graphql/builder.js";
import { connectionTypes, toConnection } from "../../graphql/connections.js";
import { atMost, boundedList } from "../../graphql/limits/list-bounds.js";
import { ViewerRef } from "../apps/apps.graphql.js";
import { eventCatalogue } from "./catalogue.js";
import type { Delivery, deliveryStatuses, WebhookEndpoint } from "./webhooks.service.js";

const WebhookRef = builder.objectRef<WebhookEndpoint>("Webhook");
const DeliveryRef = builder.objectRef<Delivery>("WebhookDelivery");

/** Defines `Viewer.webhook` and `Viewer.webhookDeliveries`: an app watching its own delivery health. */
export function defineWebhookTypes(): void {
  const StatusEnum = builder.enumType("WebhookDeliveryStatus", {
    description: "Where a webhook delivery stands.",
    values: {
      PENDING: { description: "Not delivered yet: waiting for its first attempt or a retry." },
      DELIVERED: { description: "The endpoint answered 2xx." },
      FAILED: { description: "Every retry failed; it can be redelivered from the dashboard or the CLI." },
      CANCELLED: {
        description: "Not sent: the app lost access to the project, or its endpoint was removed.",
      },
    } satisfies Record<(typeof deliveryStatuses)[number], { description: string }>,
  });

  WebhookRef.implement({
    description: "The app's webhook endpoint. The signing secret is shown once, when it is issued.",
    fields: (t) => ({
      url: t.exposeString("url", { description: "Where the events are sent." }),
      events: t.stringList({
        description: "The event types the app subscribed to (dot names, e.g. attendee.registered).",
        ...boundedList(eventCatalogue.length),
        resolve: (w) => atMost(w.events, eventCatalogue.length),
      }),
      secretLastFour: t.exposeString("secretLastFour", {
        description: "The last four characters of the signing secret (whsec_…), to tell secrets apart.",
      }),
      disabledAt: t.expose("disabledAt", {
        type: "DateTime",
        nullable: true,
        description: "When the endpoint was disabled after failing for 3 days; null while it is enabled.",
      }),
    }),
  });

  DeliveryRef.implement({
    description: "One event sent (or to be sent) to the app's webhook endpoint.",
    fields: (t) => ({
      id: t.exposeID("id", {
        description: "The delivery's id: the `webhook-id` header, the same on every retry.",
      }),
      type: t.exposeString("type", { description: "The event type, e.g. checkin.created." }),
      projectId: t.exposeString("projectId", { description: "The project the event happened in." }),
      status: t.field({
        type: StatusEnum,
        description: "Where the delivery stands.",
        resolve: (d) => d.status,
      }),
      attempts: t.exposeInt("attempts", { description: "HTTP requests made so far." }),
      responseStatus: t.int({
        nullable: true,
        description: "The HTTP status of the last answer; null when none came (timeout, connection error).",
        resolve: (d) => d.responseStatus,
      }),
      lastError: t.string({
        nullable: true,
        description: "Why the last attempt failed, when it did.",
        resolve: (d) => d.lastError,
      }),
      createdAt: t.expose("createdAt", {
        type: "DateTime",
        description: "When the event was recorded (committed).",
      }),
      deliveredAt: t.expose("deliveredAt", {
        type: "DateTime",
        nullable: true,
        description: "When the endpoint accepted it.",
      }),
      nextAttemptAt: t.expose("nextAttemptAt", {
        type: "DateTime",
        nullable: true,
        description: "When a pending delivery is tried next.",
      }),
    }),
  });

  // The endpoint and the deliveries are the app's across every project it reaches: an OAuth access
  // token reaches one project only, so it reads neither (the app's own token does).
  function refuseGrantToken(app: { grant?: unknown }): void {
    if (app.grant) {
      throw new AppError(
        ErrorCode.FORBIDDEN,
        "An OAuth access token reaches one project; read webhooks with the app's own token",
      );
    }
  }

  builder.objectFields(ViewerRef, (t) => ({
    webhook: t.field({
      type: WebhookRef,
      nullable: true,
      description: "The app's webhook endpoint; null when none is set.",
      resolve: (app, _args, c) => {
        c.noCache();
        refuseGrantToken(app);
        return c.services.webhooks.endpointForApp(app.appId);
      },
    }),
    webhookDeliveries: t.connection(
      {
        type: DeliveryRef,
        description: "The app's webhook deliveries, newest first (kept for 30 days).",
        args: {
          status: t.arg({ type: StatusEnum, required: false, description: "Only deliveries in this state." }),
        },
        resolve: (app, args, c) => {
          c.noCache();
          refuseGrantToken(app);
          const status = args.status ?? undefined;
          return toConnection(
            args,
            (window) => c.services.webhooks.deliveryPage(app.appId, window, status),
            () => c.services.webhooks.countDeliveries(app.appId, status),
          );
        },
      },
      ...connectionTypes("WebhookDelivery", "webhook deliveries"),
    ),
  }));
}
