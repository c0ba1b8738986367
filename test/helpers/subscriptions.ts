import assert from "node:assert/strict";
import { createClient, type ExecutionResult } from "graphql-sse";
import type { Permission } from "../../src/modules/access/permissions.js";
import type { Services } from "../../src/services.js";
import type { DomainEvent } from "../../src/shared/project-changes.js";
import { createApp, createAttendee, createProject, createTicketType, userActor } from "./factories.js";
import type { TestServer } from "./test-server.js";

/** One subscription through the real `graphql-sse` client: what it received, and how it ended. */
export interface Subscription {
  results: ExecutionResult<Record<string, unknown>, unknown>[];
  /** Resolves with the `n`-th result (1-based) once it has arrived; rejects after `timeoutMs`. */
  nth(n: number, timeoutMs?: number): Promise<ExecutionResult<Record<string, unknown>, unknown>>;
  /** Settles when the stream ends: `error` for a refused request, else undefined (completed). */
  ended: Promise<{ error: unknown; at: number }>;
  dispose(): void;
}

/** Subscribes at `url`'s stream path with `token`, as an app would. */
export function subscribe(
  url: string,
  token: string | undefined,
  query: string,
  variables: Record<string, unknown> = {},
): Subscription {
  const client = createClient({
    url: `${url}/api/graphql/stream`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
  });
  const results: ExecutionResult<Record<string, unknown>, unknown>[] = [];
  const waiters = new Set<() => void>();
  let finish: (end: { error: unknown; at: number }) => void = () => {};
  const ended = new Promise<{ error: unknown; at: number }>((resolve) => {
    finish = resolve;
  });
  const dispose = client.subscribe<Record<string, unknown>>(
    { query, variables },
    {
      next: (result) => {
        results.push(result);
        for (const wake of waiters) wake();
      },
      error: (error) => finish({ error, at: Date.now() }),
      complete: () => finish({ error: undefined, at: Date.now() }),
    },
  );
  return {
    results,
    ended,
    dispose: () => {
      dispose();
      client.dispose();
    },
    async nth(n, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (results.length < n) {
        assert.ok(Date.now() < deadline, `result ${n} did not arrive; got ${JSON.stringify(results)}`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 50);
        });
      }
      return results[n - 1] as ExecutionResult<Record<string, unknown>, unknown>;
    },
  };
}

/** Waits until `count` subscriptions of the project listen on the server of `services`. */
export async function listening(services: Services, projectId: string, count = 1): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (services.live.listening(projectId) < count) {
    assert.ok(Date.now() < deadline, "the subscription did not start listening");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The HTTP status of a refused subscription request (the client's NetworkError carries the response). */
export function refusedStatus(error: unknown): number | undefined {
  return (error as { response?: { status: number } } | undefined)?.response?.status;
}

/** A project with one ticket type, one attendee, and an app holding `permissions` in it. */
export async function doorProject(server: Pick<TestServer, "services">, permissions: Permission[]) {
  const { project, ownerId } = await createProject(server.services);
  const owner = userActor(ownerId);
  const ticketType = await createTicketType(server.services, owner, project.id);
  const attendee = await createAttendee(server.services, owner, project.id, ticketType.id, { name: "Ada" });
  const { app, token } = await createApp(server.services, { projectId: project.id, ownerId, permissions });
  return { projectId: project.id, owner, ownerId, ticketType, attendee, app, token };
}

/**
 * Announces `type` about the door's attendee in a write that then rolls back: a subscriber must
 * never hear of it. Resolves once the rollback happened.
 */
export async function rolledBackEvent(
  services: Services,
  door: Awaited<ReturnType<typeof doorProject>>,
  type: DomainEvent["type"],
): Promise<void> {
  const { changes, database } = services;
  await assert.rejects(
    changes.write(database.db, door.owner, door.projectId, async (trx) => {
      await changes.event(trx, door.owner, {
        projectId: door.projectId,
        type,
        object: { typename: "Attendee", id: door.attendee.id },
      });
      throw new Error("rolled back on purpose");
    }),
    /rolled back on purpose/,
  );
}
