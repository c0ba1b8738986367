import assert from "node:assert/strict";
import { systemActor } from "../../src/modules/access/actor.js";
import type { AuditEntry } from "../../src/modules/audit/audit.visibility.js";
import type { TestResponse } from "./http-client.js";
import type { TestServer } from "./test-server.js";

/** What one audited action must leave in the log. */
export interface Expected {
  action: string;
  actorKind: AuditEntry["actor"]["kind"];
  via: "dashboard" | "api" | "cli";
  /** Field → new value (as the log shows it); only the named fields are compared. */
  changes?: Record<string, string | null>;
  /** The entry carries an app link id. */
  link?: boolean;
}

/** The audit log checks of a suite's server: its log, one audited action, a response that succeeded. */
export function auditChecks(server: TestServer) {
  async function log(projectId: string): Promise<AuditEntry[]> {
    return (await server.services.audit.list(systemActor, projectId, {}, { first: 100 })).items;
  }

  /** Runs `act`, then checks that exactly one new entry describes it as `expected`. */
  async function audited(projectId: string, expected: Expected, act: () => Promise<unknown>) {
    const before = new Set((await log(projectId)).map((e) => e.id));
    await act();
    const fresh = (await log(projectId)).filter((e) => !before.has(e.id));
    const matching = fresh.filter((e) => e.action === expected.action);
    assert.equal(matching.length, 1, `one ${expected.action} entry, got ${JSON.stringify(fresh, null, 1)}`);
    const entry = matching[0] as AuditEntry;
    assert.equal(entry.actor.kind, expected.actorKind, expected.action);
    assert.equal(entry.via, expected.via, expected.action);
    // Over HTTP the client's address is recorded; the CLI has none.
    assert.equal(entry.ip, expected.via === "cli" ? null : "127.0.0.1", expected.action);
    const changes = Object.fromEntries(entry.changes.map((c) => [c.field, c.value]));
    for (const [field, value] of Object.entries(expected.changes ?? {})) {
      assert.equal(changes[field], value, `${expected.action}: ${field}`);
    }
    if (expected.link) assert.ok(entry.actor.linkId, `${expected.action} names the link`);
    // Nothing that looks like a token or a hash is ever stored.
    assert.doesNotMatch(JSON.stringify(entry), /evg_|token_hash|password/);
    return entry;
  }

  async function ok(response: TestResponse | Promise<TestResponse>) {
    const r = await response;
    assert.ok(r.status < 400, `${r.status}: ${r.body.slice(0, 500)}`);
    return r;
  }
  return { log, audited, ok };
}
