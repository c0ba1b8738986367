import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { systemActor } from "../src/modules/access/actor.js";
import type { Services } from "../src/services.js";

/**
 * A database of its own for one bench run: a SQLite file in a temporary folder, or, given a
 * PostgreSQL server's URL, a new database on it. `drop` removes it.
 */
export async function benchDatabase(
  name: string,
  postgresServer: string | undefined,
): Promise<{ url: string; drop(): Promise<void> }> {
  const directory = mkdtempSync(join(tmpdir(), `eventgraph-bench-${name}-`));
  const postgresName = `eventgraph_bench_${name}_${process.pid}`;
  /** Runs one statement on the PostgreSQL server's own database (creating or dropping the bench's). */
  const onPostgresServer = async (statement: string) => {
    const admin = new pg.Client({ connectionString: postgresServer });
    await admin.connect();
    await admin.query(statement);
    await admin.end();
  };
  let url = `sqlite:${join(directory, "db.sqlite")}`;
  if (postgresServer) {
    await onPostgresServer(`create database "${postgresName}"`);
    const server = new URL(postgresServer);
    server.pathname = `/${postgresName}`;
    url = server.toString();
  }
  return {
    url,
    async drop() {
      rmSync(directory, { recursive: true, force: true });
      if (postgresServer) await onPostgresServer(`drop database if exists "${postgresName}" with (force)`);
    },
  };
}

/**
 * A project of a new bench user (`owner` is that user as an actor) with one free ticket type
 * "Standard" of `seats` seats, and an app of its own that reads attendees and checks them in.
 */
export async function seedBenchEvent(services: Services, name: string, seats: number) {
  const user = await services.users.create({
    email: "bench@example.test",
    name: "Bench",
    password: "bench bench bench",
  });
  const owner = { kind: "user", userId: user.id } as const;
  const project = await services.projects.create(user.id, { name, timezone: "UTC" });
  const ticketType = await services.tickets.createTicketType(systemActor, {
    projectId: project.id,
    name: "Standard",
    priceMinor: 0,
    currency: "EUR",
    quantity: seats,
  });
  const { app, token } = await services.apps.createApp(systemActor, {
    projectId: project.id,
    name: `${name} app`,
    permissions: ["attendees:read", "checkins:write"],
  });
  return { owner, project, ticketType, app, token };
}

/**
 * The bench event (seedBenchEvent) with all `attendees` seats registered: what the live benches
 * check in, one after another.
 */
export async function seedCheckInEvent(services: Services, name: string, attendees: number) {
  const { project, ticketType, app, token } = await seedBenchEvent(services, name, attendees);
  const ids: string[] = [];
  for (let i = 0; i < attendees; i++) {
    const attendee = await services.attendees.registerAttendee(systemActor, {
      projectId: project.id,
      ticketTypeId: ticketType.id,
      name: `Guest ${i}`,
      email: `guest-${i}@example.test`,
    });
    ids.push(attendee.id);
  }
  return { projectId: project.id, appId: app.id, token, attendees: ids };
}
