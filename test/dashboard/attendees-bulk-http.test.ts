import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loggedInOrganizer, uploadAttendeeList } from "../helpers/dashboard-organizer.js";
import { sqliteEngine } from "../helpers/engines.js";
import { HttpClient } from "../helpers/http-client.js";
import { serverPerSuite } from "../helpers/test-server.js";

// What an attacker or a careless upload can do to the import and export routes, over real HTTP.
describe("attendee import and export over HTTP: access, garbage and load", () => {
  const server = serverPerSuite(sqliteEngine);

  const organizer = () => loggedInOrganizer(server);
  const upload = (client: HttpClient, projectId: string, content: Buffer | string, csrf?: string | null) =>
    uploadAttendeeList(server, client, projectId, content, csrf);

  test("answers strangers and logged-out visitors like a missing project", async () => {
    const { project } = await organizer();
    const { client: stranger } = await organizer();
    for (const path of ["/attendees/export.csv", "/attendees/import"]) {
      assert.equal((await stranger.get(`/b/${project.id}${path}`)).status, 404, path);
      const anonymous = await new HttpClient(server.url).get(`/b/${project.id}${path}`);
      assert.equal(anonymous.status, 303, path);
      assert.match(anonymous.headers.get("location") ?? "", /^\/login/);
    }
    const { client } = await organizer();
    const own = await client.get(`/b/${project.id}/attendees/import/00000000-0000-0000-0000-000000000000`);
    assert.equal(own.status, 404);
  });

  test("refuses an upload without the CSRF token, garbage, an oversized file and a bad mapping with 4xx", async () => {
    const { client, project } = await organizer();
    assert.equal((await upload(client, project.id, "name,email\n", null)).status, 403);
    const binary = await upload(client, project.id, Buffer.from([0xff, 0xd8, 0xff, 0x00, 0x10]));
    assert.equal(binary.status, 400);
    assert.match(binary.body, /not UTF-8 text/);
    const broken = await upload(client, project.id, 'name,email\n"never closed,a@b.co\n');
    assert.equal(broken.status, 400);
    assert.match(broken.body, /not valid CSV/);
    const huge = await upload(client, project.id, Buffer.alloc(6 * 1024 * 1024, "a"));
    assert.ok(huge.status === 400 || huge.status === 413, `oversized upload answered ${huge.status}`);
    const ok = await upload(client, project.id, "name,email,ticket\nAda,ada@example.org,Standard\n");
    assert.equal(ok.status, 303, ok.body);
    const preview = await client.get(`${ok.location}?map_name=1&map_email=1&map_ticketType=9`);
    assert.equal(preview.status, 400);
    assert.match(preview.body, /Ticket type is not a column of the file/);
    const garbageFilter = await client.get(
      `/b/${project.id}/attendees?ticketType=${"x".repeat(60)}&checkedIn=maybe`,
    );
    assert.ok(garbageFilter.status === 200 || garbageFilter.status === 400, String(garbageFilter.status));
  });

  test("serves 100 concurrent exports of the same list, each complete", async () => {
    const { client, project, actor } = await organizer();
    const types = await server.services.tickets.listTicketTypes(
      await server.services.access.require(actor, project.id),
      { onSaleOnly: false },
      { limit: 10, after: undefined, before: undefined, backward: false },
    );
    const type = types.items[0] ?? assert.fail("no ticket type");
    for (let i = 0; i < 30; i++) {
      await server.services.attendees.registerAttendee(actor, {
        projectId: project.id,
        ticketTypeId: type.id,
        name: `P${i}`,
        email: `p${i}-${project.id}@example.org`,
      });
    }
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => client.get(`/b/${project.id}/attendees/export.csv`)),
    );
    for (const response of responses) {
      assert.equal(response.status, 200);
      assert.match(response.headers.get("content-type") ?? "", /^text\/csv/);
      assert.match(response.headers.get("content-disposition") ?? "", /attachment; filename="attendees-/);
      assert.equal(response.body.trim().split("\n").length, 31);
    }
  });
});
