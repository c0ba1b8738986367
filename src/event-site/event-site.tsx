import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { stateFromError } from "../dashboard/form-data.js";
import { formState } from "../dashboard/ui/forms.js";
import { formAnswers } from "../dashboard/ui/question-fields.js";
import { AppError, ErrorCode, httpStatusOf, isUserError } from "../errors.js";
import { negotiateEncoding } from "../http/compression.js";
import { eventSitePolicy, setPageSecurityHeaders } from "../http/security-headers.js";
import { loadServerSecret } from "../modules/accounts/server-secrets.js";
import type { EventPageService } from "../modules/event-page/event-page.service.js";
import { agendaCalendar } from "./agenda-ics.js";
import { EventPage, eventPaths, SpeakerPage } from "./event-page.js";
import { type FormSigner, formSigner, signedFormValues } from "./form-token.js";
import { orderPaths } from "./order-pages.js";
import { registerOrderRoutes } from "./order-routes.js";
import { PageCache } from "./page-cache.js";
import { pageNumber, pageOf } from "./paging.js";
import { CheckInboxPage, honeypotField, ManagePage, RegisterPage } from "./registration-pages.js";
import { MessagePage, NotFoundPage, stylesheet } from "./site-layout.js";
import { registerWaitingListRoutes } from "./waiting-list-routes.js";

const html = (page: VNode) => `<!doctype html>${renderToString(page)}`;

function sendHtml(reply: FastifyReply, body: string | Buffer, status = 200): FastifyReply {
  return reply.code(status).type("text/html; charset=utf-8").send(body);
}

type ProjectParams = { Params: { projectId: string } };

/**
 * The public event site under /e/: the event page, speaker pages, the iCalendar feeds, and
 * registration with its manage link. No cookies and no script; the pages anyone may see are
 * cached by the project's data version. Encapsulated, so the dashboard's session and CSRF hooks do
 * not apply here and ours do not apply there.
 */
export async function registerEventSite(app: FastifyInstance): Promise<void> {
  const { services } = app;
  const events: EventPageService = services.eventPage;
  const cache = new PageCache(services.responseCache);
  const signer: FormSigner = formSigner(await loadServerSecret(services.database.db, "event-page-forms"));
  const linkSecret = await loadServerSecret(services.database.db, "event-order-links");
  const absolute = (path: string) => `${services.config.baseUrl}${path}`;

  await app.register(
    async (site) => {
      await site.register(formbody);

      site.addHook("onSend", async (_request, reply, payload) => {
        setPageSecurityHeaders(reply, {
          contentSecurityPolicy: eventSitePolicy,
          referrerPolicy: "strict-origin-when-cross-origin",
        });
        if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-cache");
        return payload;
      });

      // Every request but the stylesheet's counts against its address's budget.
      site.addHook("onRequest", async (request) => {
        if (!request.url.startsWith("/e/assets/")) await events.budget.admitVisit(request.ip);
      });

      // A form posted from another site is refused where the browser says so (Sec-Fetch-Site, or
      // an Origin that is not ours). See form-token.ts for why no cookie is needed.
      site.addHook("preHandler", async (request) => {
        if (request.method !== "POST") return;
        const fetchSite = request.headers["sec-fetch-site"];
        const origin = request.headers.origin;
        const ours = [new URL(services.config.baseUrl).host, request.headers.host];
        const foreignOrigin =
          origin !== undefined &&
          origin !== "null" &&
          URL.canParse(origin) &&
          !ours.includes(new URL(origin).host);
        if (fetchSite === "cross-site" || foreignOrigin) {
          throw new AppError(ErrorCode.FORBIDDEN, "This form must be sent from the event's own page.");
        }
      });

      site.setErrorHandler(async (error: Error, request, reply) => {
        // An error page is a page, even where the answer would have been a calendar file.
        reply.removeHeader("content-disposition");
        const status =
          error instanceof AppError
            ? httpStatusOf(error)
            : ((error as { statusCode?: number }).statusCode ?? 500);
        if (status === 404) return sendHtml(reply, html(<NotFoundPage url={absolute(request.url)} />), 404);
        if (error instanceof AppError && error.code === ErrorCode.RATE_LIMITED) {
          reply.header("retry-after", String(error.details.retryAfterSeconds ?? 3600));
        }
        if (status >= 500) request.log.error({ err: error }, "Event page request failed");
        const message =
          status >= 500
            ? `Something went wrong on our side. Try again in a moment (request id ${request.id}).`
            : error instanceof AppError
              ? error.message
              : "The request could not be read.";
        return sendHtml(
          reply,
          html(
            <MessagePage title="This did not work" url={absolute(request.url)}>
              <p>{message}</p>
            </MessagePage>,
          ),
          status,
        );
      });

      site.setNotFoundHandler(async (request, reply) =>
        sendHtml(reply, html(<NotFoundPage url={absolute(request.url)} />), 404),
      );

      site.get("/assets/event.css", { logLevel: "warn" }, async (_request, reply) =>
        reply
          .type("text/css; charset=utf-8")
          .header("cache-control", "public, max-age=31536000, immutable")
          .send(stylesheet.body),
      );

      /** The page, or the one 404 for any project the public may not see (or whose page is off). */
      async function opened(projectId: string) {
        const page = await events.openPage(projectId);
        if (!page) throw new AppError(ErrorCode.NOT_FOUND, "Event not found");
        return page;
      }

      /** The registration form of an opened page: a new one, or one sent back with its errors. */
      function registerPage(
        reply: FastifyReply,
        page: Awaited<ReturnType<typeof opened>>,
        form: Pick<
          Parameters<typeof RegisterPage>[0],
          "content" | "ticket" | "state" | "questions" | "answers"
        >,
        status?: number,
      ) {
        const url = absolute(eventPaths.register(page.access.projectId));
        return sendHtml(reply, html(<RegisterPage {...form} settings={page.settings} url={url} />), status);
      }

      /**
       * A public page served from the cache while the project's data version is unchanged. Keyed by
       * `variant` (what the page shows: its route's parameters and page number), never the query
       * string: `?utm=<random>` is the same page, and must not render and store it again. A render
       * counts against the address's render budget.
       */
      async function cached(
        request: FastifyRequest<ProjectParams>,
        reply: FastifyReply,
        type: string,
        variant: string,
        render: (page: Awaited<ReturnType<typeof opened>>) => Promise<string>,
      ) {
        const page = await opened(request.params.projectId);
        const {
          body,
          cached: hit,
          encoding,
        } = await cache.get(
          page.access.projectId,
          page.version,
          variant,
          async () => {
            await events.budget.admitRender(request.ip);
            return render(page);
          },
          negotiateEncoding(request),
        );
        // Already compressed: @fastify/compress passes it on as it is.
        if (encoding) reply.header("content-encoding", encoding).header("vary", "accept-encoding");
        return reply
          .header("x-cache", hit ? "hit" : "miss")
          .type(type)
          .send(body);
      }

      site.get<ProjectParams & { Querystring: { page?: string; code?: string } }>(
        "/:projectId",
        (request, reply) => {
          // A shared code link (/e/<id>?code=…) opens the checkout with the code applied; the cached
          // page itself never varies with a code.
          const { code } = request.query;
          if (typeof code === "string" && code.trim() && /^[A-Za-z0-9]{4}$/.test(request.params.projectId)) {
            const target = `${orderPaths.choose(request.params.projectId)}?code=${encodeURIComponent(code.trim().slice(0, 60))}`;
            return reply.code(303).header("referrer-policy", "no-referrer").header("location", target).send();
          }
          const number = pageNumber(request.query.page);
          return cached(request, reply, "text/html; charset=utf-8", `page:${number}`, async (page) => {
            const shown = pageOf(await events.content(page.access), number);
            if (!shown) throw new AppError(ErrorCode.NOT_FOUND, "Page not found");
            return html(
              <EventPage
                content={shown.content}
                pager={shown.pager}
                settings={page.settings}
                url={absolute(eventPaths.page(page.access.projectId))}
              />,
            );
          });
        },
      );

      site.get<{ Params: { projectId: string; speakerId: string } }>(
        "/:projectId/speakers/:speakerId",
        (request, reply) =>
          cached(
            request,
            reply,
            "text/html; charset=utf-8",
            `speaker:${request.params.speakerId}`,
            async (page) => {
              const content = await events.content(page.access);
              // Only a speaker of a published session is public: the page's own list decides.
              const speaker = content.speakers.find((s) => s.id === request.params.speakerId);
              if (!speaker) throw new AppError(ErrorCode.NOT_FOUND, "Speaker not found");
              return html(<SpeakerPage content={content} speaker={speaker} url={absolute(request.url)} />);
            },
          ),
      );

      site.get<ProjectParams>("/:projectId/agenda.ics", (request, reply) => {
        reply.header("content-disposition", 'inline; filename="agenda.ics"');
        return cached(request, reply, "text/calendar; charset=utf-8", "agenda.ics", async (page) =>
          agendaCalendar(await events.content(page.access), { baseUrl: services.config.baseUrl }),
        );
      });

      site.get<{ Params: { projectId: string; sessionFile: string } }>(
        "/:projectId/sessions/:sessionFile",
        (request, reply) => {
          const sessionId = request.params.sessionFile.replace(/\.ics$/, "");
          reply.header("content-disposition", 'attachment; filename="session.ics"');
          const variant = `session:${request.params.sessionFile}`;
          return cached(request, reply, "text/calendar; charset=utf-8", variant, async (page) => {
            const content = await events.content(page.access);
            const session = content.sessions.find((s) => s.id === sessionId);
            if (!session || !request.params.sessionFile.endsWith(".ics"))
              throw new AppError(ErrorCode.NOT_FOUND, "Session not found");
            return agendaCalendar(content, { baseUrl: services.config.baseUrl, sessions: [session] });
          });
        },
      );

      site.get<ProjectParams & { Querystring: { ticket?: string } }>(
        "/:projectId/register",
        async (request, reply) => {
          const page = await opened(request.params.projectId);
          const content = await events.content(page.access);
          const ticket = signer.issue(page.access.projectId);
          const state = formState({
            ticketTypeId: typeof request.query.ticket === "string" ? request.query.ticket : "",
          });
          // Each form carries its own idempotency key: no shared cache may keep it (private), and
          // the browser's Back button shows the same form again (not no-store), so submitting it
          // once more finds the first registration instead of making a second.
          reply.header("cache-control", "private, no-cache");
          const questions = await events.questions(page.access);
          return registerPage(reply, page, { content, ticket, state, questions, answers: {} });
        },
      );

      site.post<ProjectParams>("/:projectId/register", async (request, reply) => {
        const page = await opened(request.params.projectId);
        const projectId = page.access.projectId;
        const values = signedFormValues(signer, projectId, request.body, "registration");
        const questions = await events.questions(page.access);
        const answers = formAnswers(request.body, questions, "", values.ticketTypeId ?? "");
        try {
          await events.register(
            {
              projectId,
              ticketTypeId: values.ticketTypeId ?? "",
              name: values.name ?? "",
              email: values.email ?? "",
              company: values.company,
              billingDetails: values.billingDetails,
              answers,
              idempotencyKey: values.idempotencyKey,
              honeypot: values[honeypotField],
            },
            request.ip,
          );
        } catch (error) {
          if (!isUserError(error)) throw error;
          const content = await events.content(page.access);
          const state = stateFromError(error, values);
          reply.header("cache-control", "no-store");
          const form = { content, ticket: values, state, questions, answers };
          return registerPage(reply, page, form, httpStatusOf(error));
        }
        return reply.code(303).header("location", `/e/${projectId}/registered`).send();
      });

      site.get<ProjectParams>("/:projectId/registered", (request, reply) =>
        cached(request, reply, "text/html; charset=utf-8", "registered", async (page) =>
          html(
            <CheckInboxPage
              content={await events.content(page.access)}
              url={absolute(request.url)}
              sendsEmail={services.mailer.delivers}
            />,
          ),
        ),
      );

      registerOrderRoutes(site, {
        events,
        signer,
        linkSecret,
        absolute,
        opened,
        checkoutUrl: (order, links) => services.stripe.checkoutUrl(order, links),
        // Stripe's hosted pages; a stand-in named by STRIPE_API_BASE serves its own.
        paymentOrigins: [
          ...new Set(["https://checkout.stripe.com", new URL(services.config.payments.stripeApiBase).origin]),
        ],
      });

      registerWaitingListRoutes(site, {
        events,
        waitingList: services.waitingList,
        signer,
        absolute,
        opened,
      });

      const managePath = (projectId: string, token: string) => `/e/${projectId}/registration/${token}`;
      type ManageParams = { Params: { projectId: string; token: string } };
      // The secret is in the address: it must not leak through a Referer or a shared cache.
      const privateHeaders = (reply: FastifyReply) =>
        reply
          .header("referrer-policy", "no-referrer")
          .header("cache-control", "no-store")
          .header("x-robots-tag", "noindex");

      site.get<ManageParams>("/:projectId/registration/:token", async (request, reply) => {
        privateHeaders(reply);
        const { projectId, token } = request.params;
        const held = await events.findByLink(projectId, token);
        if (!held) throw new AppError(ErrorCode.NOT_FOUND, "Registration not found");
        const action = `${managePath(projectId, token)}/cancel`;
        return sendHtml(
          reply,
          html(<ManagePage held={held} action={action} url={absolute(eventPaths.page(projectId))} />),
        );
      });

      site.post<ManageParams>("/:projectId/registration/:token/cancel", async (request, reply) => {
        privateHeaders(reply);
        const { projectId, token } = request.params;
        await events.cancelByLink(projectId, token);
        return reply.code(303).header("location", managePath(projectId, token)).send();
      });
    },
    { prefix: "/e" },
  );
}
