import type { FastifyInstance, FastifyReply } from "fastify";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import { stateFromError } from "../dashboard/form-data.js";
import { formState } from "../dashboard/ui/forms.js";
import { AppError, ErrorCode, httpStatusOf, isUserError } from "../errors.js";
import type { EventPageService } from "../modules/event-page/event-page.service.js";
import type { WaitingListService } from "../modules/waiting-list/waiting-list.service.js";
import { type FormSigner, type FormTicket, signedFormValues } from "./form-token.js";
import { orderPaths } from "./order-pages.js";
import { honeypotField } from "./registration-pages.js";
import { MessagePage } from "./site-layout.js";
import { JoinedPage, JoinWaitingListPage, OfferPage, waitingListPaths } from "./waiting-list-pages.js";

const html = (page: VNode) => `<!doctype html>${renderToString(page)}`;
const sendHtml = (reply: FastifyReply, body: string, status = 200) =>
  reply.code(status).type("text/html; charset=utf-8").send(body);

type Opened = NonNullable<Awaited<ReturnType<EventPageService["openPage"]>>>;

/**
 * The waiting list on the event site: joining a sold-out ticket type's line, and the personal
 * offer link that takes a held seat. Forms are signed like the registration form (no cookies).
 */
export function registerWaitingListRoutes(
  site: FastifyInstance,
  deps: {
    events: EventPageService;
    waitingList: WaitingListService;
    signer: FormSigner;
    absolute: (path: string) => string;
    opened: (projectId: string) => Promise<Opened>;
  },
): void {
  const { events, waitingList, signer, absolute, opened } = deps;
  type ProjectParams = { Params: { projectId: string } };
  type OfferParams = { Params: { projectId: string; token: string } };

  async function joinPage(
    reply: FastifyReply,
    page: Opened,
    ticket: FormTicket,
    state = formState({}),
    status?: number,
  ) {
    const content = await events.content(page.access);
    const url = absolute(waitingListPaths.join(page.access.projectId));
    return sendHtml(
      reply,
      html(
        <JoinWaitingListPage
          content={content}
          registrationOpen={page.settings.registrationOpen}
          ticket={ticket}
          state={state}
          url={url}
        />,
      ),
      status,
    );
  }

  // The secret is in the address: it must not leak through a Referer or a shared cache.
  const privateHeaders = (reply: FastifyReply) =>
    reply
      .header("referrer-policy", "no-referrer")
      .header("cache-control", "no-store")
      .header("x-robots-tag", "noindex");

  site.get<ProjectParams & { Querystring: { ticket?: string } }>(
    "/:projectId/waiting-list",
    async (request, reply) => {
      const page = await opened(request.params.projectId);
      const ticketTypeId = typeof request.query.ticket === "string" ? request.query.ticket : "";
      reply.header("cache-control", "private, no-cache");
      return joinPage(reply, page, signer.issue(page.access.projectId), formState({ ticketTypeId }));
    },
  );

  site.post<ProjectParams>("/:projectId/waiting-list", async (request, reply) => {
    const page = await opened(request.params.projectId);
    const projectId = page.access.projectId;
    const values = signedFormValues(signer, projectId, request.body, "waiting list");
    // A bot that filled the hidden field is told the same as a person and stored nowhere.
    if (!values[honeypotField]) {
      try {
        if (!page.settings.registrationOpen)
          throw new AppError(ErrorCode.CONFLICT, "Registration for this event is closed");
        await waitingList.join(
          {
            projectId,
            ticketTypeId: values.ticketTypeId ?? "",
            name: values.name ?? "",
            email: values.email ?? "",
          },
          request.ip,
        );
      } catch (error) {
        if (!isUserError(error)) throw error;
        reply.header("cache-control", "no-store");
        return joinPage(reply, page, values, stateFromError(error, values), httpStatusOf(error));
      }
    }
    return reply.code(303).header("location", waitingListPaths.joined(projectId)).send();
  });

  site.get<ProjectParams>("/:projectId/waiting-list/joined", async (request, reply) => {
    const page = await opened(request.params.projectId);
    const content = await events.content(page.access);
    return sendHtml(reply, html(<JoinedPage content={content} url={absolute(request.url)} />));
  });

  site.get<OfferParams>("/:projectId/waiting-list/:token", async (request, reply) => {
    privateHeaders(reply);
    const page = await opened(request.params.projectId);
    const projectId = page.access.projectId;
    const offer = await waitingList.openOffer(projectId, request.params.token);
    const content = await events.content(page.access);
    const ticket = offer && content.tickets.find((t) => t.id === offer.ticket_type_id);
    if (!offer) {
      return sendHtml(
        reply,
        html(
          <MessagePage
            title="This offer is no longer open"
            url={absolute(`/e/${projectId}`)}
            eventName={content.project.name}
            eventHref={`/e/${projectId}`}
          >
            <p>
              It was taken, it expired, or it was withdrawn. A seat held for a while passes to the next person
              in line.
            </p>
          </MessagePage>,
        ),
        404,
      );
    }
    const view = {
      name: offer.name,
      ticketName: ticket?.name ?? "your ticket",
      expiresAt: offer.offer_expires_at ?? "",
      paid: ticket ? !ticket.registrable : false,
    };
    return sendHtml(
      reply,
      html(
        <OfferPage
          content={content}
          offer={view}
          action={waitingListPaths.offer(projectId, request.params.token)}
          url={absolute(`/e/${projectId}`)}
        />,
      ),
    );
  });

  site.post<OfferParams>("/:projectId/waiting-list/:token", async (request, reply) => {
    privateHeaders(reply);
    const page = await opened(request.params.projectId);
    const projectId = page.access.projectId;
    const taken = await waitingList.takeOffer(projectId, request.params.token);
    if (taken.kind === "order") {
      return reply
        .code(303)
        .header("location", orderPaths.order(projectId, taken.code, taken.buyerToken))
        .send();
    }
    const content = await events.content(page.access);
    return sendHtml(
      reply,
      html(
        <MessagePage
          title="You are registered"
          url={absolute(`/e/${projectId}`)}
          eventName={content.project.name}
          eventHref={`/e/${projectId}`}
        >
          <p>
            The seat is yours. Your ticket, with its code and QR code, is on its way to {taken.attendee.email}
            .
          </p>
        </MessagePage>,
      ),
    );
  });
}
