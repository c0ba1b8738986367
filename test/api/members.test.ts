import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import {
  addMember,
  createProject,
  createUser,
  testPassword,
  uniqueEmail,
  userActor,
} from "../helpers/factories.js";
import { HttpClient } from "../helpers/http-client.js";
import { follow, logIn } from "../helpers/log-in.js";
import { Mailbox } from "../helpers/mailbox.js";
import { serverWithMailboxPerSuite } from "../helpers/test-server.js";

const system = { kind: "system" } as const;

for (const engine of testEngines()) {
  describe(`members, invitations and owner rules (${engine.name})`, () => {
    const { server, mailbox } = serverWithMailboxPerSuite(engine);

    const loggedInAs = (email: string) => logIn(server.url, email);

    async function roles(projectId: string): Promise<Record<string, string>> {
      const members = await server.services.members.list(system, projectId);
      return Object.fromEntries(members.map((m) => [m.email, m.role]));
    }

    /** A project with an owner and an admin, both logged in. */
    async function ownerAndAdmin() {
      const owner = await createUser(server.services, { name: "Olga Owner" });
      const admin = await createUser(server.services, { name: "Adam Admin" });
      const { project } = await createProject(server.services, {
        ownerId: owner.id,
        input: { timezone: "UTC" },
      });
      await addMember(server.services, userActor(owner.id), project.id, admin.email, "ADMIN");
      return {
        owner,
        admin,
        project,
        members: `/b/${project.id}/settings/members`,
        ownerClient: await loggedInAs(owner.email),
        adminClient: await loggedInAs(admin.email),
      };
    }

    test("an admin cannot make themselves owner, invite an owner, or demote or remove an owner", async () => {
      const { owner, admin, project, members, adminClient } = await ownerAndAdmin();
      const page = await adminClient.get(members);
      // The owner role is not even offered to an admin.
      const inviteForm = page.body.slice(page.body.indexOf('aria-label="Invite member"'));
      assert.match(inviteForm, /value="ADMIN"/);
      assert.doesNotMatch(inviteForm, /value="OWNER"/);
      const selfPromotion = await adminClient.post(`${members}/${admin.id}/role`, { role: "OWNER" });
      assert.equal(selfPromotion.status, 403);
      assert.match(selfPromotion.body, /Only an owner may grant, change or remove the owner role/);
      await adminClient.get(members);
      assert.equal((await adminClient.post(`${members}/${owner.id}/role`, { role: "MEMBER" })).status, 403);
      await adminClient.get(members);
      assert.equal((await adminClient.post(`${members}/${owner.id}/remove`, {})).status, 403);
      await adminClient.get(members);
      const ownerInvite = await adminClient.post(members, { email: uniqueEmail("boss"), role: "OWNER" });
      assert.equal(ownerInvite.status, 403);
      assert.deepEqual(await roles(project.id), { [owner.email]: "OWNER", [admin.email]: "ADMIN" });
      // Through the services too: the rule is the policy's, not the page's.
      await assert.rejects(
        server.services.members.changeRole(userActor(admin.id), project.id, admin.id, "OWNER"),
        {
          code: "FORBIDDEN",
        },
      );
    });

    test("an owner grants and takes away the owner role; an admin still manages members", async () => {
      const { owner, admin, project, members, ownerClient, adminClient } = await ownerAndAdmin();
      await ownerClient.get(members);
      assert.equal((await ownerClient.post(`${members}/${admin.id}/role`, { role: "OWNER" })).status, 303);
      assert.equal((await roles(project.id))[admin.email], "OWNER");
      await ownerClient.get(members);
      assert.equal((await ownerClient.post(`${members}/${admin.id}/role`, { role: "ADMIN" })).status, 303);
      const helper = await createUser(server.services);
      await addMember(server.services, userActor(admin.id), project.id, helper.email, "MEMBER");
      await adminClient.get(members);
      assert.equal((await adminClient.post(`${members}/${helper.id}/role`, { role: "ADMIN" })).status, 303);
      await adminClient.get(members);
      assert.equal((await adminClient.post(`${members}/${helper.id}/remove`, {})).status, 303);
      assert.deepEqual(await roles(project.id), { [owner.email]: "OWNER", [admin.email]: "ADMIN" });
    });

    test("an invitee without an account signs up through the emailed link, then accepts", async () => {
      const { owner, project, members, ownerClient } = await ownerAndAdmin();
      const address = uniqueEmail("Newcomer");
      await ownerClient.get(members);
      const sent = await follow(
        ownerClient,
        await ownerClient.post(members, { email: address, role: "MEMBER" }),
      );
      assert.match(sent.body, /Pending invitations/);
      assert.ok(sent.body.includes(address));
      const mail = await mailbox.latest(address);
      assert.match(mail.subject, /invited to Test Conference/);
      assert.match(mail.text, /Olga Owner invited you/);
      const link = Mailbox.linkIn(mail, server.url);
      // The inviter never sees the secret: not on the page, not in the log.
      assert.ok(!sent.body.includes(link.split("token=")[1] ?? "-"));
      assert.ok(!server.logs.text.includes(link.split("token=")[1] ?? "-"));
      assert.equal((await roles(project.id))[address], undefined, "no membership before consent");

      const invitee = new HttpClient(server.url);
      const landing = await invitee.get(link);
      assert.equal(landing.status, 200);
      assert.match(landing.body, /Join Test Conference/);
      const signupHref = /href="(\/signup\?next=[^"]+)"/.exec(landing.body)?.[1]?.replace(/&amp;/g, "&");
      assert.ok(signupHref, landing.body);
      await invitee.get(signupHref);
      const signedUp = await invitee.post(signupHref, {
        name: "Nia Newcomer",
        email: address,
        password: testPassword,
      });
      assert.equal(signedUp.status, 303, signedUp.body);
      assert.equal(signedUp.headers.get("location"), link);
      const review = await invitee.get(link);
      assert.match(review.body, />Accept invitation</);
      assert.equal((await roles(project.id))[address], undefined, "signing up is not accepting");
      const accepted = await invitee.post("/invite", { token: invitee.formValue("token") ?? "" });
      assert.equal(accepted.status, 303, accepted.body);
      assert.equal(accepted.headers.get("location"), `/b/${project.id}`);
      assert.equal((await roles(project.id))[address], "MEMBER");
      assert.equal((await invitee.get(`/b/${project.id}`)).status, 200);

      // Single use: the same link again is refused, and the list no longer shows it pending.
      assert.equal((await invitee.get(link)).status, 400);
      assert.doesNotMatch((await ownerClient.get(members)).body, /Pending invitations/);
      assert.equal((await roles(project.id))[owner.email], "OWNER");
    });

    test("an invitation works only for the invited address, until it is revoked or expires", async () => {
      const { project, members, ownerClient } = await ownerAndAdmin();
      const invitee = await createUser(server.services, { name: "Ivy Invitee" });
      const other = await createUser(server.services, { name: "Otto Other" });
      await ownerClient.get(members);
      await ownerClient.post(members, { email: invitee.email, role: "ADMIN" });
      const link = Mailbox.linkIn(await mailbox.latest(invitee.email), server.url);
      const token = new URL(link, server.url).searchParams.get("token") ?? "";

      const wrongAccount = await loggedInAs(other.email);
      const shown = await wrongAccount.get(link);
      assert.match(shown.body, /You are logged in as/);
      assert.doesNotMatch(shown.body, />Accept invitation</);
      await wrongAccount.get("/");
      const forced = await wrongAccount.post("/invite", { token });
      assert.equal(forced.status, 403);
      assert.equal((await roles(project.id))[other.email], undefined);

      // Revoked: the link stops working at once.
      const [pending] = await server.services.invitations.listPending(system, project.id);
      assert.ok(pending);
      await ownerClient.get(members);
      const revoked = await ownerClient.post(`${members}/invitations/${pending.id}/revoke`, {});
      assert.equal(revoked.status, 303);
      const inviteeClient = await loggedInAs(invitee.email);
      assert.equal((await inviteeClient.get(link)).status, 400);
      await inviteeClient.get("/");
      assert.equal((await inviteeClient.post("/invite", { token })).status, 400);

      // Expired: a new invitation, aged past its deadline in the database.
      await ownerClient.get(members);
      await ownerClient.post(members, { email: invitee.email, role: "ADMIN" });
      const second = new URL(Mailbox.linkIn(await mailbox.latest(invitee.email), server.url), server.url);
      await server.database.db
        .updateTable("project_invitations")
        .set({ expires_at: "2000-01-01T00:00:00.000Z" })
        .where("project_id", "=", project.id)
        .where("revoked_at", "is", null)
        .execute();
      await inviteeClient.get("/");
      assert.equal(
        (await inviteeClient.post("/invite", { token: second.searchParams.get("token") ?? "" })).status,
        400,
      );
      assert.equal((await roles(project.id))[invitee.email], undefined);

      // Garbage tokens: a clear 400, never a 500.
      for (const garbage of ["", "x".repeat(5000), "%00", "é"]) {
        assert.equal((await inviteeClient.get(`/invite?token=${encodeURIComponent(garbage)}`)).status, 400);
      }
    });

    test("an invitation dies with its inviter's right to grant the role", async () => {
      const { owner, admin, project } = await ownerAndAdmin();
      const invitee = await createUser(server.services);
      const { link } = await server.services.invitations.invite(userActor(admin.id), project.id, {
        email: invitee.email,
        role: "ADMIN",
      });
      await server.services.members.removeMember(userActor(owner.id), project.id, admin.id);
      const token = new URL(link).searchParams.get("token") ?? "";
      await assert.rejects(server.services.invitations.accept(invitee.id, token), { code: "BAD_USER_INPUT" });
      assert.equal((await roles(project.id))[invitee.email], undefined);
    });

    test("no membership without consent closes the unverified-developer gate bypass", async () => {
      // An unverified developer's app may be connected only by its own team. Adding a verified
      // person as OWNER used to verify the project at once (and removing them kept it so).
      const developer = await createUser(server.services, { verified: false });
      const { project: home } = await createProject(server.services, { ownerId: developer.id });
      const { app } = await server.services.apps.createApp(userActor(developer.id), {
        projectId: home.id,
        name: "Totally Official",
        permissions: ["attendees:read"],
      });
      const verified = await createUser(server.services);
      await server.services.invitations.invite(userActor(developer.id), home.id, {
        email: verified.email,
        role: "OWNER",
      });
      const victim = await createUser(server.services);
      const { project: target } = await createProject(server.services, { ownerId: victim.id });
      await assert.rejects(
        server.services.apps.authorize(userActor(victim.id), { appId: app.id, projectId: target.id }),
        { code: "FORBIDDEN" },
      );
      assert.equal((await server.services.apps.connectInfo(app.id)).homeProjectVerified, false);
    });

    test("shows who created each app, and after they leave, suggests regenerating its token", async () => {
      const { owner, admin, project, ownerClient } = await ownerAndAdmin();
      const { app, token } = await server.services.apps.createApp(userActor(admin.id), {
        projectId: project.id,
        name: "Door scanner",
        permissions: ["checkins:write"],
      });
      const apiTab = `/b/${project.id}/settings/api`;
      const appPage = `${apiTab}/apps/${app.id}`;
      assert.match((await ownerClient.get(apiTab)).body, /Created by Adam Admin</);
      assert.doesNotMatch((await ownerClient.get(appPage)).body, /no longer a member/);

      await server.services.members.removeMember(userActor(owner.id), project.id, admin.id);
      assert.match((await ownerClient.get(apiTab)).body, /Created by Adam Admin \(no longer a member\)/);
      const page = await ownerClient.get(appPage);
      assert.match(page.body, /Adam Admin, who created this app, is no longer a member of this project/);
      assert.match(page.body, /regenerate it\s+below/);
      // The decision, as documented: the app belongs to the project and keeps working.
      const still = await fetch(`${server.url}/api/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ query: "{ viewer { name } }" }),
      });
      assert.equal(still.status, 200);
    });

    test("concurrent demotions and removals never leave a project without an owner or members", async () => {
      for (let round = 0; round < 6; round++) {
        const a = await createUser(server.services);
        const b = await createUser(server.services);
        const { project } = await createProject(server.services, { ownerId: a.id });
        await addMember(server.services, userActor(a.id), project.id, b.email, "OWNER");
        const [clientA, clientB] = await Promise.all([loggedInAs(a.email), loggedInAs(b.email)]);
        const members = `/b/${project.id}/settings/members`;
        await Promise.all([clientA.get(members), clientB.get(members)]);
        const mode = round % 2 === 0 ? "demote" : "remove";
        const post = (client: HttpClient, target: string) =>
          mode === "demote"
            ? client.post(`${members}/${target}/role`, { role: "ADMIN" })
            : client.post(`${members}/${target}/remove`, {});
        // Each owner acts on the other (and on themselves) at the same moment.
        const answers = await Promise.all([
          post(clientA, b.id),
          post(clientB, a.id),
          post(clientA, a.id),
          post(clientB, b.id),
        ]);
        for (const answer of answers)
          assert.ok([303, 404, 403, 409].includes(answer.status), `${answer.status}`);
        const after = await roles(project.id);
        const owners = Object.values(after).filter((r) => r === "OWNER").length;
        assert.ok(owners >= 1, `${mode}: ${JSON.stringify(after)}`);
      }
    });
  });
}
