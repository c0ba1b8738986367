import assert from "node:assert/strict";
import type { CreateProjectInput } from "../../src/modules/projects/projects.service.js";
import { createTicketType } from "./factories.js";
import type { HttpClient } from "./http-client.js";
import { logIn } from "./log-in.js";
import { createOrganizer } from "./organizer.js";
import type { TestServer } from "./test-server.js";

/**
 * A new organizer who owns a new project with a "Standard" ticket type, logged in to the
 * dashboard over HTTP: what most dashboard tests start from.
 */
export async function loggedInOrganizer(server: TestServer, projectInput: Partial<CreateProjectInput> = {}) {
  const { user, actor, project } = await createOrganizer(server.services, { project: projectInput });
  const ticketType = await createTicketType(server.services, actor, project.id, { name: "Standard" });
  const client = await logIn(server.url, user.email);
  return { user, actor, project, ticketType, client };
}

/**
 * Posts `content` to the attendee import as the browser's multipart form does, with the session's
 * cookies and its CSRF token (another token when `csrf` is given, none when it is null).
 */
export async function uploadAttendeeList(
  server: TestServer,
  client: HttpClient,
  projectId: string,
  content: Buffer | string,
  csrf?: string | null,
): Promise<{ status: number; location: string | null; body: string }> {
  await client.get(`/b/${projectId}/attendees/import`);
  const form = new FormData();
  if (csrf !== null) form.set("_csrf", csrf ?? client.csrfToken());
  form.set("file", new Blob([typeof content === "string" ? content : new Uint8Array(content)]), "list.csv");
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const response = await fetch(`${server.url}/b/${projectId}/attendees/import`, {
    method: "POST",
    body: form,
    redirect: "manual",
    headers: { cookie, accept: "text/html" },
  });
  return { status: response.status, location: response.headers.get("location"), body: await response.text() };
}

/** `uploadAttendeeList` that must be accepted: the address of the import's preview page. */
export async function uploadedPreview(
  server: TestServer,
  client: HttpClient,
  projectId: string,
  csv: string,
): Promise<string> {
  const { location } = await uploadAttendeeList(server, client, projectId, csv);
  return location ?? assert.fail("no redirect after upload");
}
