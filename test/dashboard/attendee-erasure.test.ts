import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loggedInOrganizer } from "../helpers/dashboard-organizer.js";
import { sqliteEngine } from "../helpers/engines.js";
import { createAttendee } from "../helpers/factories.js";
import { serverPerSuite } from "../helpers/test-server.js";

describe("erasing an attendee from the dashboard", () => {
  const server = serverPerSuite(sqliteEngine);

  test("asks first, names the person and what stays; a POST without the form's CSRF token erases nothing", async () => {
    const { client, project, actor, ticketType } = await loggedInOrganizer(server);
    const attendee = await createAttendee(server.services, actor, project.id, ticketType.id, {
      name: "Erin <b>Erasable</b>",
    });
    const edit = await client.get(`/b/${project.id}/attendees/${attendee.id}`);
    assert.match(edit.body, new RegExp(`href="/b/${project.id}/attendees/${attendee.id}/erase"`));
    const confirm = await client.get(`/b/${project.id}/attendees/${attendee.id}/erase`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.body, /Erase Erin &lt;b>Erasable&lt;\/b>'s personal data\?/);
    assert.match(confirm.body, /cannot be undone/);
    const forged = await client.post(`/b/${project.id}/attendees/${attendee.id}/erase`, { _csrf: "forged" });
    assert.equal(forged.status, 403);
    const still = await server.services.attendees.findAttendee(actor, attendee.id);
    assert.equal(still?.item.name, "Erin <b>Erasable</b>");
  });

  test("Erase personal data replaces the name and email, keeps the registration, and the edit page says so", async () => {
    const { client, project, actor, ticketType } = await loggedInOrganizer(server);
    const attendee = await createAttendee(server.services, actor, project.id, ticketType.id);
    await client.get(`/b/${project.id}/attendees/${attendee.id}/erase`);
    const erased = await client.post(`/b/${project.id}/attendees/${attendee.id}/erase`, {});
    assert.equal(erased.status, 303);
    const list = await client.get(erased.headers.get("location") ?? "");
    assert.match(list.body, /personal data is erased/);
    const row = await server.services.attendees.findAttendee(actor, attendee.id);
    assert.equal(row?.item.name, "Erased attendee");
    assert.equal(row?.item.status, "REGISTERED");
    const edit = await client.get(`/b/${project.id}/attendees/${attendee.id}`);
    assert.match(edit.body, /personal data was erased/);
    assert.doesNotMatch(edit.body, /Erase personal data…/);
  });

  test("an attendee of another project is not found", async () => {
    const { client, project } = await loggedInOrganizer(server);
    const other = await loggedInOrganizer(server);
    const foreign = await createAttendee(server.services, other.actor, other.project.id, other.ticketType.id);
    assert.equal((await client.get(`/b/${project.id}/attendees/${foreign.id}/erase`)).status, 404);
    await client.get(`/b/${project.id}/attendees`);
    assert.equal((await client.post(`/b/${project.id}/attendees/${foreign.id}/erase`, {})).status, 404);
    const kept = await server.services.attendees.findAttendee(other.actor, foreign.id);
    assert.equal(kept?.item.name, "Grace Attendee");
  });
});
