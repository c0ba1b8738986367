import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { MemberRole } from "../../src/db/schema.js";
import type { Actor } from "../../src/modules/access/actor.js";
import { isPermission } from "../../src/modules/access/permissions.js";
import { renderRoleTable } from "../../src/modules/access/policy.js";
import { testEngines } from "../helpers/engines.js";
import {
  addMember,
  createApp,
  createProject,
  createUser,
  uniqueEmail,
  userActor,
} from "../helpers/factories.js";
import { testContextPerSuite } from "../helpers/test-services.js";

// Read from the source tree, not dist: the committed file is what people read.
const committed = readFileSync(new URL("../../../docs/roles.md", import.meta.url), "utf8");

/** The table in docs/roles.md: action or permission → role → allowed. */
function parseTable(markdown: string): Map<string, Record<MemberRole, boolean>> {
  const table = new Map<string, Record<MemberRole, boolean>>();
  for (const line of markdown.split("\n")) {
    const match = /^\| `([^`]+)`[^|]*\| (\S+) \| (\S+) \| (\S+) \|$/.exec(line);
    if (!match) continue;
    const [, name, owner, admin, member] = match as unknown as [string, string, string, string, string];
    table.set(name, { OWNER: owner === "yes", ADMIN: admin === "yes", MEMBER: member === "yes" });
  }
  return table;
}

describe("the committed role table", () => {
  test("is exactly what the policy renders (regenerate with node scripts/roles-table.mjs)", () => {
    assert.equal(committed, renderRoleTable());
  });
});

for (const engine of testEngines()) {
  describe(`what each role may really do matches docs/roles.md (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    /** Runs the service call that takes `action`; true when it was allowed. */
    async function probe(actor: Actor, projectId: string, action: string): Promise<boolean> {
      const { services } = ctx;
      const run: Record<string, () => Promise<unknown>> = {
        "members.view": () => services.members.list(actor, projectId),
        "members.manage": () =>
          services.invitations.invite(actor, projectId, { email: uniqueEmail(), role: "MEMBER" }),
        "members.manageOwners": () =>
          services.invitations.invite(actor, projectId, { email: uniqueEmail(), role: "OWNER" }),
        "apps.view": () => services.apps.listForProject(actor, projectId),
        "apps.manage": () => services.apps.createApp(actor, { projectId, name: "Probe", permissions: [] }),
        "integrations.view": () => services.apps.listIntegrations(actor, projectId),
        "integrations.manage": async () => {
          const { app } = await createApp(services);
          return services.apps.revokeLink(actor, { appId: app.id, projectId });
        },
        // Authorized before the confirmation is read: a wrong one proves the call was allowed
        // without deleting the project the next probes need.
        "project.delete": () =>
          services.projects.delete(actor, projectId, "not the name").catch((error: { code?: string }) => {
            if (error.code !== "BAD_USER_INPUT") throw error;
          }),
        "audit:read": () => services.audit.list(actor, projectId, {}, { first: 1 }),
      };
      const call = run[action];
      if (call) {
        try {
          await call();
          return true;
        } catch (error) {
          assert.equal((error as { code?: string }).code, "FORBIDDEN", `${action}: ${String(error)}`);
          return false;
        }
      }
      assert.ok(isPermission(action), `no probe for ${action}`);
      const access = await services.access.require(actor, projectId);
      return access.permissions.has(action);
    }

    test("every action and permission, for OWNER, ADMIN and MEMBER", async () => {
      const table = parseTable(committed);
      assert.ok(table.size >= 15, "the table lists the actions and the permissions");
      for (const role of ["OWNER", "ADMIN", "MEMBER"] as const) {
        const { project, ownerId } = await createProject(ctx.services);
        let actor = userActor(ownerId);
        if (role !== "OWNER") {
          const person = await createUser(ctx.services);
          await addMember(ctx.services, userActor(ownerId), project.id, person.email, role);
          actor = userActor(person.id);
        }
        for (const [name, allowed] of table) {
          assert.equal(await probe(actor, project.id, name), allowed[role], `${role} × ${name}`);
        }
      }
    });

    test("apps and strangers take no organizer action", async () => {
      const { project } = await createProject(ctx.services);
      const stranger = userActor((await createUser(ctx.services)).id);
      await assert.rejects(ctx.services.members.list(stranger, project.id), { code: "NOT_FOUND" });
      const app: Actor = { kind: "app", appId: "x", homeProjectId: project.id, permissions: ["agenda:read"] };
      for (const action of ["members.view", "apps.view", "integrations.view", "apps.manage"]) {
        assert.equal(await probe(app, project.id, action), false, action);
      }
    });
  });
}
