import assert from "node:assert/strict";
import { before } from "node:test";
import { publicActor } from "../../src/modules/access/actor.js";
import type { Services } from "../../src/services.js";
import type { TestEngine } from "./engines.js";
import { createApp, createPublishedProject, createTicketType, uniqueEmail } from "./factories.js";
import { type StripeServer, startStripeServer } from "./stripe-server.js";
import { serverPerSuite } from "./test-server.js";
import { perSuite } from "./test-services.js";

// Card orders through the local Stripe stand-in (stripe-server.ts), shared by the API tests of
// payments, refunds and cancellations.

/** Where Stripe's page sends a buyer back: nowhere a test follows. */
/**
 * A suite's Stripe stand-in and a server told where it is (STRIPE_API_BASE, as an operator would set
 * it) and allowed to send webhooks to local receivers; the stand-in notifies that server.
 */
export function cardServerPerSuite(engine: TestEngine) {
  const stand = perSuite(() => startStripeServer());
  const env: Record<string, string> = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" };
  before(() => {
    env.STRIPE_API_BASE = stand.url;
  });
  const server = serverPerSuite(engine, env);
  before(() => {
    stand.pointAt(server.url);
  });
  return { stand, server };
}

/** Where Stripe's page sends a buyer back: nowhere a test follows. */
export const links = { success: "http://127.0.0.1/return", cancel: "http://127.0.0.1/return" };

/** A published event selling a €249 pass and a €99 workshop by card, with the stand-in's keys saved. */
export async function cardEvent(services: Services, stand: StripeServer, passes = 10) {
  const { project, owner, ownerId } = await createPublishedProject(services);
  await services.stripeAccounts.save(owner, project.id, {
    secretKey: stand.secretKey,
    webhookSecret: stand.webhookSecret,
  });
  const pass = await createTicketType(services, owner, project.id, {
    name: "Pass",
    priceMinor: 24900,
    quantity: passes,
    paymentMode: "STRIPE",
  });
  const workshop = await createTicketType(services, owner, project.id, {
    name: "Workshop",
    priceMinor: 9900,
    paymentMode: "STRIPE",
  });
  const { token } = await createApp(services, {
    projectId: project.id,
    ownerId,
    permissions: ["orders:read", "orders:write", "attendees:read"],
  });
  return { project, owner, ownerId, pass, workshop, token };
}

/** A pending card order of one ticket per type id given, placed on the event page. */
export async function cardOrder(services: Services, projectId: string, ticketTypeIds: string[]) {
  const placed = await services.orders.placeOrder(publicActor, {
    projectId,
    buyerName: "Bea Buyer",
    buyerEmail: uniqueEmail("buyer"),
    tickets: ticketTypeIds.map((ticketTypeId) => ({ ticketTypeId, name: "Holder", email: uniqueEmail() })),
  });
  return placed.order;
}

/** The stand-in's Checkout Session behind a hosted-page address. */
export const sessionOf = (stand: StripeServer, url: string) => {
  const session = stand.sessions.get(url.split("/").pop() ?? "");
  assert.ok(session, `a session behind ${url}`);
  return session;
};
