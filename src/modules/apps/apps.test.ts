import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { addMember, createApp, createProject, createUser } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { latestVersion } from "../../graphql/versions/api-versions.js";
import { type Actor, systemActor } from "../access/actor.js";
import { generateToken, hashToken } from "./tokens.js";

const asUser = (userId: string): Actor => ({ kind: "user", userId });

for (const engine of testEngines()) {
  describe(`apps (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine, { BASE_URL: "https://events.example.test/" });

    test("rejects an empty or too long name and unknown permissions, naming each field", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = asUser(ownerId);
      await rejectsWithFieldErrors(
        ctx.services.apps.createApp(owner, {
          projectId: project.id,
          name: "  ",
          permissions: ["agenda:read", "agenda:delete"],
        }),
        ["name", "permissions"],
      );
      await rejectsWithFieldErrors(
        ctx.services.apps.createApp(owner, { projectId: project.id, name: "x".repeat(101), permissions: [] }),
        ["name"],
      );
      await assert.rejects(
        ctx.services.apps.createApp(owner, { projectId: project.id, name: "A", permissions: ["admin"] }),
        { code: "BAD_USER_INPUT", message: /permissions: unknown permission "admin"/ },
      );
      const { app } = await createApp(ctx.services, { projectId: project.id, ownerId });
      await rejectsWithFieldErrors(ctx.services.apps.updateApp(owner, { id: app.id, name: "" }), ["name"]);
      assert.deepEqual(await ctx.services.apps.listForProject(owner, project.id), [app]);
    });

    test("lets only the owners and admins of the home project create, see and manage its apps", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const member = await createUser(ctx.services);
      const admin = await createUser(ctx.services);
      const stranger = await createUser(ctx.services);
      await addMember(ctx.services, asUser(ownerId), project.id, member.email, "MEMBER");
      await addMember(ctx.services, asUser(ownerId), project.id, admin.email, "ADMIN");
      const input = {
        projectId: project.id,
        name: "Badge printer",
        permissions: ["attendees:read" as const],
      };

      await assert.rejects(ctx.services.apps.createApp(asUser(member.id), input), { code: "FORBIDDEN" });
      await assert.rejects(ctx.services.apps.createApp(asUser(stranger.id), input), {
        code: "NOT_FOUND",
        message: "Project not found",
      });
      // Members see the list (the API tab) but cannot change an app.
      assert.deepEqual(await ctx.services.apps.listForProject(asUser(member.id), project.id), []);
      await assert.rejects(ctx.services.apps.listForProject(asUser(stranger.id), project.id), {
        code: "NOT_FOUND",
      });

      const { app } = await ctx.services.apps.createApp(asUser(admin.id), input);
      // To anyone but a manager an app does not exist, whatever they try.
      for (const outsider of [asUser(member.id), asUser(stranger.id)]) {
        await assert.rejects(ctx.services.apps.getApp(outsider, app.id), { code: "NOT_FOUND" });
        await assert.rejects(ctx.services.apps.updateApp(outsider, { id: app.id, name: "Mine" }), {
          code: "NOT_FOUND",
        });
        await assert.rejects(ctx.services.apps.rotateToken(outsider, { id: app.id }), { code: "NOT_FOUND" });
        await assert.rejects(ctx.services.apps.deleteApp(outsider, { id: app.id }), { code: "NOT_FOUND" });
        await assert.rejects(ctx.services.apps.listLinksForApp(outsider, app.id), { code: "NOT_FOUND" });
      }
      await assert.rejects(
        ctx.services.apps.getApp(asUser(ownerId), "00000000-0000-0000-0000-000000000000"),
        {
          code: "NOT_FOUND",
          message: "App not found",
        },
      );

      assert.equal((await ctx.services.apps.getApp(asUser(ownerId), app.id)).name, "Badge printer");
      assert.equal((await ctx.services.apps.getApp(systemActor, app.id)).id, app.id);
      const listed = await ctx.services.apps.listForProject(asUser(ownerId), project.id);
      assert.deepEqual(
        listed.map((a) => a.id),
        [app.id],
      );
      const seenByMember = await ctx.services.apps.listForProject(asUser(member.id), project.id);
      assert.deepEqual(
        seenByMember.map((a) => a.id),
        [app.id],
      );
    });

    test("presents an app with its home project, permissions, token hint and connect link", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const { app, token } = await ctx.services.apps.createApp(asUser(ownerId), {
        projectId: project.id,
        name: "  Schedule Sync ",
        description: "Mirrors the agenda",
        // Duplicates and catalogue order do not matter: the set is stored canonically.
        permissions: ["tickets:read", "agenda:read", "tickets:read"],
      });
      assert.deepEqual(Object.keys(app).sort(), [
        "apiVersion",
        "connectUrl",
        "createdAt",
        "createdBy",
        "description",
        "id",
        "lastUsedAt",
        "name",
        "permissions",
        "privacyPolicyUrl",
        "projectId",
        "redirectUrl",
        "requestsLast30Days",
        "tokenCreatedAt",
        "tokenLast4",
        "updatedAt",
        "websiteUrl",
      ]);
      assert.equal(app.projectId, project.id);
      assert.equal(app.name, "Schedule Sync");
      assert.deepEqual(app.permissions, ["agenda:read", "tickets:read"]);
      assert.equal(app.tokenLast4, token.slice(-4));
      assert.equal(app.lastUsedAt, null);
      assert.equal(app.requestsLast30Days, 0);
      assert.equal(app.connectUrl, `https://events.example.test/connect/${app.id}`);
      // A new app is pinned to the newest version.
      assert.equal(app.apiVersion, latestVersion.name);
    });

    test("keeps what an update does not mention and clears a blank description", async () => {
      const { app, ownerId, projectId } = await createApp(ctx.services, { permissions: ["agenda:read"] });
      const owner = asUser(ownerId as string);
      const described = await ctx.services.apps.updateApp(owner, { id: app.id, description: "Syncs" });
      assert.equal(described.name, app.name);
      assert.equal(described.description, "Syncs");
      assert.deepEqual(described.permissions, ["agenda:read"]);
      const renamed = await ctx.services.apps.updateApp(owner, {
        id: app.id,
        name: "Renamed",
        description: " ",
        permissions: [],
      });
      assert.equal(renamed.name, "Renamed");
      assert.equal(renamed.description, null);
      assert.deepEqual(renamed.permissions, []);
      assert.equal(renamed.projectId, projectId);
      assert.equal(renamed.tokenLast4, app.tokenLast4);
    });

    test("never stores the token in clear, only its hash and last 4 characters", async () => {
      const { app, token } = await createApp(ctx.services);
      const row = await ctx.database.db
        .selectFrom("apps")
        .selectAll()
        .where("id", "=", app.id)
        .executeTakeFirstOrThrow();
      const secret = token.slice(4, 36);
      for (const [column, value] of Object.entries(row)) {
        if (typeof value !== "string") continue;
        assert.ok(!value.includes(token), `apps.${column} holds the token`);
        assert.ok(!value.includes(secret.slice(0, 8)), `apps.${column} holds part of the token`);
      }
      assert.equal(row.token_hash, hashToken(token));
      assert.equal(row.token_last4, token.slice(-4));
      // Nor does anything the service returns after creation carry it.
      const shown = JSON.stringify([
        await ctx.services.apps.getApp(systemActor, app.id),
        await ctx.services.apps.listForProject(systemActor, app.projectId),
        await ctx.services.apps.connectInfo(app.id),
      ]);
      assert.ok(!shown.includes(secret.slice(0, 8)));
    });

    test("refuses a malformed token without a query and an unknown one after a single lookup", async () => {
      const { app, token } = await createApp(ctx.services, { permissions: ["agenda:read", "tickets:read"] });
      const typo = token.slice(0, 10) + (token[10] === "a" ? "b" : "a") + token.slice(11);
      for (const bad of ["", "evg_short", typo, token.slice(0, -1), "not a token at all"]) {
        ctx.statements.length = 0;
        await assert.rejects(ctx.services.apps.authenticate(bad), {
          code: "UNAUTHENTICATED",
          message: "The access token is invalid or has been revoked",
        });
        assert.deepEqual(ctx.statements, [], `a query was made for ${JSON.stringify(bad)}`);
      }
      ctx.statements.length = 0;
      await assert.rejects(ctx.services.apps.authenticate(generateToken()), { code: "UNAUTHENTICATED" });
      assert.equal(ctx.statements.length, 1);

      ctx.statements.length = 0;
      const actor = await ctx.services.apps.authenticate(token);
      assert.equal(ctx.statements.length, 1);
      assert.deepEqual(actor, {
        kind: "app",
        appId: app.id,
        homeProjectId: app.projectId,
        permissions: ["agenda:read", "tickets:read"],
        appName: app.name,
        apiVersion: app.apiVersion,
      });
    });

    test("invalidates the old token at once on rotation, and the token and links on deletion", async () => {
      const { app, token, ownerId } = await createApp(ctx.services);
      const owner = asUser(ownerId as string);
      const rotated = await ctx.services.apps.rotateToken(owner, { id: app.id });
      assert.notEqual(rotated.token, token);
      assert.equal(rotated.app.tokenLast4, rotated.token.slice(-4));
      assert.ok(rotated.app.tokenCreatedAt >= app.tokenCreatedAt);
      await assert.rejects(ctx.services.apps.authenticate(token), { code: "UNAUTHENTICATED" });
      assert.equal((await ctx.services.apps.authenticate(rotated.token)).appId, app.id);

      const { project: other, ownerId: otherOwnerId } = await createProject(ctx.services);
      await ctx.services.apps.authorize(asUser(otherOwnerId), { appId: app.id, projectId: other.id });
      assert.equal((await ctx.services.apps.listIntegrations(asUser(otherOwnerId), other.id)).length, 1);

      await ctx.services.apps.deleteApp(owner, { id: app.id });
      await assert.rejects(ctx.services.apps.authenticate(rotated.token), { code: "UNAUTHENTICATED" });
      await assert.rejects(ctx.services.apps.getApp(owner, app.id), { code: "NOT_FOUND" });
      await assert.rejects(ctx.services.apps.connectInfo(app.id), { code: "NOT_FOUND" });
      assert.deepEqual(await ctx.services.apps.listIntegrations(asUser(otherOwnerId), other.id), []);
      const links = await ctx.database.db
        .selectFrom("app_links")
        .select("id")
        .where("app_id", "=", app.id)
        .execute();
      assert.deepEqual(links, []);
    });

    test("announces every change that affects what an app sees, for each project concerned", async () => {
      const { app, ownerId, projectId } = await createApp(ctx.services);
      const owner = asUser(ownerId as string);
      const { project: linked, ownerId: linkedOwnerId } = await createProject(ctx.services);
      const notified: string[] = [];
      const stop = ctx.services.changes.subscribe((id) => {
        if (id === projectId || id === linked.id) notified.push(id);
      });
      try {
        await ctx.services.apps.authorize(asUser(linkedOwnerId), { appId: app.id, projectId: linked.id });
        assert.deepEqual(notified.splice(0), [linked.id]);
        await ctx.services.apps.updateApp(owner, {
          id: app.id,
          permissions: ["agenda:read", "tickets:read"],
        });
        assert.deepEqual(notified.splice(0).sort(), [projectId, linked.id].sort());
        await ctx.services.apps.rotateToken(owner, { id: app.id });
        assert.deepEqual(notified.splice(0).sort(), [projectId, linked.id].sort());
        await ctx.services.apps.revokeLink(asUser(linkedOwnerId), { appId: app.id, projectId: linked.id });
        assert.deepEqual(notified.splice(0), [linked.id]);
        await ctx.services.apps.deleteApp(owner, { id: app.id });
        assert.deepEqual(notified.splice(0), [projectId]);
      } finally {
        stop();
      }
    });
  });
}
