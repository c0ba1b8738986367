import assert from "node:assert/strict";
import { before } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { onlyJson, runCliInProcess } from "./cli.js";
import type { TestEngine } from "./engines.js";
import { createAttendee, createProject, createTicketType, createUser } from "./factories.js";
import { createOrganizer } from "./organizer.js";
import { serverPerSuite, type TestServer } from "./test-server.js";

/** A GraphQL read of a project and its attendee count: what an app's token may or may not read. */
export const readAttendees = `query ($id: ID!) { project(id: $id) { id name attendees { totalCount } } }`;

/**
 * The steps of the `eventgraph apps` tests, on the suite's server and the CLI's environment (one
 * database for both, as `npm start` and `npx eventgraph` share it), read when a step runs.
 */
function cliAppSteps(server: TestServer, env: Record<string, string>) {
  /** A verified developer's project, as `users create`, `users verify` and `projects create` leave it. */
  async function developerProject(options: { verified?: boolean } = {}) {
    const developer = await createUser(server.services, { verified: options.verified ?? true });
    const { project } = await createProject(server.services, { ownerId: developer.id });
    return { developer, project };
  }

  /** Another organizer's draft project with one registered attendee. */
  async function organizerProject() {
    const { user: organizer, project } = await createOrganizer(server.services);
    const ticket = await createTicketType(server.services, systemActor, project.id);
    const attendee = await createAttendee(server.services, systemActor, project.id, ticket.id);
    return { organizer, project, attendee };
  }

  /** `apps create --json`, which must succeed. */
  async function createAppWithCli(projectId: string, permissions: string, name = "Check-in kiosk") {
    const args = ["apps", "create", "--project", projectId, "--name", name, "--permissions", permissions];
    const { code, stdout, stderr } = await runCliInProcess([...args, "--json"], env);
    assert.equal(code, 0, stderr);
    return onlyJson(stdout) as { id: string; name: string; permissions: string[]; token: string };
  }

  return { developerProject, organizerProject, createAppWithCli };
}

/**
 * The suite's server and the CLI's environment for the enclosing `describe` (one database for both,
 * as `npm start` and `npx eventgraph` share it), with the steps over them.
 */
export function cliAppsSuite(engine: TestEngine) {
  const url = engine.newDatabaseUrl();
  const server = serverPerSuite(engine, { DATABASE_URL: url });
  const env: Record<string, string> = { DATABASE_URL: url };
  before(() => {
    env.BASE_URL = server.url;
  });
  return { server, env, ...cliAppSteps(server, env) };
}
