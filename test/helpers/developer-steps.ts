import assert from "node:assert/strict";
import { testPassword, uniqueEmail } from "./factories.js";
import { gql } from "./graphql.js";
import { HttpClient, type TestResponse } from "./http-client.js";
import type { TestServer } from "./test-server.js";

/** GraphQL reads an app's token is tried with: the project's name, and its attendees (a permission it may lack). */
export const projectName = (id: string) => `{ project(id: "${id}") { name } }`;
export const attendeeCount = (id: string) => `{ project(id: "${id}") { attendees { totalCount } } }`;

/** The steps of the developer pages' tests, through a suite's server: organizers, projects, apps, links. */
export function developerSteps(server: TestServer) {
  /** A browser of a newly signed-up organizer (email verified unless told otherwise). */
  async function organizer(options: { verified?: boolean; name?: string } = {}) {
    const email = uniqueEmail("dev");
    const client = new HttpClient(server.url);
    await client.get("/signup");
    const signup = await client.post("/signup", {
      name: options.name ?? "Dana Developer",
      email,
      password: testPassword,
    });
    assert.equal(signup.status, 303, signup.body);
    const user = (await server.services.users.findByEmail(email)) ?? assert.fail("no user");
    if (options.verified !== false) await server.services.users.markEmailVerified(user.id);
    await client.get("/"); // shows (and so clears) the welcome message
    return { client, user };
  }

  /** Authorize on the connect page the organizer has open, with the permissions it offers. */
  function authorizeOpenPage(org: HttpClient, appId: string, projectId: string): Promise<TestResponse> {
    return org.post(`/connect/${appId}`, { projectId, permissions: org.formValue("permissions") ?? "" });
  }

  /** Links the app to a project through its connect page, with the permissions it asks for. */
  async function connect(org: HttpClient, appId: string, projectId: string): Promise<void> {
    await org.get(`/connect/${appId}`);
    assert.equal((await authorizeOpenPage(org, appId, projectId)).status, 303);
  }

  /** Creates a project in the dashboard; its 4-character id. */
  async function newProject(client: HttpClient, name = "Dev Days"): Promise<string> {
    await client.get("/projects/new");
    const created = await client.post("/projects", { name, timezone: "UTC" });
    const id = /^\/b\/([A-Za-z0-9]{4})$/.exec(created.headers.get("location") ?? "")?.[1];
    assert.ok(id, created.body);
    return id;
  }

  /** Adds an app on the API tab; the token is read from the dialog of the POST's answer. */
  async function addApp(
    client: HttpClient,
    projectId: string,
    fields: { name?: string; description?: string; permissions?: string[] } = {},
  ) {
    await client.get(`/b/${projectId}/settings/api`);
    const response = await client.post(`/b/${projectId}/settings/api/apps`, {
      name: fields.name ?? "Schedule Sync",
      description: fields.description ?? "",
      permissions: fields.permissions ?? ["agenda:read"],
    });
    assert.equal(response.status, 200, response.body);
    // The token dialog's field is a textarea (it wraps, so the whole token shows).
    const token = /id="new-token"[^>]*>\s*(evg_[A-Za-z0-9]+)\s*<\/textarea>/.exec(response.body);
    const appId = new RegExp(`action="/b/${projectId}/settings/api/apps/([^"/]+)"`).exec(response.body)?.[1];
    assert.ok(token && appId, response.body);
    return {
      response,
      token: token[1] as string,
      appId,
      path: `/b/${projectId}/settings/api/apps/${appId}`,
    };
  }

  /** Every row of every table as text, to prove a secret is stored nowhere. */

  /** What `projectName` answers with `token`. */
  const readsName = async (token: string, id: string) =>
    (await gql(server.url, projectName(id), { token })).body;

  return { organizer, authorizeOpenPage, connect, newProject, addApp, readsName };
}
