import pg from "pg";
import { globalId } from "../../src/graphql/ids.js";
import { systemActor } from "../../src/modules/access/actor.js";
import type { TestEngine } from "./engines.js";
import { createApp, createProject, createTicketType } from "./factories.js";
import { startTestServer, type TestServer } from "./test-server.js";

/** The registration the lock drills send: it locks its ticket type's row to count seats. */
export const registerMutation = `mutation($input: RegisterAttendeeInput!) { registerAttendee(input: $input) { attendee { id } userErrors { field message } } }`;

/** A server, an app that may register in a project, and a connection of its own to hold locks. */
export interface LockDrill {
  server: TestServer;
  /** Holds the ticket type's row after `lock()`, until `release()`. */
  blocker: pg.Client;
  token: string;
  projectId: string;
  ticketTypeId: string;
  /** The input of a registration in the project, for `name` and `email`. */
  input(name: string, email: string): Record<string, string>;
  lock(): Promise<void>;
  release(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Sets up a PostgreSQL lock drill: only PostgreSQL can hold a row lock from another connection while
 * the server keeps running (better-sqlite3 waits for a lock synchronously, blocking the process).
 */
export async function lockDrill(postgres: TestEngine, env: Record<string, string>): Promise<LockDrill> {
  const server = await startTestServer(postgres, env);
  const blocker = new pg.Client({ connectionString: postgres.newDatabaseUrl() });
  await blocker.connect();
  const { project } = await createProject(server.services);
  const ticket = await createTicketType(server.services, systemActor, project.id);
  const { token } = await createApp(server.services, {
    projectId: project.id,
    permissions: ["attendees:write"],
  });
  return {
    server,
    blocker,
    token,
    projectId: project.id,
    ticketTypeId: ticket.id,
    input: (name, email) => ({
      projectId: project.id,
      name,
      email,
      ticketTypeId: globalId("TicketType", ticket.id),
    }),
    async lock() {
      await blocker.query("begin");
      await blocker.query("select id from ticket_types where id = $1 for update", [ticket.id]);
    },
    async release() {
      await blocker.query("rollback");
    },
    async close() {
      await blocker.query("rollback").catch(() => {});
      await blocker.end();
      await server.close();
    },
  };
}
