import type { FastifyInstance } from "fastify";
import { httpStatusOf } from "../../errors.js";
import {
  type AuthorizationRequest,
  checkAuthorizationRequest,
} from "../../modules/oauth/authorization-request.js";
import { oauthPaths } from "../../modules/oauth/oauth.routes.js";
import { actorOf, pageContext, redirectTo } from "../context.js";
import { formValues } from "../form-data.js";
import { ForbiddenPage } from "../pages/errors.js";
import { formState } from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { allowRedirectTo, authorizeShown, ConnectPage, type ConsentRoute, viewerOf } from "./connect.js";

/** The request's parameters as the Authorize form carries them back (hidden fields). */
function hiddenFields(request: AuthorizationRequest, scopeAsked: boolean): Record<string, string> {
  return {
    response_type: "code",
    client_id: request.appId,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
    ...(request.state === undefined ? {} : { state: request.state }),
    ...(scopeAsked ? { scope: request.scopes.join(" ") } : {}),
  };
}

/**
 * The OAuth authorization endpoint (RFC 6749 §3.1): the consent page of the connect link, reached
 * with an authorization request. Authorize links the project as the connect link does, then sends
 * the browser to the app's registered redirect URI with a code (oauth.service issueCode).
 */
export function registerOAuthConsentPage(app: FastifyInstance): void {
  const { services } = app;
  const { oauth } = services;

  async function check(params: Record<string, unknown>) {
    return checkAuthorizationRequest(params, await oauth.registeredClient(params.client_id), oauth.issuer);
  }

  function routeOf(checked: AuthorizationRequest, offered: number, scopeAsked: boolean): ConsentRoute {
    const hidden = hiddenFields(checked, scopeAsked);
    return {
      action: oauthPaths.authorize,
      // Rebuilt from the checked parameters: log in comes back to the same request.
      here: `${oauthPaths.authorize}?${new URLSearchParams(hidden).toString()}`,
      cancel: oauth.deniedRedirect(checked),
      hidden,
      scopes: checked.scopes.length < offered ? checked.scopes : undefined,
    };
  }

  app.get(oauthPaths.authorize, async (request, reply) => {
    const params = request.query as Record<string, unknown>;
    const checked = await check(params);
    const ctx = pageContext(request, reply);
    if (checked.kind === "refused") {
      return sendPage(reply, <ForbiddenPage ctx={ctx} message={checked.message} />, 400);
    }
    if (checked.kind === "redirect") return redirectTo(request, reply, checked.url);
    const { request: authorization, info } = checked;
    allowRedirectTo(reply, authorization.redirectUri);
    const route = routeOf(authorization, info.permissions.length, typeof params.scope === "string");
    return sendPage(
      reply,
      <ConnectPage
        ctx={ctx}
        info={info}
        viewer={await viewerOf(services, request, info.app.id)}
        state={formState({ projectId: "" })}
        appState={authorization.state}
        route={route}
      />,
    );
  });

  app.post(oauthPaths.authorize, async (request, reply) => {
    const values = formValues(request.body);
    const checked = await check(values);
    const ctx = pageContext(request, reply);
    if (checked.kind === "refused") {
      return sendPage(reply, <ForbiddenPage ctx={ctx} message={checked.message} />, 400);
    }
    if (checked.kind === "redirect") return redirectTo(request, reply, checked.url);
    const { request: authorization, info } = checked;
    const actor = actorOf(request);
    // What the page showed: the grant is exactly this, or nothing (see apps.authorize).
    const attempt = await authorizeShown(services, actor, info, values, ["projectId"]);
    if ("link" in attempt) {
      return redirectTo(request, reply, await oauth.issueCode(actor, authorization, attempt.link));
    }
    allowRedirectTo(reply, authorization.redirectUri);
    const route = routeOf(authorization, attempt.info.permissions.length, values.scope !== undefined);
    return sendPage(
      reply,
      <ConnectPage
        ctx={ctx}
        info={attempt.info}
        viewer={await viewerOf(services, request, info.app.id)}
        state={attempt.state}
        appState={authorization.state}
        route={route}
      />,
      httpStatusOf(attempt.error),
    );
  });
}
