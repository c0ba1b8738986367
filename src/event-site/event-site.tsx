import formbody from "@fastify/formbody";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { formState } from "../dashboard/ui/forms.js";
import { formAnswers } from "../dashboard/ui/question-fields.js";
import { AppError, ErrorCode, httpStatusOf, isUserError } from "../errors.js";
import { negotiateEncoding } from "../http/compression.js";
import { eventSitePolicy, setPageSecurityHeaders } from "../http/security-headers.js";
import { loadServerSecret } from "../modules/accounts/server-secrets.js";
import type { EventContent } from "../modules/event-page/event-content.js";
import { localizeContent } from "../modules/event-page/event-languages.js";
import type { EventPageService, OpenedPage } from "../modules/event-page/event-page.service.js";
import { languages } from "../shared/i18n/languages.js";
import { agendaCalendar } from "./agenda-ics.js";
import { EventPage, SpeakerPage } from "./event-page.js";
import { eventPaths } from "./event-paths.js";
import { type FormSigner, formSigner, signedFormValues } from "./form-token.js";
import { html, sendHtml } from "./html.js";
import { registerManageRoutes } from "./manage-routes.js";
import { orderPaths } from "./order-pages.js";
import { registerOrderRoutes } from "./order-routes.js";
import { PageCache } from "./page-cache.js";
import { inLanguage, type PageLanguage, pageLanguage } from "./page-language.js";
import { pageNumber, pageOf } from "./paging.js";
import { CheckInboxPage, honeypotField, RegisterPage } from "./registration-pages.js";
import { siteFormState } from "./site-errors.js";
import { MessagePage, NotFoundPage, stylesheet } from "./site-layout.js";
import { registerWaitingListRoutes } from "./waiting-list-routes.js";

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
        // No event's languages are known here (a 404 must not tell them): any the visitor reads.
        const lang = pageLanguage(request, languages);
        const { t } = lang.words;
        if (status === 404)
          return sendHtml(reply, html(<NotFoundPage url={absolute(request.url)} lang={lang} />), 404);
        if (error instanceof AppError && error.code === ErrorCode.RATE_LIMITED) {
          reply.header("retry-after", String(error.details.retryAfterSeconds ?? 3600));
        }
        if (status >= 500) request.log.error({ err: error }, "Event page request failed");
        const message =
          status >= 500
            ? t("error.server", { id: request.id })
            : error instanceof AppError
              ? error.message
              : t("error.unreadable");
        return sendHtml(
          reply,
          html(
            <MessagePage title={t("error.title")} url={absolute(request.url)} lang={lang}>
              <p>{message}</p>
            </MessagePage>,
          ),
          status,
        );
      });

      site.setNotFoundHandler(async (request, reply) =>
        sendHtml(
          reply,
          html(<NotFoundPage url={absolute(request.url)} lang={pageLanguage(request, languages)} />),
          404,
        ),
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

      /**
       * The page's content in `lang`: the organizer's translations over the event's own texts (those
       * are in its first language, so that one needs no lookup).
       */
      async function localize(page: OpenedPage, lang: PageLanguage, own: EventContent) {
        if (lang.words.language === page.languages[0]) return own;
        return localizeContent(
          own,
          await services.eventLanguages.translationsIn(page.access.projectId, lang.words.language),
        );
      }
      const content = async (page: OpenedPage, lang: PageLanguage) =>
        localize(page, lang, await events.content(page.access));

      /** The event's questions in the page's language (its first language's texts where none is given). */
      const questionsIn = (page: OpenedPage, lang: PageLanguage) =>
        events.questions(
          page.access,
          lang.words.language === page.languages[0] ? undefined : lang.words.language,
        );

      /** The registration form of an opened page: a new one, or one sent back with its errors. */
      function registerPage(
        reply: FastifyReply,
        page: OpenedPage,
        lang: PageLanguage,
        form: Pick<
          Parameters<typeof RegisterPage>[0],
          "content" | "ticket" | "state" | "questions" | "answers"
        >,
        status?: number,
      ) {
        const path = eventPaths.register(page.access.projectId);
        const url = absolute(inLanguage(path, lang));
        return sendHtml(
          reply,
          html(<RegisterPage {...form} settings={page.settings} url={url} lang={lang} path={path} />),
          status,
        );
      }

      /**
       * A public page served from the cache while the project's data version is unchanged. Keyed by
       * `variant` (what the page shows: its route's parameters and page number) and the negotiated
       * language, never the query string: `?utm=<random>` is the same page, and must not render and
       * store it again. A render counts against the address's render budget.
       */
      async function cached(
        request: FastifyRequest<ProjectParams>,
        reply: FastifyReply,
        type: string,
        variant: string,
        render: (page: OpenedPage, lang: PageLanguage) => Promise<string>,
      ) {
        const page = await opened(request.params.projectId);
        const lang = pageLanguage(request, page.languages);
        // A shared cache must keep one copy per language the header may negotiate.
        if (page.languages.length > 1) reply.header("vary", "accept-language");
        const {
          body,
          cached: hit,
          encoding,
        } = await cache.get(
          page.access.projectId,
          page.version,
          `${variant}:${lang.words.language}`,
          async () => {
            await events.budget.admitRender(request.ip);
            return render(page, lang);
          },
          negotiateEncoding(request),
        );
        // Already compressed: @fastify/compress passes it on as it is.
        if (encoding) {
          const vary = reply.getHeader("vary");
          reply
            .header("content-encoding", encoding)
            .header("vary", vary ? `${vary}, accept-encoding` : "accept-encoding");
        }
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
          return cached(request, reply, "text/html; charset=utf-8", `page:${number}`, async (page, lang) => {
            const shown = pageOf(await content(page, lang), number);
            if (!shown) throw new AppError(ErrorCode.NOT_FOUND, "Page not found");
            const path = `${eventPaths.page(page.access.projectId)}${number > 1 ? `?page=${number}` : ""}`;
            return html(
              <EventPage
                content={shown.content}
                pager={shown.pager}
                settings={page.settings}
                url={absolute(inLanguage(eventPaths.page(page.access.projectId), lang))}
                lang={lang}
                path={path}
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
            async (page, lang) => {
              const shown = await content(page, lang);
              // Only a speaker of a published session is public: the page's own list decides.
              const speaker = shown.speakers.find((s) => s.id === request.params.speakerId);
              if (!speaker) throw new AppError(ErrorCode.NOT_FOUND, "Speaker not found");
              const path = eventPaths.speaker(page.access.projectId, speaker.id);
              return html(
                <SpeakerPage
                  content={shown}
                  speaker={speaker}
                  url={absolute(inLanguage(path, lang))}
                  lang={lang}
                  path={path}
                />,
              );
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
          const lang = pageLanguage(request, page.languages);
          const ticket = signer.issue(page.access.projectId);
          const state = formState({
            ticketTypeId: typeof request.query.ticket === "string" ? request.query.ticket : "",
          });
          // Each form carries its own idempotency key: no shared cache may keep it (private), and
          // the browser's Back button shows the same form again (not no-store), so submitting it
          // once more finds the first registration instead of making a second.
          reply.header("cache-control", "private, no-cache");
          const questions = await questionsIn(page, lang);
          const form = { content: await content(page, lang), ticket, state, questions, answers: {} };
          return registerPage(reply, page, lang, form);
        },
      );

      site.post<ProjectParams>("/:projectId/register", async (request, reply) => {
        const page = await opened(request.params.projectId);
        const projectId = page.access.projectId;
        const values = signedFormValues(signer, projectId, request.body, "registration");
        // The form says which language it was shown in; the attendee's emails go in that one.
        const lang = pageLanguage(request, page.languages, values.language);
        const questions = await questionsIn(page, lang);
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
              language: lang.words.language,
            },
            request.ip,
          );
        } catch (error) {
          if (!isUserError(error)) throw error;
          const state = siteFormState(error, values, lang.words, questions);
          reply.header("cache-control", "no-store");
          const form = { content: await content(page, lang), ticket: values, state, questions, answers };
          return registerPage(reply, page, lang, form, httpStatusOf(error));
        }
        return reply
          .code(303)
          .header("location", inLanguage(`/e/${projectId}/registered`, lang))
          .send();
      });

      site.get<ProjectParams>("/:projectId/registered", (request, reply) =>
        cached(request, reply, "text/html; charset=utf-8", "registered", async (page, lang) => {
          const path = `/e/${page.access.projectId}/registered`;
          return html(
            <CheckInboxPage
              content={await content(page, lang)}
              url={absolute(inLanguage(path, lang))}
              sendsEmail={services.mailer.delivers}
              lang={lang}
              path={path}
            />,
          );
        }),
      );

      registerOrderRoutes(site, {
        events,
        signer,
        linkSecret,
        absolute,
        opened,
        localize,
        questionsIn,
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

      registerManageRoutes(site, { events, eventLanguages: services.eventLanguages, absolute });
    },
    { prefix: "/e" },
  );
}
