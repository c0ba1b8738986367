import { createHmac } from "node:crypto";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { formValues } from "../dashboard/form-data.js";
import { type FormState, formState } from "../dashboard/ui/forms.js";
import { formAnswers } from "../dashboard/ui/question-fields.js";
import { AppError, ErrorCode, httpStatusOf, isUserError } from "../errors.js";
import { eventSitePolicyWith } from "../http/security-headers.js";
import type { EventContent, EventTicket } from "../modules/event-page/event-content.js";
import type { EventPageService, OpenedPage } from "../modules/event-page/event-page.service.js";
import { sendInvoicePdf } from "../modules/invoices/invoice-reply.js";
import type { Order } from "../modules/orders/orders.model.js";
import type { Question } from "../modules/questions/questions.model.js";
import { isLanguage } from "../shared/i18n/languages.js";
import type { Translator } from "../shared/i18n/translator.js";
import { type FormSigner, signedFormValues } from "./form-token.js";
import { cancelOutcomes } from "./order-cancel.js";
import { OrderPage } from "./order-page.js";
import {
  ChooseTicketsPage,
  maxPerType,
  OrderDetailsPage,
  offeredTickets,
  orderPaths,
} from "./order-pages.js";
import { inLanguage, type PageLanguage, pageLanguage } from "./page-language.js";
import { honeypotField } from "./registration-pages.js";
import { siteFormState, siteMessage } from "./site-errors.js";

const html = (page: VNode) => `<!doctype html>${renderToString(page)}`;
const send = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type("text/html; charset=utf-8").send(body);

type ProjectParams = { Params: { projectId: string } };

/** What the checkout's routes need from the event site. */
export interface OrderRouteDeps {
  events: EventPageService;
  signer: FormSigner;
  /** The secret that turns a checkout form's idempotency key into the buyer's link. */
  linkSecret: string;
  absolute: (path: string) => string;
  opened: (projectId: string) => Promise<OpenedPage>;
  /** The page's content in `lang`: the organizer's translations over the event's own texts. */
  localize: (page: OpenedPage, lang: PageLanguage, own: EventContent) => Promise<EventContent>;
  /** The event's questions in `lang`, falling back to its first language's texts. */
  questionsIn: (page: OpenedPage, lang: PageLanguage) => Promise<Question[]>;
  /** Stripe's hosted page for a pending card order, returning to `link` (the buyer's order page). */
  checkoutUrl: (order: Order, links: { success: string; cancel: string }) => Promise<string>;
  /** The origins of the payment provider's pages, which a checkout form's POST may end on. */
  paymentOrigins: readonly string[];
}

/** `link` with one more query parameter. */
const withQuery = (link: string, parameter: string) => `${link}${link.includes("?") ? "&" : "?"}${parameter}`;

/** The order page's link in the language its pay and cancel forms were shown in (their `?lang=`). */
function orderLink(projectId: string, code: string, token: string, query: unknown): string {
  const link = orderPaths.order(projectId, code, token);
  const asked = (query as { lang?: unknown } | undefined)?.lang;
  return isLanguage(asked) ? withQuery(link, `lang=${asked}`) : link;
}

/**
 * The quantities a buyer chose (`q.<ticket type id>` fields), or a refusal a person can act on.
 * Only offered ticket types count: anything else in the query is ignored.
 */
function chosenTickets(content: EventContent, values: Record<string, string>, words: Translator) {
  const { t } = words;
  const chosen: { ticket: EventTicket; quantity: number }[] = [];
  for (const ticket of offeredTickets(content)) {
    const text = values[`q.${ticket.id}`]?.trim() || "0";
    const quantity = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isInteger(quantity) || quantity > maxPerType) {
      return { error: t("invalid.quantity", { max: maxPerType, ticket: ticket.name }) };
    }
    if (quantity > ticket.remaining)
      return { error: t("invalid.left", { count: ticket.remaining, ticket: ticket.name }) };
    if (quantity > 0) chosen.push({ ticket, quantity });
  }
  const count = chosen.reduce((sum, c) => sum + c.quantity, 0);
  if (count === 0) return { error: t("invalid.noTickets") };
  if (count > 20) return { error: t("invalid.tooMany", { max: 20 }) };
  return { chosen };
}

const refused = (message: string): FormState => ({ ...formState(), errors: { tickets: message } });

/**
 * The event page's checkout under /e/<id>/order: step 1 picks quantities (a GET form, so the page
 * needs no script), step 2 names each ticket and places the order (a signed POST, like registration),
 * and the buyer lands on the order's own page behind a secret link.
 */
export function registerOrderRoutes(site: FastifyInstance, deps: OrderRouteDeps): void {
  const { events, signer, absolute, opened } = deps;
  /** The page's content in `lang` with the visitor's code applied (a code may unlock hidden tickets). */
  async function codedContent(page: OpenedPage, lang: PageLanguage, code: string | undefined, ip: string) {
    const coded = await events.withCode(await events.content(page.access), code, ip);
    return { ...coded, content: await deps.localize(page, lang, coded.content) };
  }
  // Browsers apply form-action to the redirect after a POST too: the pages whose form may end on
  // Stripe's page name its origin.
  const checkoutPolicy = eventSitePolicyWith(deps.paymentOrigins);
  // The buyer's link, derived from the form's key: a repeated submit lands on the same order.
  const buyerToken = (projectId: string, key: string) =>
    createHmac("sha256", deps.linkSecret).update(`order-link:${projectId}:${key}`).digest("base64url");
  /**
   * Where a buyer goes once their order is placed: Stripe's page for a pending card order, their
   * order page otherwise, and also when Stripe cannot be reached (the page offers to try again: the
   * order and its seats are kept meanwhile).
   */
  async function payOrOrderPage(order: Order, link: string): Promise<string> {
    if (order.provider !== "STRIPE" || order.state !== "PENDING") return link;
    try {
      return await deps.checkoutUrl(order, { success: absolute(link), cancel: absolute(link) });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return withQuery(link, "payment=failed");
    }
  }

  site.get<ProjectParams & { Querystring: Record<string, string> }>(
    "/:projectId/order",
    async (request, reply) => {
      const page = await opened(request.params.projectId);
      const projectId = page.access.projectId;
      const values = formValues(request.query);
      const lang = pageLanguage(request, page.languages);
      const { words } = lang;
      const coded = await codedContent(page, lang, values.code, request.ip);
      const { content, code } = coded;
      const error = coded.error ? siteMessage(words, coded.error, "invalid.code") : undefined;
      const url = absolute(inLanguage(orderPaths.choose(projectId), lang));
      // A code in the address is a secret of its holder: not for a shared cache or a Referer.
      reply.header("cache-control", "private, no-cache").header("referrer-policy", "no-referrer");
      const quantities = Object.entries(values).filter(([name]) => name.startsWith("q."));
      // "Apply code" (or Enter in the code field with nothing chosen yet) shows the code's prices.
      const applying =
        values.apply !== undefined || (!!values.code && quantities.every(([, v]) => !Number(v)));
      const result =
        quantities.length > 0 && !applying && !error ? chosenTickets(content, values, words) : undefined;
      if (!result?.chosen) {
        const base = result?.error ? { ...refused(result.error), values } : formState(values);
        const state = error ? { ...base, errors: { ...base.errors, code: error } } : base;
        return send(
          reply,
          html(
            <ChooseTicketsPage
              content={content}
              settings={page.settings}
              state={state}
              url={url}
              code={code}
              lang={lang}
            />,
          ),
          result?.error || error ? 400 : 200,
        );
      }
      const form = signer.issue(projectId);
      reply.header("content-security-policy", checkoutPolicy);
      const tax = await events.checkoutTax(projectId);
      return send(
        reply,
        html(
          <OrderDetailsPage
            content={content}
            settings={page.settings}
            tax={tax}
            chosen={result.chosen}
            form={form}
            state={formState()}
            questions={await deps.questionsIn(page, lang)}
            answers={[]}
            url={url}
            code={code}
            lang={lang}
          />,
        ),
      );
    },
  );

  site.post<ProjectParams>("/:projectId/order", async (request, reply) => {
    const page = await opened(request.params.projectId);
    const projectId = page.access.projectId;
    const values = signedFormValues(signer, projectId, request.body, "ticket");
    // The form says which language it was shown in; the order's emails go in that one.
    const lang = pageLanguage(request, page.languages, values.language);
    const { words } = lang;
    const { content, code } = await codedContent(page, lang, values.code, request.ip);
    const chosen = chosenTickets(content, values, words).chosen ?? [];
    const count = chosen.reduce((sum, c) => sum + c.quantity, 0);
    const token = buyerToken(projectId, values.idempotencyKey);
    const questions = await deps.questionsIn(page, lang);
    const holders = Array.from({ length: Math.max(count, 1) }, (_, i) => {
      const ticketTypeId = values[`tickets.${i}.ticketTypeId`] ?? "";
      const answers = formAnswers(request.body, questions, `tickets.${i}.`, ticketTypeId);
      return { ticketTypeId, answers };
    });
    try {
      const placed = await events.placeOrder(
        {
          projectId,
          buyerName: values.buyerName ?? "",
          buyerEmail: values.buyerEmail ?? "",
          company: values.company,
          billingAddress: values.billingAddress,
          vatId: values.vatId,
          // The names come from the form; which ticket types and how many, from the quantities.
          tickets: holders.map(({ ticketTypeId, answers }, i) => ({
            ticketTypeId,
            name: values[`tickets.${i}.name`] ?? "",
            email: values[`tickets.${i}.email`] ?? "",
            answers,
          })),
          idempotencyKey: values.idempotencyKey,
          buyerToken: token,
          discountCode: values.code,
          honeypot: values[honeypotField],
          language: words.language,
        },
        request.ip,
      );
      if (!placed) return reply.code(303).header("location", `/e/${projectId}`).send();
      const link = inLanguage(orderPaths.order(projectId, placed.order.code, token), lang);
      return reply
        .code(303)
        .header("location", await payOrOrderPage(placed.order, link))
        .send();
    } catch (error) {
      if (!isUserError(error)) throw error;
      reply.header("cache-control", "no-store").header("content-security-policy", checkoutPolicy);
      const state = siteFormState(error, values, words, questions);
      // A ticket type's own refusal (sold out meanwhile) has no field of its own in this form.
      if (state.errors.ticketTypeId) state.errors.tickets ??= state.errors.ticketTypeId;
      if (chosen.length === 0) {
        const url = absolute(inLanguage(orderPaths.choose(projectId), lang));
        const message = state.errors.tickets ?? state.formError ?? words.t("invalid.again");
        return send(
          reply,
          html(
            <ChooseTicketsPage
              content={content}
              settings={page.settings}
              state={refused(message)}
              url={url}
              code={code}
              lang={lang}
            />,
          ),
          httpStatusOf(error),
        );
      }
      return send(
        reply,
        html(
          <OrderDetailsPage
            content={content}
            settings={page.settings}
            tax={await events.checkoutTax(projectId)}
            chosen={chosen}
            form={{
              idempotencyKey: values.idempotencyKey ?? "",
              issuedAt: values.issuedAt ?? "",
              signature: values.signature ?? "",
            }}
            state={state}
            questions={questions}
            answers={holders.map((h) => h.answers)}
            url={absolute(inLanguage(orderPaths.choose(projectId), lang))}
            code={code}
            lang={lang}
          />,
        ),
        httpStatusOf(error),
      );
    }
  });

  type OrderParams = { Params: { projectId: string; code: string; token: string } };
  site.get<OrderParams>("/:projectId/orders/:code/:token", async (request, reply) => {
    // The secret is in the address: it must not leak through a Referer or a shared cache.
    reply
      .header("referrer-policy", "no-referrer")
      .header("cache-control", "no-store")
      .header("x-robots-tag", "noindex");
    const { projectId, code, token } = request.params;
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError(ErrorCode.NOT_FOUND, "Order not found");
    const found = await events.orderByLink(projectId, code, token);
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Order not found");
    const page = await opened(projectId);
    const lang = pageLanguage(request, page.languages);
    const content = await deps.localize(page, lang, await events.content(page.access));
    const query = request.query as { payment?: string; cancel?: string };
    const base = orderPaths.order(projectId, code, token);
    reply.header("content-security-policy", checkoutPolicy);
    return send(
      reply,
      html(
        <OrderPage
          {...found}
          content={content}
          invoiceBase={base}
          url={absolute(inLanguage(`/e/${projectId}`, lang))}
          lang={lang}
          payAction={inLanguage(`${base}/pay`, lang)}
          paymentFailed={query.payment === "failed"}
          cancelAction={inLanguage(`${base}/cancel`, lang)}
          cancelOutcome={cancelOutcomes.find((o) => o === query.cancel)}
        />,
      ),
    );
  });

  // "Pay by card" on the order page: a new (or the still open) Stripe page for a pending card order.
  site.post<OrderParams>("/:projectId/orders/:code/:token/pay", async (request, reply) => {
    reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
    const { projectId, code, token } = request.params;
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError(ErrorCode.NOT_FOUND, "Order not found");
    const found = await events.orderByLink(projectId, code, token);
    if (!found) throw new AppError(ErrorCode.NOT_FOUND, "Order not found");
    const link = orderLink(projectId, code, token, request.query);
    return reply
      .code(303)
      .header("location", await payOrOrderPage(found.order, link))
      .send();
  });

  // "Cancel the order" or "Cancel this ticket" on the order page: the buyer's own refund, while the organizer allows it.
  site.post<OrderParams>("/:projectId/orders/:code/:token/cancel", async (request, reply) => {
    reply.header("referrer-policy", "no-referrer").header("cache-control", "no-store");
    const { projectId, code, token } = request.params;
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) throw new AppError(ErrorCode.NOT_FOUND, "Order not found");
    const link = orderLink(projectId, code, token, request.query);
    const values = formValues(request.body);
    // Without the box ticked (a stray or forged post without it) nothing is cancelled.
    if (values.confirm !== "yes") return reply.code(303).header("location", link).send();
    // One ticket of the order (its own form) or, without one, the whole order.
    const ticketId = values.ticket || undefined;
    let outcome = ticketId ? "ticket" : "done";
    try {
      if (!(await events.cancelOrderByLink(projectId, code, token, ticketId)))
        throw new AppError(ErrorCode.NOT_FOUND, "Order not found");
    } catch (error) {
      // A refusal or a provider without an answer: the page says so; the order is as it was or refunding.
      if (!(error instanceof AppError) || error.code === ErrorCode.NOT_FOUND) throw error;
      outcome = "refused";
    }
    return reply
      .code(303)
      .header("location", withQuery(link, `cancel=${outcome}`))
      .send();
  });

  // The PDF of one of the order's invoices, behind the same secret link as the order's page.
  type InvoiceParams = { Params: { projectId: string; code: string; token: string; file: string } };
  site.get<InvoiceParams>("/:projectId/orders/:code/:token/invoices/:file", async (request, reply) => {
    reply.header("referrer-policy", "no-referrer").header("x-robots-tag", "noindex");
    const { projectId, code, token, file } = request.params;
    const id = /^([A-Za-z0-9_-]{1,64})\.pdf$/.exec(file)?.[1];
    if (!id || !/^[A-Za-z0-9_-]{20,100}$/.test(token))
      throw new AppError(ErrorCode.NOT_FOUND, "Invoice not found");
    const invoice = await events.invoiceByLink(projectId, code, token, id, request.ip);
    if (!invoice) throw new AppError(ErrorCode.NOT_FOUND, "Invoice not found");
    return sendInvoicePdf(reply, invoice);
  });
}
