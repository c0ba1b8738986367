import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { httpStatusOf } from "../errors.js";
import type { Actor } from "../modules/access/actor.js";
import { redirectTo } from "./context.js";
import { formValues, stateFromError } from "./form-data.js";
import { findInProject, loadProjectPage, type ProjectPageData } from "./pages/project-page.js";
import type { Flash } from "./ui/components.js";
import type { FormState } from "./ui/forms.js";
import { sendPage } from "./ui/render.js";

/** A `/b/:projectId/...` form request: its path parameters and query as Fastify parsed them. */
export type FormRequest = FastifyRequest<{
  Params: { projectId: string } & Record<string, string>;
  Querystring: Record<string, string | undefined>;
}>;

/** What each step of a form route receives: the request, its project, the row it names and the form. */
interface FormPost<R> {
  request: FormRequest;
  reply: FastifyReply;
  data: ProjectPageData;
  /** The row the address names, already checked to belong to the address's project. */
  row: R;
  /** The submitted text fields (see `formValues`). */
  values: Record<string, string>;
}

/** Where a successful post leads and the message shown there. */
interface FormDone {
  to: string;
  flash: Flash;
}

/** The steps of one form route; the helper does the loading, checking, redirecting and re-rendering. */
export interface FormSteps<R> {
  /** Calls the service; throws its validation errors for `invalid`. */
  submit(post: FormPost<R>): Promise<FormDone>;
  /** The form again with the errors, answered with the error's status (400, 409...); without it every error goes to the error pages. */
  invalid?(post: FormPost<R>, state: FormState): VNode | Promise<VNode>;
  /** Form state from a failed submit when the form names fields unlike the service (default `stateFromError`). */
  errorState?(error: unknown, values: Record<string, string>): FormState;
}

/** How to find the row an address names: its path parameter, its name in errors and a service lookup. */
export interface RowLookup<R extends { projectId: string }> {
  param: string;
  what: string;
  find(actor: Actor, id: string): Promise<{ item: R } | undefined>;
}

/**
 * The row a `/b/:projectId/...` address names; a row of another project answers NOT_FOUND like a
 * missing one (see `findInProject`). Edit pages (GET) and form routes share it.
 */
export async function loadRow<R extends { projectId: string }>(
  data: ProjectPageData,
  lookup: RowLookup<R>,
  params: Record<string, string>,
): Promise<R> {
  return findInProject(data, lookup.what, await lookup.find(data.actor, params[lookup.param] ?? ""));
}

/** The path parameters of a route other than `:projectId`. */
function rowParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((m) => m[1] ?? "").filter((p) => p !== "projectId");
}

async function handle<R>(
  app: FastifyInstance,
  request: FormRequest,
  reply: FastifyReply,
  loadItem: (data: ProjectPageData) => Promise<R>,
  steps: FormSteps<R>,
): Promise<FastifyReply> {
  const data = await loadProjectPage(app, request);
  const post: FormPost<R> = {
    request,
    reply,
    data,
    row: await loadItem(data),
    values: formValues(request.body),
  };
  let done: FormDone;
  try {
    done = await steps.submit(post);
  } catch (error) {
    if (!steps.invalid) throw error;
    const state = (steps.errorState ?? stateFromError)(error, post.values);
    return sendPage(reply, await steps.invalid(post, state), httpStatusOf(error));
  }
  return redirectTo(request, reply, done.to, done.flash);
}

/** A project page answered to GET at `path`: the project is loaded (and access checked), then rendered. */
export function pageRoute(
  app: FastifyInstance,
  path: string,
  render: (request: FormRequest, reply: FastifyReply, data: ProjectPageData) => VNode | Promise<VNode>,
): void {
  app.get(path, async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    return sendPage(reply, await render(request, reply, data));
  });
}

/**
 * A project-level form POST (load the project, read the form, call the service, redirect with a
 * flash or re-render with 400). An address naming a row must use `rowFormRoute`, which checks
 * the row's project: registering one here fails at startup, so no route can skip that check.
 */
export function formRoute(app: FastifyInstance, path: string, steps: FormSteps<undefined>): void {
  const params = rowParams(path);
  if (params.length > 0) throw new Error(`${path} names a row (:${params.join(", :")}): use rowFormRoute`);
  app.post(path, (request: FormRequest, reply) => handle(app, request, reply, async () => undefined, steps));
}

/** A form POST on the row the address names, found through `lookup` in the address's project first. */
export function rowFormRoute<R extends { projectId: string }>(
  app: FastifyInstance,
  path: string,
  lookup: RowLookup<R>,
  steps: FormSteps<R>,
): void {
  const params = rowParams(path);
  if (params.length !== 1 || params[0] !== lookup.param) {
    throw new Error(`${path} must name exactly the row :${lookup.param}`);
  }
  app.post(path, (request: FormRequest, reply) =>
    handle(app, request, reply, (data) => loadRow(data, lookup, request.params), steps),
  );
}
