import type { FastifyInstance } from "fastify";
import { AppError, httpStatusOf } from "../../../errors.js";

// Stripe's events are a few kilobytes; anything much larger is not one.
const maxNotificationBytes = 256 * 1024;

/**
 * `POST /payments/stripe/<project id>`: the endpoint an organizer gives Stripe (Settings →
 * Payments shows it). The body is kept as the exact text Stripe signed: the signature covers its
 * bytes, so it must be checked before anything parses it. 200 for an event applied, replayed or
 * ignored (Stripe stops sending it), 400 for a bad signature or a project without keys,
 * 503 when a refund it asked for could not reach Stripe (Stripe sends it again).
 */
export async function registerStripeWebhook(app: FastifyInstance): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "string", bodyLimit: maxNotificationBytes },
      (_request, body, done) => done(null, body),
    );
    scope.post<{ Params: { projectId: string } }>("/payments/stripe/:projectId", async (request, reply) => {
      const signature = request.headers["stripe-signature"];
      try {
        const outcome = await app.services.stripe.receive(
          request.params.projectId,
          typeof request.body === "string" ? request.body : "",
          typeof signature === "string" ? signature : undefined,
        );
        return reply.code(200).send({ received: true, outcome });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return reply.code(httpStatusOf(error)).send({ received: false, error: error.message });
      }
    });
  });
}
