import type { FastifyInstance } from "fastify";
import { AppError, ErrorCode, httpStatusOf } from "../errors.js";
import { invoiceDownloadRule, sendInvoicePdf } from "../modules/invoices/invoice-reply.js";
import type { Services } from "../services.js";
import { authenticate } from "./authentication.js";

/** Where an app downloads an invoice's PDF (`Invoice.url`): the API's token, never a cookie. */
export const invoiceDownloadPath = (invoiceId: string) => `/api/invoices/${invoiceId}.pdf`;

/**
 * `GET /api/invoices/<id>.pdf` with the app's `Authorization: Bearer` token, as the API takes it:
 * answered for an app holding orders:read in the invoice's project; any other caller or id is the
 * same 404, so an invoice's existence never leaks.
 */
export function registerInvoiceDownload(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { file: string } }>("/api/invoices/:file", async (request, reply) => {
    try {
      const actor = await authenticate(services, request.headers.authorization);
      const match = /^([A-Za-z0-9_-]{1,64})\.pdf$/.exec(request.params.file);
      if (actor.kind !== "app" || !match?.[1]) throw new AppError(ErrorCode.NOT_FOUND, "Invoice not found");
      if (!(await services.throttle.take([{ rule: invoiceDownloadRule, key: `app:${actor.appId}` }]))) {
        throw new AppError(ErrorCode.RATE_LIMITED, "Too many invoice downloads; try again within the hour");
      }
      const invoice = await services.orders.findInvoice(actor, match[1]);
      if (!invoice) throw new AppError(ErrorCode.NOT_FOUND, "Invoice not found");
      return await sendInvoicePdf(reply, invoice);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.code === ErrorCode.UNAUTHENTICATED)
        reply.header("www-authenticate", 'Bearer error="invalid_token"');
      return reply
        .code(httpStatusOf(error))
        .header("cache-control", "no-store")
        .send({ error: { code: error.code, message: error.message } });
    }
  });
}
