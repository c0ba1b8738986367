import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { bindOrigin } from "../../src/modules/access/actor.js";
import { onlyJson, runCliInProcess } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import {
  addMember,
  createApp,
  createProject,
  createUser,
  testPassword,
  userActor,
} from "../helpers/factories.js";
import { logIn } from "../helpers/log-in.js";
import { findEverywhere, type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { serverPerSuite } from "../helpers/test-server.js";

// Issue 42, erasing a whole account (an organizer or developer): by the operator's CLI, or by the
// user from account settings. Afterwards their address and name are nowhere in the database.

const person = () => {
  const tag = randomBytes(5).toString("hex");
  return { name: `Quentin Ramsbottom${tag}`, email: `Q.Ramsbottom.${tag}@Example.org` };
};

for (const engine of testEngines()) {
  describe(`erasing an account (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    let sql: PlainSql;
    before(async () => {
      sql = await plainSql(server.config.databaseUrl);
    });
    after(async () => {
      await sql?.close();
    });

    const auditOf = (objectId: string, action: string) =>
      sql.all<{ actor_kind: string; actor_label: string; via: string; project_id: string | null }>(
        "select actor_kind, actor_label, via, project_id from audit_events where object_id = ? and action = ?",
        objectId,
        action,
      );

    test("the operator erases an account: refused while it solely owns a project, then found nowhere", async () => {
      const { services } = server;
      const them = person();
      const user = await createUser(services, them);
      const env = { DATABASE_URL: server.config.databaseUrl };
      // A colleague's project they joined as ADMIN, where they worked from an address.
      const { project: shared, ownerId: colleagueId } = await createProject(services);
      await addMember(services, userActor(colleagueId), shared.id, them.email, "ADMIN");
      const fromTheOffice = bindOrigin(userActor(user.id), { via: "dashboard", ip: "203.0.113.9" });
      await services.projects.update(fromTheOffice, shared.id, { name: "Renamed by them" });
      const { app } = await createApp(services, { projectId: shared.id, ownerId: user.id });
      // A pending invitation to another project, an own project, a test project, a dashboard session.
      const { project: other, ownerId: otherOwner } = await createProject(services);
      await services.invitations.invite(userActor(otherOwner), other.id, {
        email: them.email,
        role: "MEMBER",
      });
      const { project: own } = await createProject(services, {
        ownerId: user.id,
        input: { name: "Solo Fest" },
      });
      const { project: sandbox } = await services.testProjects.create(user.id);
      await logIn(server.url, them.email);
      for (const needle of [them.email, them.name]) {
        assert.notDeepEqual(await findEverywhere(sql, engine.name, needle), [], `${needle} is stored before`);
      }

      const refused = await runCliInProcess(["accounts", "erase", "--email", them.email], env);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`only owner of “Solo Fest” \\(${own.id}\\)`));
      assert.doesNotMatch(refused.stderr, new RegExp(sandbox.id), "a test project is no obstacle");
      assert.ok(await services.users.findByEmail(them.email), "nothing was erased");
      await addMember(services, userActor(user.id), own.id, (await createUser(services)).email, "OWNER");

      const erased = await runCliInProcess(["accounts", "erase", "--email", them.email, "--json"], env);
      assert.equal(erased.code, 0, erased.stderr);
      assert.deepEqual(onlyJson(erased.stdout), {
        id: user.id,
        erased: true,
        deletedTestProjects: [sandbox.id],
      });

      for (const needle of [them.email, them.name]) {
        assert.deepEqual(await findEverywhere(sql, engine.name, needle), [], `${needle} is found nowhere`);
      }
      assert.equal(await services.users.findByEmail(them.email), undefined);
      // What they did stays, by "Erased user" and from no address; the log says the operator erased them.
      const theirs = await sql.all<{ actor_label: string; ip: string | null }>(
        "select actor_label, ip from audit_events where actor_id = ?",
        user.id,
      );
      assert.ok(theirs.length >= 3);
      assert.ok(
        theirs.every((e) => e.actor_label === "Erased user" && e.ip === null),
        JSON.stringify(theirs),
      );
      assert.deepEqual(await auditOf(user.id, "account.erased"), [
        { actor_kind: "system", actor_label: "Operator (CLI)", via: "cli", project_id: null },
      ]);
      const left = await auditOf(user.id, "member.erased");
      assert.deepEqual(left.map((e) => e.project_id).sort(), [shared.id, own.id].sort());
      // Their projects keep their other members; the app they made stays with its project.
      const members = await services.members.list(userActor(colleagueId), shared.id);
      assert.deepEqual(
        members.map((m) => m.userId),
        [colleagueId],
      );
      const [kept] = await sql.all<{ created_by: string | null }>(
        "select created_by from apps where id = ?",
        app.id,
      );
      assert.deepEqual(kept, { created_by: null });
      assert.deepEqual(await sql.all("select id from projects where id = ?", sandbox.id), []);

      const unknown = await runCliInProcess(["accounts", "erase", "--email", them.email], env);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stderr.trim().split("\n").length, 1);
      assert.equal((await runCliInProcess(["accounts", "erase"], env)).code, 2);
    });

    test("a user erases their own account from account settings, with their password", async () => {
      const { services } = server;
      const them = person();
      const user = await createUser(services, them);
      const { project } = await createProject(services, { ownerId: user.id });
      await addMember(services, userActor(user.id), project.id, (await createUser(services)).email, "OWNER");
      const client = await logIn(server.url, them.email);
      await client.get("/account");
      const wrong = await client.post("/account/delete", { currentPassword: "not my password" });
      assert.equal(wrong.status, 400);
      assert.ok(await services.users.findByEmail(them.email));

      const deleted = await client.post("/account/delete", { currentPassword: testPassword });
      assert.equal(deleted.status, 303, deleted.body);
      for (const needle of [them.email, them.name]) {
        assert.deepEqual(await findEverywhere(sql, engine.name, needle), [], `${needle} is found nowhere`);
      }
      assert.deepEqual(await auditOf(user.id, "account.erased"), [
        { actor_kind: "user", actor_label: "Erased user", via: "dashboard", project_id: null },
      ]);
      const page = await client.get("/account");
      assert.notEqual(page.status, 200, "the session ended with the account");
    });
  });
}
