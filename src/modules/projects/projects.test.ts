import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { addMember, createProject, createUser } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { publicActor, systemActor } from "../access/actor.js";

for (const engine of testEngines()) {
  describe(`projects (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("rejects an unknown time zone, a bad website and an end before the start", async () => {
      const owner = await createUser(ctx.services);
      await rejectsWithFieldErrors(
        ctx.services.projects.create(owner.id, { name: "X", timezone: "Mars/Olympus", website: "ftp://x" }),
        ["timezone", "website"],
      );
      await assert.rejects(
        ctx.services.projects.create(owner.id, {
          name: "X",
          startsAt: "2026-05-04T10:00:00Z",
          endsAt: "2026-05-04T09:00:00Z",
        }),
        { code: "BAD_USER_INPUT", message: /endsAt/ },
      );
    });

    test("gives a new project a 4-character id and makes the creator its owner", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      assert.match(project.id, /^[A-Za-z0-9]{4}$/);
      assert.equal(project.status, "DRAFT");
      const mine = await ctx.services.projects.listForUser(ownerId);
      assert.deepEqual(
        mine.map((p) => [p.id, p.role]),
        [[project.id, "OWNER"]],
      );
    });

    test("answers NOT_FOUND alike for a missing project, a malformed id and a project of someone else", async () => {
      const { project } = await createProject(ctx.services);
      const stranger = await createUser(ctx.services);
      const actor = { kind: "user" as const, userId: stranger.id };
      for (const id of [project.id, "zz!!", "toolong", "", "ZZZZ"]) {
        await assert.rejects(ctx.services.projects.get(actor, id), {
          code: "NOT_FOUND",
          message: "Project not found",
        });
      }
    });

    test("shows a project to the public only while it is published", async () => {
      const { project } = await createProject(ctx.services);
      await assert.rejects(ctx.services.projects.get(publicActor, project.id), { code: "NOT_FOUND" });
      await ctx.services.projects.update(systemActor, project.id, { status: "PUBLISHED" });
      assert.equal((await ctx.services.projects.get(publicActor, project.id)).name, project.name);
      await ctx.services.projects.update(systemActor, project.id, { status: "ARCHIVED" });
      await assert.rejects(ctx.services.projects.get(publicActor, project.id), { code: "NOT_FOUND" });
    });

    test("lets members run the event but only owners and admins edit the project", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const member = await createUser(ctx.services);
      const owner = { kind: "user" as const, userId: ownerId };
      await addMember(ctx.services, owner, project.id, member.email, "MEMBER");
      const asMember = { kind: "user" as const, userId: member.id };
      await assert.rejects(ctx.services.projects.update(asMember, project.id, { name: "Hijacked" }), {
        code: "FORBIDDEN",
      });
      await assert.rejects(ctx.services.members.changeRole(asMember, project.id, member.id, "OWNER"), {
        code: "FORBIDDEN",
      });
      const updated = await ctx.services.projects.update(owner, project.id, {
        name: "Renamed",
        venue: { city: "Berlin", country: "de" },
      });
      assert.equal(updated.name, "Renamed");
      assert.deepEqual(updated.venue, { name: null, address: null, city: "Berlin", country: "DE" });
    });

    test("keeps at least one owner", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const owner = { kind: "user" as const, userId: ownerId };
      await assert.rejects(ctx.services.members.removeMember(owner, project.id, ownerId), {
        code: "CONFLICT",
      });
    });
  });
}
