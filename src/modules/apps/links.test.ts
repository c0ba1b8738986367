import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { addMember, createApp, createProject, createUser } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import { type Actor, publicActor, systemActor } from "../access/actor.js";

const asUser = (userId: string): Actor => ({ kind: "user", userId });

for (const engine of testEngines()) {
  describe(`app links (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    /** What the app behind `token` may do in `projectId` right now, as the API would see it. */
    async function effective(token: string, projectId: string): Promise<string[] | undefined> {
      const actor = await ctx.services.apps.authenticate(token);
      const access = await ctx.services.access.resolve(actor, projectId);
      return access && [...access.permissions].sort();
    }

    test("refuses to link or revoke the app's own home project", async () => {
      const { app, ownerId, projectId, token } = await createApp(ctx.services);
      await rejectsWithFieldErrors(
        ctx.services.apps.authorize(asUser(ownerId as string), { appId: app.id, projectId }),
        ["projectId"],
      );
      await rejectsWithFieldErrors(
        ctx.services.apps.revokeLink(asUser(ownerId as string), { appId: app.id, projectId }),
        ["projectId"],
      );
      assert.deepEqual(await effective(token, projectId), ["agenda:read"]);
    });

    test("refuses organizers who do not manage the project, and unknown apps", async () => {
      const { app } = await createApp(ctx.services);
      const { project, ownerId } = await createProject(ctx.services);
      const member = await createUser(ctx.services);
      const stranger = await createUser(ctx.services);
      await addMember(ctx.services, asUser(ownerId), project.id, member.email, "MEMBER");
      const link = { appId: app.id, projectId: project.id };
      await assert.rejects(ctx.services.apps.authorize(asUser(member.id), link), { code: "FORBIDDEN" });
      await assert.rejects(ctx.services.apps.authorize(asUser(stranger.id), link), {
        code: "NOT_FOUND",
        message: "Project not found",
      });
      await assert.rejects(ctx.services.apps.authorize(publicActor, link), { code: "NOT_FOUND" });
      await assert.rejects(
        ctx.services.apps.authorize(asUser(ownerId), { appId: "no-such-app", projectId: project.id }),
        { code: "NOT_FOUND", message: "App not found" },
      );
      await assert.rejects(ctx.services.apps.revokeLink(asUser(member.id), link), { code: "FORBIDDEN" });
      await assert.rejects(ctx.services.apps.revokeLink(asUser(stranger.id), link), { code: "NOT_FOUND" });
      await assert.rejects(
        ctx.services.apps.revokeLink(asUser(ownerId), { appId: "no-such-app", projectId: project.id }),
        { code: "NOT_FOUND", message: "App not found" },
      );
      assert.deepEqual(await ctx.services.apps.listLinksForApp(systemActor, app.id), []);
    });

    test("lets only the developer's own team link an app until an owner of its home verifies their email", async () => {
      const developer = await createUser(ctx.services, { verified: false });
      const { project: home } = await createProject(ctx.services, { ownerId: developer.id });
      const { project: devOther } = await createProject(ctx.services, { ownerId: developer.id });
      const { app } = await createApp(ctx.services, { projectId: home.id, ownerId: developer.id });
      const { project: foreign, ownerId: organizerId } = await createProject(ctx.services);

      assert.equal((await ctx.services.apps.connectInfo(app.id)).homeProjectVerified, false);
      await assert.rejects(
        ctx.services.apps.authorize(asUser(organizerId), { appId: app.id, projectId: foreign.id }),
        { code: "FORBIDDEN", message: /not verified their email/ },
      );
      // The developer may still try the flow on another project of their own.
      const own = await ctx.services.apps.authorize(asUser(developer.id), {
        appId: app.id,
        projectId: devOther.id,
      });
      assert.equal(own.projectId, devOther.id);

      // An admin with a verified email does not make the project verified: only owners do.
      const admin = await createUser(ctx.services);
      await addMember(ctx.services, asUser(developer.id), home.id, admin.email, "ADMIN");
      assert.equal((await ctx.services.apps.connectInfo(app.id)).homeProjectVerified, false);

      await ctx.services.users.markEmailVerified(developer.id);
      assert.equal((await ctx.services.apps.connectInfo(app.id)).homeProjectVerified, true);
      const link = await ctx.services.apps.authorize(asUser(organizerId), {
        appId: app.id,
        projectId: foreign.id,
      });
      assert.equal(link.projectId, foreign.id);
    });

    test("shows the public connect page only what the app requests, and nothing for unknown apps", async () => {
      await assert.rejects(ctx.services.apps.connectInfo("00000000-0000-0000-0000-000000000000"), {
        code: "NOT_FOUND",
      });
      const { app } = await createApp(ctx.services, { permissions: ["checkins:write", "attendees:read"] });
      const info = await ctx.services.apps.connectInfo(app.id);
      assert.deepEqual(info, {
        app: {
          id: app.id,
          name: app.name,
          description: null,
          redirectUrl: null,
          websiteUrl: null,
          privacyPolicyUrl: null,
        },
        permissions: [
          {
            name: "attendees:read",
            title: "Read attendees",
            description: "Read attendees and their personal data (name, email, company) and check-in state.",
          },
          {
            name: "checkins:write",
            title: "Check attendees in",
            description: "Check attendees in and undo a check-in.",
          },
        ],
        homeProjectVerified: true,
        developer: { name: "Ada Organizer", verifiedEmailDomain: "example.test" },
      });
    });

    test("records who authorized what and when, and grants the app's permissions of that moment", async () => {
      const { app } = await createApp(ctx.services, { permissions: ["agenda:read", "tickets:read"] });
      const organizer = await createUser(ctx.services, { name: "Grace Organizer" });
      const { project } = await createProject(ctx.services, { ownerId: organizer.id });
      const before = new Date().toISOString();
      const link = await ctx.services.apps.authorize(asUser(organizer.id), {
        appId: app.id,
        projectId: project.id,
      });
      assert.equal(link.appId, app.id);
      assert.equal(link.projectName, project.name);
      assert.deepEqual(link.authorizedBy, {
        id: organizer.id,
        name: "Grace Organizer",
        email: organizer.email,
      });
      assert.deepEqual(link.grantedPermissions, ["agenda:read", "tickets:read"]);
      assert.ok(link.authorizedAt >= before);
      assert.equal(link.revokedAt, null);
      const listed = await ctx.services.apps.listLinksForApp(systemActor, app.id);
      assert.deepEqual(listed, [link]);
    });

    test("keeps the old grant when the app widens its permissions, until an organizer re-approves", async () => {
      const { app, token, ownerId } = await createApp(ctx.services, { permissions: ["agenda:read"] });
      const { project, ownerId: organizerId } = await createProject(ctx.services);
      const organizer = asUser(organizerId);
      await ctx.services.apps.authorize(organizer, { appId: app.id, projectId: project.id });

      await ctx.services.apps.updateApp(asUser(ownerId as string), {
        id: app.id,
        permissions: ["agenda:read", "attendees:read"],
      });
      assert.deepEqual(await effective(token, project.id), ["agenda:read"]);
      const [pending] = await ctx.services.apps.listIntegrations(organizer, project.id);
      assert.deepEqual(pending?.grantedPermissions, ["agenda:read"]);
      assert.deepEqual(pending?.requestedPermissions, ["agenda:read", "attendees:read"]);
      assert.equal(pending?.updateRequested, true);

      const reapproved = await ctx.services.apps.authorize(organizer, {
        appId: app.id,
        projectId: project.id,
      });
      assert.deepEqual(reapproved.grantedPermissions, ["agenda:read", "attendees:read"]);
      assert.deepEqual(await effective(token, project.id), ["agenda:read", "attendees:read"]);
      const [current] = await ctx.services.apps.listIntegrations(organizer, project.id);
      assert.equal(current?.updateRequested, false);
      // Re-approval replaces the grant of the one active link; it does not add a second link.
      assert.equal((await ctx.services.apps.listLinksForApp(systemActor, app.id)).length, 1);
    });

    test("narrows every link at once when the app drops a permission", async () => {
      const { app, token, ownerId } = await createApp(ctx.services, {
        permissions: ["agenda:read", "attendees:read"],
      });
      const { project, ownerId: organizerId } = await createProject(ctx.services);
      await ctx.services.apps.authorize(asUser(organizerId), { appId: app.id, projectId: project.id });
      assert.deepEqual(await effective(token, project.id), ["agenda:read", "attendees:read"]);

      await ctx.services.apps.updateApp(asUser(ownerId as string), {
        id: app.id,
        permissions: ["agenda:read"],
      });
      assert.deepEqual(await effective(token, project.id), ["agenda:read"]);
      const [integration] = await ctx.services.apps.listIntegrations(asUser(organizerId), project.id);
      assert.deepEqual(integration?.grantedPermissions, ["agenda:read"]);
      assert.equal(integration?.updateRequested, false);
      const [link] = await ctx.services.apps.listLinksForApp(systemActor, app.id);
      assert.deepEqual(link?.grantedPermissions, ["agenda:read"]);
    });

    test("does not let the app reach a project after its link is revoked; revoking again is harmless", async () => {
      const { app, token } = await createApp(ctx.services, { permissions: ["agenda:read"] });
      const { project, ownerId: organizerId } = await createProject(ctx.services);
      const organizer = asUser(organizerId);
      await ctx.services.apps.authorize(organizer, { appId: app.id, projectId: project.id });
      assert.deepEqual(await effective(token, project.id), ["agenda:read"]);

      assert.equal(
        await ctx.services.apps.revokeLink(organizer, { appId: app.id, projectId: project.id }),
        true,
      );
      assert.equal(await effective(token, project.id), undefined);
      await assert.rejects(
        ctx.services.access.require(await ctx.services.apps.authenticate(token), project.id),
        { code: "NOT_FOUND" },
      );
      assert.equal(
        await ctx.services.apps.revokeLink(organizer, { appId: app.id, projectId: project.id }),
        false,
      );
      assert.equal(
        await ctx.services.apps.revokeLink(systemActor, { appId: app.id, projectId: project.id }),
        false,
      );
      assert.deepEqual(await ctx.services.apps.listIntegrations(organizer, project.id), []);

      const [revoked] = await ctx.services.apps.listLinksForApp(systemActor, app.id);
      assert.ok(revoked?.revokedAt);
      const row = await ctx.database.db
        .selectFrom("app_links")
        .select(["revoked_by"])
        .where("app_id", "=", app.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.revoked_by, organizerId);

      // Connecting again creates a new link; the history keeps the revoked one, after the active.
      await ctx.services.apps.authorize(organizer, { appId: app.id, projectId: project.id });
      const links = await ctx.services.apps.listLinksForApp(systemActor, app.id);
      assert.deepEqual(
        links.map((l) => l.revokedAt === null),
        [true, false],
      );
      assert.deepEqual(await effective(token, project.id), ["agenda:read"]);
    });

    test("shows a project's integrations to its members only", async () => {
      const { app } = await createApp(ctx.services, {
        name: "Check-in kiosk",
        permissions: ["checkins:write"],
      });
      const { project, ownerId } = await createProject(ctx.services, { input: { status: "PUBLISHED" } });
      const member = await createUser(ctx.services);
      const stranger = await createUser(ctx.services);
      await addMember(ctx.services, asUser(ownerId), project.id, member.email, "MEMBER");
      await ctx.services.apps.authorize(asUser(ownerId), { appId: app.id, projectId: project.id });

      await assert.rejects(ctx.services.apps.listIntegrations(asUser(stranger.id), project.id), {
        code: "NOT_FOUND",
      });
      await assert.rejects(ctx.services.apps.listIntegrations(publicActor, project.id), {
        code: "FORBIDDEN",
      });
      const integrations = await ctx.services.apps.listIntegrations(asUser(member.id), project.id);
      assert.equal(integrations.length, 1);
      const [integration] = integrations;
      assert.deepEqual(integration?.app, { id: app.id, name: "Check-in kiosk", description: null });
      assert.deepEqual(integration?.grantedPermissions, ["checkins:write"]);
      assert.equal(integration?.lastUsedAt, null);
      assert.equal(integration?.requestsLast30Days, 0);
    });

    test("pages through the home project and the linked ones in authorization order", async () => {
      const { app, token, projectId: homeId } = await createApp(ctx.services);
      const links: { projectId: string; ownerId: string; authorizedAt: string }[] = [];
      for (let i = 0; i < 3; i++) {
        const { project, ownerId } = await createProject(ctx.services, { input: { name: `Linked ${i}` } });
        const link = await ctx.services.apps.authorize(asUser(ownerId), {
          appId: app.id,
          projectId: project.id,
        });
        links.push({ projectId: project.id, ownerId, authorizedAt: link.authorizedAt });
      }
      // Ties in authorization time are broken by project id, as the keyset order does.
      links.sort(
        (x, y) => x.authorizedAt.localeCompare(y.authorizedAt) || x.projectId.localeCompare(y.projectId),
      );
      const linked = links.map((l) => l.projectId);
      const actor = await ctx.services.apps.authenticate(token);
      const ids = (page: { items: { id: string }[] }) => page.items.map((p) => p.id);

      const first = await ctx.services.apps.reachableProjects(actor, resolvePageArgs({ first: 2 }));
      assert.deepEqual(ids(first), [homeId, linked[0]]);
      assert.equal(first.hasNextPage, true);
      assert.equal(first.hasPreviousPage, false);
      const second = await ctx.services.apps.reachableProjects(
        actor,
        resolvePageArgs({ first: 2, after: first.endCursor }),
      );
      assert.deepEqual(ids(second), [linked[1], linked[2]]);
      assert.equal(second.hasNextPage, false);
      assert.match(second.items[1]?.name ?? "", /^Linked \d$/);
      const last = await ctx.services.apps.reachableProjects(actor, resolvePageArgs({ last: 3 }));
      assert.deepEqual(ids(last), linked);
      assert.equal(last.hasPreviousPage, true);
      const before = await ctx.services.apps.reachableProjects(
        actor,
        resolvePageArgs({ last: 5, before: last.startCursor }),
      );
      assert.deepEqual(ids(before), [homeId]);
      assert.equal(await ctx.services.apps.countReachableProjects(actor), 4);

      const revoked = links[1] as (typeof links)[number];
      await ctx.services.apps.revokeLink(asUser(revoked.ownerId), {
        appId: app.id,
        projectId: revoked.projectId,
      });
      const all = await ctx.services.apps.reachableProjects(actor, resolvePageArgs({}));
      assert.deepEqual(ids(all), [homeId, linked[0], linked[2]]);
      assert.equal(await ctx.services.apps.countReachableProjects(actor), 3);
    });
  });
}
