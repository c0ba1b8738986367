import type { FastifyInstance } from "fastify";
import { registerApiTab } from "./api-tab.js";
import { registerAppDetailsPages } from "./app-details.js";
import { registerConnectPages } from "./connect.js";
import { registerIntegrationsTab } from "./integrations-tab.js";
import { registerOAuthConsentPage } from "./oauth-consent.js";
import { registerOAuthTab } from "./oauth-tab.js";
import { registerWebhooksTab } from "./webhooks-tab.js";

/** The developer side of the dashboard: API tab, app details, webhooks, connect page, Integrations tab. */
export function registerDeveloperPages(app: FastifyInstance): void {
  registerApiTab(app);
  registerAppDetailsPages(app);
  registerConnectPages(app);
  registerOAuthConsentPage(app);
  registerOAuthTab(app);
  registerIntegrationsTab(app);
  registerWebhooksTab(app);
}
