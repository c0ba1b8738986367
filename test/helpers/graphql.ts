import type { Services } from "../../src/services.js";
import { systemActor } from "../../src/modules/access/actor.js";
import type { Permission } from "../../src/modules/apps/permissions.js";
import { createProject, createUser } from "./factories.js";

/** The answer of one API call: status, headers and the parsed JSON body. */
export interface GraphQLResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  body: any;
}

/** POSTs a GraphQL request to the real server, optionally with a bearer token. */
export async function gql(
  baseUrl: string,
  query: string,
  options: { token?: string; variables?: Record<string, unknown>; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
): Promise<GraphQLResponse> {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8", ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const response = await fetch(`${baseUrl}/api/graphql`, {
    method: "POST",
    headers,
    body: JSON.stringify({ query, variables: options.variables, extensions: options.extensions }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** An organizer's project with an app created in it holding `permissions`, and the app's token. */
export async function createAppWithToken(
  services: Services,
  permissions: Permission[],
  options: { projectId?: string; name?: string } = {},
) {
  const projectId = options.projectId ?? (await createProject(services)).project.id;
  const { app, token } = await services.apps.createApp(systemActor, {
    projectId,
    name: options.name ?? "Test app",
    permissions,
  });
  return { app, token, projectId };
}

/** A second organizer's project linked to `appId` by its owner (who is verified). */
export async function linkedProject(services: Services, appId: string) {
  const owner = await createUser(services);
  const { project } = await createProject(services, { ownerId: owner.id });
  await services.apps.authorize({ kind: "user", userId: owner.id }, { appId, projectId: project.id });
  return { project, owner };
}
