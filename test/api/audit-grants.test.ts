import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bindOrigin } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { createAttendee, createTicketType, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

const auditQuery = `query ($id: ID!, $action: String) {
  project(id: $id) {
    auditLog(first: 50, action: $action) {
      edges { node { action ip objectType actor { kind name id } changes { field value } } }
    }
  }
}`;

interface Node {
  action: string;
  ip: string | null;
  objectType: string;
  actor: { kind: string; name: string; id: string | null };
  changes: { field: string; value: string | null }[];
}

for (const engine of testEngines()) {
  describe(`the audit log never widens a grant (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    /** A project whose owner, in the dashboard from 203.0.113.9, registered attendees and added a room. */
    async function busyProject() {
      const { user: owner, project } = await createOrganizer(server.services, { name: "Olga Owner" });
      const dashboard = bindOrigin(userActor(owner.id), { via: "dashboard", ip: "203.0.113.9" });
      const ticket = await createTicketType(server.services, dashboard, project.id);
      const attendees = [];
      for (const name of ["Grace Hopper", "Alan Turing"])
        attendees.push(
          await createAttendee(server.services, dashboard, project.id, ticket.id, { name, company: "ACME" }),
        );
      await server.services.agenda.createRoom(dashboard, { projectId: project.id, name: "Hall A" });
      return { owner, project, attendees };
    }

    async function logAs(token: string, projectId: string, action?: string): Promise<Node[]> {
      const r = await gql(server.url, auditQuery, { token, variables: { id: projectId, action } });
      assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
      return r.body.data.project.auditLog.edges.map((e: { node: Node }) => e.node);
    }

    test("an app with audit:read alone sees who did what, but no attendee's data, no email, no address", async () => {
      const { owner, project, attendees } = await busyProject();
      const { token } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "Auditor",
        permissions: ["audit:read"],
      });
      const entries = await logAs(token, project.id);
      const text = JSON.stringify(entries);
      for (const a of attendees) {
        assert.ok(!text.includes(a.email), "attendee email leaked");
        assert.ok(!text.includes(a.name), "attendee name leaked");
      }
      assert.ok(!text.includes("ACME"));
      assert.ok(!text.includes(owner.email), "organizer email leaked");
      assert.ok(!text.includes("203.0.113.9"), "organizer address leaked");
      assert.ok(!text.includes("Hall A"), "agenda values need agenda:read");
      const registered = entries.filter((e) => e.action === "attendee.registered");
      assert.equal(registered.length, 2, "the entries themselves stay listed");
      assert.ok(registered[0]?.changes.some((c) => c.field === "email" && c.value === null));
      assert.equal(registered[0]?.actor.kind, "USER");
      assert.equal(registered[0]?.actor.id, owner.id);
      assert.equal(registered[0]?.ip, null);
    });

    test("an app that may read attendees sees their recorded values, still without organizers' data", async () => {
      const { owner, project, attendees } = await busyProject();
      const { token } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "Auditor",
        permissions: ["audit:read", "attendees:read"],
      });
      const entries = await logAs(token, project.id, "attendee.");
      const emails = entries.flatMap((e) => e.changes.filter((c) => c.field === "email").map((c) => c.value));
      assert.deepEqual(emails.sort(), attendees.map((a) => a.email).sort());
      const text = JSON.stringify(await logAs(token, project.id));
      assert.ok(!text.includes(owner.email));
      assert.ok(!text.includes("203.0.113.9"));
      assert.ok(!text.includes("Hall A"), "rooms still need agenda:read");
    });

    test("owners see everything in the dashboard's log and its CSV", async () => {
      const { owner, project, attendees } = await busyProject();
      const client = await logIn(server.url, owner.email);
      const csv = await client.get(`/b/${project.id}/settings/audit.csv`);
      assert.equal(csv.status, 200);
      for (const a of attendees) assert.match(csv.body, new RegExp(a.email.replace(/[.]/g, "\\.")));
      assert.match(csv.body, /203\.0\.113\.9/);
      assert.ok(csv.body.includes(owner.email));
    });
  });
}
