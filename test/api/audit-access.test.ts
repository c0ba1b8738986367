import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { addMember, createProject, createUser, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

const auditQuery = `query ($id: ID!, $first: Int, $after: String, $action: String, $actor: String) {
  project(id: $id) {
    auditLog(first: $first, after: $after, action: $action, actor: $actor) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { action via ip objectType objectId actor { kind name id linkId } changes { field value } } }
    }
  }
}`;

/**
 * Rows of a CSV whose cells hold no comma, quote or line break (what these tests write), keyed by
 * the header; the export's quoting itself is csv-stringify's.
 */
function parse(text: string): Record<string, string>[] {
  const [header = "", ...lines] = text.trimEnd().split("\n");
  const names = header.split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((cell, i) => [names[i], cell])));
}

for (const engine of testEngines()) {
  describe(`audit log: who may read it, filters, export, retention, project deletion (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    const loggedInAs = (email: string) => logIn(server.url, email);

    /** A project with an owner, an admin and a member, and a few entries in its log. */
    async function team() {
      const owner = await createUser(server.services, { name: "Olga Owner" });
      const admin = await createUser(server.services, { name: "Adam Admin" });
      const member = await createUser(server.services, { name: "Mia Member" });
      const { project } = await createProject(server.services, {
        ownerId: owner.id,
        input: { name: "Team Con" },
      });
      await addMember(server.services, userActor(owner.id), project.id, admin.email, "ADMIN");
      await addMember(server.services, userActor(owner.id), project.id, member.email, "MEMBER");
      for (const name of ["Hall A", "Hall B", "Hall C"]) {
        await server.services.agenda.createRoom(userActor(member.id), { projectId: project.id, name });
      }
      return { owner, admin, member, project };
    }

    test("apps need audit:read; without it the field answers FORBIDDEN naming the permission", async () => {
      const { owner, project } = await team();
      const { token: without } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "No audit",
        permissions: ["agenda:read"],
      });
      const refused = await gql(server.url, auditQuery, { token: without, variables: { id: project.id } });
      assert.equal(refused.body.errors?.[0]?.extensions?.code, "FORBIDDEN");
      assert.equal(refused.body.errors?.[0]?.extensions?.requiredPermission, "audit:read");
      assert.equal(refused.body.data?.project?.auditLog ?? null, null);
      // The public sees no audit log of a published project either.
      await server.services.projects.update(userActor(owner.id), project.id, { status: "PUBLISHED" });
      const anonymous = await gql(server.url, auditQuery, { variables: { id: project.id } });
      assert.equal(anonymous.body.errors?.[0]?.extensions?.code, "FORBIDDEN");

      const { token } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "Auditor",
        // The rooms' names need agenda:read too: the log never shows more than the grant reads.
        permissions: ["audit:read", "agenda:read"],
      });
      const read = await gql(server.url, auditQuery, {
        token,
        variables: { id: project.id, first: 2, action: "room.created" },
      });
      assert.equal(read.body.errors, undefined, JSON.stringify(read.body.errors));
      const log = read.body.data.project.auditLog;
      assert.equal(log.totalCount, 3);
      assert.deepEqual(
        log.edges.map(
          (e: { node: { changes: { field: string; value: string }[] } }) => e.node.changes[0]?.value,
        ),
        ["Hall C", "Hall B"],
        "newest first",
      );
      assert.equal(log.pageInfo.hasNextPage, true);
      const rest = await gql(server.url, auditQuery, {
        token,
        variables: { id: project.id, first: 2, action: "room.created", after: log.pageInfo.endCursor },
      });
      assert.deepEqual(
        rest.body.data.project.auditLog.edges.map(
          (e: { node: { changes: { value: string }[] } }) => e.node.changes[0]?.value,
        ),
        ["Hall A"],
      );
      // A linked project's log needs audit:read granted by that project's organizers.
      const { project: other } = await createProject(server.services, { ownerId: owner.id });
      const unlinked = await gql(server.url, auditQuery, { token, variables: { id: other.id } });
      assert.equal(unlinked.body.errors?.[0]?.extensions?.code, "NOT_FOUND");
    });

    test("garbage filters and page sizes answer BAD_USER_INPUT", async () => {
      const { owner, project } = await team();
      const { token } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "Auditor",
        permissions: ["audit:read"],
      });
      for (const variables of [
        { id: project.id, action: "'; drop table audit_events; --" },
        { id: project.id, actor: "root" },
        { id: project.id, first: 1000 },
        { id: project.id, after: "not-a-cursor" },
      ]) {
        const r = await gql(server.url, auditQuery, { token, variables });
        assert.equal(r.body.errors?.[0]?.extensions?.code, "BAD_USER_INPUT", JSON.stringify(variables));
      }
    });

    test("owners and admins see Settings → Audit log with filters, paging and CSV; members do not", async () => {
      const { owner, admin, member, project } = await team();
      const page = `/b/${project.id}/settings/audit`;
      const memberPage = await (await loggedInAs(member.email)).get(page);
      assert.equal(memberPage.status, 403);
      assert.match(memberPage.body, /Only the project's owners and admins can see the audit log/);
      const memberCsv = await (await loggedInAs(member.email)).get(`${page}.csv`);
      assert.equal(memberCsv.status, 403);

      const adminClient = await loggedInAs(admin.email);
      const all = await adminClient.get(page);
      assert.equal(all.status, 200);
      assert.match(all.body, /room\.created/);
      assert.match(all.body, /member\.added/);
      const filtered = await adminClient.get(`${page}?actor=user:${member.id}&action=room.`);
      assert.match(filtered.body, /3 entries/);
      assert.doesNotMatch(filtered.body, /member\.added/);
      // The filter's days are the event's days: between 23:00 and 24:00 UTC, Berlin is a day ahead.
      const today = new Intl.DateTimeFormat("en-CA", { timeZone: project.timezone }).format(new Date());
      const byDate = await adminClient.get(`${page}?from=${today}&to=${today}`);
      assert.doesNotMatch(byDate.body, /0 entries/);
      const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
      assert.match((await adminClient.get(`${page}?from=${tomorrow}`)).body, /0 entries/);
      const bad = await adminClient.get(`${page}?from=yesterday`);
      assert.equal(bad.status, 400);

      const ownerClient = await loggedInAs(owner.email);
      const csv = await ownerClient.get(`${page}.csv?action=room.`);
      assert.equal(csv.status, 200);
      assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
      assert.match(csv.headers.get("content-disposition") ?? "", /attachment; filename="audit-/);
      const rows = parse(csv.body);
      assert.deepEqual(
        rows.map((r) => [r.action, r.actor, r.changes]),
        [
          ["room.created", member.email, "name=Hall C"],
          ["room.created", member.email, "name=Hall B"],
          ["room.created", member.email, "name=Hall A"],
        ],
      );
    });

    test("a CSV cell that a spreadsheet would run as a formula is defused", async () => {
      const { owner, project } = await team();
      // An app's name is the actor of its writes; a developer chose it.
      const { app } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "=HYPERLINK(1)",
        permissions: ["agenda:write"],
      });
      const appActor = {
        kind: "app",
        appId: app.id,
        homeProjectId: project.id,
        permissions: ["agenda:write"],
      } as const;
      await server.services.agenda.createRoom(appActor, { projectId: project.id, name: "-2+3" });
      const csv = await (await loggedInAs(owner.email)).get(
        `/b/${project.id}/settings/audit.csv?action=room.`,
      );
      const [row] = parse(csv.body);
      assert.equal(row?.actor, "'=HYPERLINK(1)");
      assert.equal(row?.actor_kind, "app");
      assert.equal(row?.changes, "name=-2+3");
    });

    test("entries older than the retention period are pruned, newer ones stay", async () => {
      const { project } = await team();
      const entries = async () =>
        (await server.services.audit.list(systemActor, project.id, {}, { first: 100 })).items;
      const before = await entries();
      assert.ok(before.length >= 3);
      // Backdate one entry past a year (every other entry in this shared database is fresh).
      const old = before.at(-1)?.id ?? "";
      const stamp = new Date(Date.now() - 400 * 86_400_000).toISOString();
      await server.database.db
        .updateTable("audit_events")
        .set({ occurred_at: stamp })
        .where("id", "=", old)
        .execute();
      assert.ok((await server.services.audit.prune(365)) >= 1);
      const after = await entries();
      assert.deepEqual(
        after.map((e) => e.id),
        before.filter((e) => e.id !== old).map((e) => e.id),
      );
      // A shorter retention keeps today's entries all the same.
      await server.services.audit.prune(1);
      assert.equal((await entries()).length, after.length);
    });

    // Writes to one project serialize on its row (the version bump); 30 at once is three times the
    // PostgreSQL pool, enough to interleave, without waiting out the pool's 5 s on a loaded machine.
    test("30 concurrent writes leave exactly 30 entries", async () => {
      const { owner, project } = await team();
      await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          server.services.agenda.createRoom(userActor(owner.id), {
            projectId: project.id,
            name: `Room ${i}`,
          }),
        ),
      );
      const page = await server.services.audit.list(
        systemActor,
        project.id,
        { action: "room.created" },
        { first: 1 },
      );
      assert.equal(await page.totalCount(), 33);
    });

    test("only an owner deletes a project, after typing its id or name; tokens and links end", async () => {
      const { owner, admin, project } = await team();
      const { token: homeToken } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "Homed here",
        permissions: ["agenda:read"],
      });
      const { project: elsewhere } = await createProject(server.services, {
        ownerId: owner.id,
        input: { name: "Elsewhere" },
      });
      const { app: homed } = await server.services.apps.createApp(userActor(owner.id), {
        projectId: project.id,
        name: "Linked out",
        permissions: ["agenda:read"],
      });
      await server.services.apps.authorize(userActor(owner.id), { appId: homed.id, projectId: elsewhere.id });
      const settings = `/b/${project.id}/settings`;

      const adminClient = await loggedInAs(admin.email);
      const adminPage = await adminClient.get(settings);
      assert.doesNotMatch(adminPage.body, /Delete this project/, "admins are not offered deletion");
      const adminTry = await adminClient.post(`${settings}/delete`, { confirmation: project.id });
      assert.equal(adminTry.status, 403);

      const ownerClient = await loggedInAs(owner.email);
      await ownerClient.get(settings);
      const wrong = await ownerClient.post(`${settings}/delete`, { confirmation: "yes" });
      assert.equal(wrong.status, 400);
      assert.ok(/neither the project.{1,6}s id nor its exact name/i.test(wrong.body), "says what to type");
      assert.ok(await server.services.projects.get(systemActor, project.id), "still there");

      await ownerClient.get(settings);
      const done = await ownerClient.post(`${settings}/delete`, { confirmation: "Team Con" });
      assert.equal(done.status, 303, done.body);
      assert.equal(done.headers.get("location"), "/");
      await assert.rejects(server.services.projects.get(systemActor, project.id), { code: "NOT_FOUND" });
      assert.equal((await ownerClient.get(settings)).status, 404);

      // The homed app's token is dead at once, and its link to the other project is gone.
      const api = await gql(server.url, "{ viewer { id } }", { token: homeToken });
      assert.equal(api.status, 401);
      assert.deepEqual(await server.services.apps.listIntegrations(userActor(owner.id), elsewhere.id), []);

      // The log is gone with the project but for a tombstone without a project id: a new project
      // drawing the same id starts with an empty log.
      const tombstones = await server.database.db
        .selectFrom("audit_events")
        .selectAll()
        .where("object_id", "=", project.id)
        .where("action", "=", "project.deleted")
        .execute();
      assert.equal(tombstones.length, 1);
      assert.equal(tombstones[0]?.project_id, null);
      assert.equal(tombstones[0]?.actor_label, owner.email);
      assert.equal(tombstones[0]?.ip, "127.0.0.1");
      const left = await server.database.db
        .selectFrom("audit_events")
        .select("id")
        .where("project_id", "=", project.id)
        .execute();
      assert.deepEqual(left, []);
    });
  });
}
