import { Stripe } from "stripe";
import { AppError, ErrorCode } from "../../../errors.js";

/** What a checkout for one order asks Stripe for; every amount comes from the order's lines. */
export interface CheckoutRequest {
  projectId: string;
  orderId: string;
  code: string;
  buyerEmail: string;
  currency: string;
  lines: { name: string; quantity: number; unitPriceMinor: number }[];
  successUrl: string;
  cancelUrl: string;
  /** Unix seconds; Stripe takes 30 minutes to 24 hours from now. */
  expiresAt: number;
  /** Stripe's Idempotency-Key: a retried request returns the same session. */
  idempotencyKey: string;
}

/** Longest one Stripe call may take: a buyer waits on it (checkout) or an organizer (refund). */
const stripeTimeoutMs = 15_000;

/**
 * The Stripe API as Eventgraph uses it, through the official `stripe` package. `apiBase` is
 * STRIPE_API_BASE (Stripe's own by default): nothing here knows whether it is Stripe or a stand-in.
 */
export function stripeGateway(apiBase: string) {
  const base = new URL(apiBase);
  const client = (secretKey: string) =>
    new Stripe(secretKey, {
      host: base.hostname,
      port: base.port || (base.protocol === "https:" ? 443 : 80),
      protocol: base.protocol === "https:" ? "https" : "http",
      timeout: stripeTimeoutMs,
      // The SDK retries a network failure or a 5xx itself, with the same Idempotency-Key.
      maxNetworkRetries: 1,
      telemetry: false,
    });

  /** A failed call, as a domain error: a refusal Stripe explains is the caller's to fix; the rest is an outage. */
  function failure(error: unknown, what: string): AppError {
    if (error instanceof Stripe.errors.StripeError && error.statusCode && error.statusCode < 500) {
      const detail = error.statusCode === 401 ? "the Stripe key was refused" : error.message;
      return new AppError(ErrorCode.CONFLICT, `${what}: ${detail}`, {
        fieldErrors: [{ field: ["payment"], message: detail }],
      });
    }
    return new AppError(ErrorCode.SERVICE_UNAVAILABLE, `${what}: Stripe could not be reached; try again`);
  }

  return {
    /** Creates a Checkout Session for an order; returns its id and the hosted page's address. */
    async createCheckout(secretKey: string, r: CheckoutRequest): Promise<{ id: string; url: string }> {
      try {
        const session = await client(secretKey).checkout.sessions.create(
          {
            mode: "payment",
            client_reference_id: r.orderId,
            customer_email: r.buyerEmail,
            line_items: r.lines.map((line) => ({
              quantity: line.quantity,
              price_data: {
                currency: r.currency.toLowerCase(),
                unit_amount: line.unitPriceMinor,
                product_data: { name: line.name },
              },
            })),
            // The order, not the buyer's link: a notification names what to mark paid, never who may see it.
            metadata: { eventgraph_project: r.projectId, eventgraph_order: r.orderId, order_code: r.code },
            payment_intent_data: {
              metadata: { eventgraph_project: r.projectId, eventgraph_order: r.orderId },
            },
            success_url: r.successUrl,
            cancel_url: r.cancelUrl,
            expires_at: r.expiresAt,
          },
          { idempotencyKey: r.idempotencyKey },
        );
        if (!session.url) throw new Error("Stripe answered a session without a url");
        return { id: session.id, url: session.url };
      } catch (error) {
        throw failure(error, "The payment could not be started");
      }
    },

    /** The hosted page of a Checkout Session still open for payment, or undefined (paid, expired, unknown, unreachable). */
    async openSession(secretKey: string, sessionId: string): Promise<string | undefined> {
      try {
        const session = await client(secretKey).checkout.sessions.retrieve(sessionId);
        return session.status === "open" && session.url ? session.url : undefined;
      } catch {
        return undefined;
      }
    },

    /** Refunds part or all of a payment; the refund's own id is the Idempotency-Key. */
    async refund(
      secretKey: string,
      r: { paymentId: string; amountMinor: number; idempotencyKey: string },
    ): Promise<{ id: string; status: string }> {
      try {
        const refund = await client(secretKey).refunds.create(
          { payment_intent: r.paymentId, amount: r.amountMinor },
          { idempotencyKey: r.idempotencyKey },
        );
        return { id: refund.id, status: refund.status ?? "pending" };
      } catch (error) {
        throw failure(error, "The refund was not made");
      }
    },

    /**
     * A notification's event when its Stripe-Signature is right for `webhookSecret` and at most five
     * minutes old (the SDK's check, Stripe's default window); throws otherwise.
     */
    verify(rawBody: string, signature: string, webhookSecret: string): Stripe.Event {
      return Stripe.webhooks.constructEvent(rawBody, signature, webhookSecret, 300);
    },
  };
}

export type StripeGateway = ReturnType<typeof stripeGateway>;
