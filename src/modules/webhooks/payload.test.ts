import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createApp,
  createAttendee,
  createProject,
  createTicketType,
  userActor,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { schema } from "../../api-schema.js";
import { globalId } from "../../graphql/ids.js";
import { preparePayloads } from "./payload.js";
import { ObjectRenderer } from "./render.js";
import { webhooksRepository as repo } from "./webhooks.repository.js";

for (const engine of testEngines()) {
  describe(`a claim's payloads (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true" });

    test("render together, each as the app sees it now: nothing of a project whose link was revoked", async () => {
      const { app, ownerId } = await createApp(ctx.services, { permissions: ["attendees:read"] });
      await ctx.services.webhooks.configure(userActor(ownerId ?? ""), {
        appId: app.id,
        url: "http://127.0.0.1:9/hooks",
        events: ["attendee.registered"],
      });
      const registered = [];
      for (const name of ["kept", "revoked", "kept too"]) {
        const { project, ownerId: organizerId } = await createProject(ctx.services);
        const organizer = userActor(organizerId);
        await ctx.services.apps.authorize(organizer, { appId: app.id, projectId: project.id });
        const tickets = await createTicketType(ctx.services, organizer, project.id);
        const attendee = await createAttendee(ctx.services, organizer, project.id, tickets.id, { name });
        if (name === "revoked")
          await ctx.services.apps.revokeLink(organizer, { appId: app.id, projectId: project.id });
        registered.push(attendee);
      }
      const rows = await ctx.database.db
        .selectFrom("webhook_deliveries")
        .selectAll()
        .where("app_id", "=", app.id)
        .orderBy("seq")
        .execute();
      assert.equal(rows.length, 3);
      const endpoint = await repo.findEndpoint(ctx.database.db, app.id);
      assert.ok(endpoint);
      const bodies = await preparePayloads(
        {
          database: ctx.database,
          access: ctx.services.access,
          renderer: new ObjectRenderer(schema, ctx.services),
        },
        rows,
        endpoint,
      );
      const objects = rows.map((row) => {
        const body = bodies.get(row.id);
        return body === undefined
          ? undefined
          : (JSON.parse(body) as { data: { object: { id: string; name: string } } }).data.object;
      });
      assert.equal(objects[1], undefined, "the revoked project's event is not rendered");
      assert.deepEqual(
        [objects[0]?.id, objects[0]?.name, objects[2]?.id, objects[2]?.name],
        [
          globalId("Attendee", registered[0]?.id ?? ""),
          "kept",
          globalId("Attendee", registered[2]?.id ?? ""),
          "kept too",
        ],
      );
    });
  });
}
