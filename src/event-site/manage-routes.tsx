import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError, ErrorCode } from "../errors.js";
import type { eventLanguagesService } from "../modules/event-page/event-languages.js";
import { projectSubject } from "../modules/event-page/event-languages.js";
import type { EventPageService } from "../modules/event-page/event-page.service.js";
import { isLanguage } from "../shared/i18n/languages.js";
import { eventPaths } from "./event-paths.js";
import { html, sendHtml } from "./html.js";
import { inLanguage, pageLanguage } from "./page-language.js";
import { ManagePage } from "./registration-pages.js";

/**
 * The holder's page of a registration (the emailed manage link) and its cancel button, in the
 * language the attendee registered in unless they pick another.
 */
export function registerManageRoutes(
  app: FastifyInstance,
  deps: {
    events: EventPageService;
    eventLanguages: ReturnType<typeof eventLanguagesService>;
    absolute: (path: string) => string;
  },
): void {
  const managePath = (projectId: string, token: string) => `/e/${projectId}/registration/${token}`;
  type ManageParams = { Params: { projectId: string; token: string } };
  // The secret is in the address: it must not leak through a Referer or a shared cache.
  const privateHeaders = (reply: FastifyReply) =>
    reply
      .header("referrer-policy", "no-referrer")
      .header("cache-control", "no-store")
      .header("x-robots-tag", "noindex");

  app.get<ManageParams>("/:projectId/registration/:token", async (request, reply) => {
    privateHeaders(reply);
    const { projectId, token } = request.params;
    const held = await deps.events.findByLink(projectId, token);
    const page = held ? await deps.events.openPage(projectId) : undefined;
    if (!held || !page) throw new AppError(ErrorCode.NOT_FOUND, "Registration not found");
    // The switcher's choice, else the language the attendee registered in, else their browser's.
    const query = request.query as { lang?: unknown };
    const lang = pageLanguage(request, page.languages, query.lang ?? held.attendee.language);
    const path = managePath(projectId, token);
    const named = await deps.eventLanguages.namesIn(projectId, lang.words.language);
    const project = { ...held.project, name: named(projectSubject, held.project.name) };
    const ticketType = held.ticketType && {
      ...held.ticketType,
      name: named(held.ticketType.id, held.ticketType.name),
    };
    const action = `${path}/cancel`;
    return sendHtml(
      reply,
      html(
        <ManagePage
          held={{ ...held, project, ticketType }}
          action={inLanguage(action, lang)}
          url={deps.absolute(eventPaths.page(projectId))}
          lang={lang}
          path={path}
        />,
      ),
    );
  });

  app.post<ManageParams>("/:projectId/registration/:token/cancel", async (request, reply) => {
    privateHeaders(reply);
    const { projectId, token } = request.params;
    await deps.events.cancelByLink(projectId, token);
    const query = request.query as { lang?: unknown };
    const back = managePath(projectId, token);
    return reply
      .code(303)
      .header("location", isLanguage(query.lang) ? `${back}?lang=${query.lang}` : back)
      .send();
  });
}
