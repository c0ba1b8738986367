import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { systemActor } from "../../src/modules/access/actor.js";
import { allPermissions, type Permission } from "../../src/modules/access/permissions.js";
import { testEngines } from "../helpers/engines.js";
import {
  createApp,
  createAttendee,
  createProject,
  createSession,
  createTicketType,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite, type TestServer } from "../helpers/test-server.js";

/** A fresh draft project with one of everything, and the global ids to address them. */
async function fixture(server: TestServer) {
  const { project } = await createProject(server.services);
  const session = await createSession(server.services, systemActor, project.id, {
    status: "DRAFT",
    title: "Draft talk",
  });
  const speaker = await server.services.agenda.createSpeaker(systemActor, {
    projectId: project.id,
    name: "Ada",
  });
  const room = await server.services.agenda.createRoom(systemActor, {
    projectId: project.id,
    name: "Hall A",
  });
  const track = await server.services.agenda.createTrack(systemActor, {
    projectId: project.id,
    name: "Main",
  });
  const ticket = await createTicketType(server.services, systemActor, project.id);
  const attendee = await createAttendee(server.services, systemActor, project.id, ticket.id);
  const ids = {
    project: project.id,
    session: globalId("Session", session.id),
    speaker: globalId("Speaker", speaker.id),
    room: globalId("Room", room.id),
    track: globalId("Track", track.id),
    ticket: globalId("TicketType", ticket.id),
    attendee: globalId("Attendee", attendee.id),
  };
  return ids;
}

type Ids = Awaited<ReturnType<typeof fixture>>;

/** One operation gated by a permission, and what success looks like. */
interface Case {
  name: string;
  permission: Permission;
  query: (ids: Ids) => string;
  // biome-ignore lint/suspicious/noExplicitAny: response data of the case's own query
  succeeded: (data: any) => void;
  /** How refusal shows when it is not a FORBIDDEN error (Relay's node answers null for what you cannot read). */
  // biome-ignore lint/suspicious/noExplicitAny: response body of the case's own query
  denied?: (body: any) => void;
}

const cases: Case[] = [
  {
    name: "updateProject",
    permission: "project:write",
    query: (ids) =>
      `mutation { updateProject(input: {projectId: "${ids.project}", name: "Renamed"}) { project { name } userErrors { message } } }`,
    succeeded: (data) => assert.equal(data.updateProject.project.name, "Renamed"),
  },
  {
    name: "draft sessions",
    permission: "agenda:read",
    query: (ids) =>
      `{ project(id: "${ids.project}") { sessions(status: [DRAFT]) { totalCount edges { node { title } } } } }`,
    succeeded: (data) => assert.equal(data.project.sessions.edges[0].node.title, "Draft talk"),
  },
  {
    name: "unpublished speakers",
    permission: "agenda:read",
    query: (ids) => `{ project(id: "${ids.project}") { speakers(includeUnpublished: true) { totalCount } } }`,
    succeeded: (data) => assert.equal(data.project.speakers.totalCount, 1),
  },
  {
    name: "createSession",
    permission: "agenda:write",
    query: (ids) =>
      `mutation { createSession(input: {projectId: "${ids.project}", title: "New", startsAt: "2026-05-04T10:00:00Z", endsAt: "2026-05-04T11:00:00Z", roomId: "${ids.room}", trackId: "${ids.track}", speakerIds: ["${ids.speaker}"]}) { session { title room { name } track { name } speakers { name } } userErrors { message } } }`,
    succeeded: (data) =>
      assert.deepEqual(data.createSession.session, {
        title: "New",
        room: { name: "Hall A" },
        track: { name: "Main" },
        speakers: [{ name: "Ada" }],
      }),
  },
  {
    name: "updateSession",
    permission: "agenda:write",
    query: (ids) =>
      `mutation { updateSession(input: {id: "${ids.session}", title: "Changed"}) { session { title } } }`,
    succeeded: (data) => assert.equal(data.updateSession.session.title, "Changed"),
  },
  {
    name: "deleteSession",
    permission: "agenda:write",
    query: (ids) => `mutation { deleteSession(input: {id: "${ids.session}"}) { session { id } } }`,
    succeeded: (data) => assert.ok(data.deleteSession.session.id),
  },
  {
    name: "createSpeaker",
    permission: "agenda:write",
    query: (ids) =>
      `mutation { createSpeaker(input: {projectId: "${ids.project}", name: "Grace"}) { speaker { name } } }`,
    succeeded: (data) => assert.equal(data.createSpeaker.speaker.name, "Grace"),
  },
  {
    name: "createRoom",
    permission: "agenda:write",
    query: (ids) =>
      `mutation { createRoom(input: {projectId: "${ids.project}", name: "Hall B", capacity: 50}) { room { name capacity } } }`,
    succeeded: (data) => assert.deepEqual(data.createRoom.room, { name: "Hall B", capacity: 50 }),
  },
  {
    name: "createTrack",
    permission: "agenda:write",
    query: (ids) =>
      `mutation { createTrack(input: {projectId: "${ids.project}", name: "Ops"}) { track { name } } }`,
    succeeded: (data) => assert.equal(data.createTrack.track.name, "Ops"),
  },
  {
    name: "ticket counts",
    permission: "tickets:read",
    query: (ids) =>
      `{ project(id: "${ids.project}") { ticketTypes(onSaleOnly: false) { edges { node { capacity sold remaining } } } } }`,
    succeeded: (data) =>
      assert.deepEqual(data.project.ticketTypes.edges[0].node, { capacity: 100, sold: 1, remaining: 99 }),
  },
  {
    name: "createTicketType",
    permission: "tickets:write",
    query: (ids) =>
      `mutation { createTicketType(input: {projectId: "${ids.project}", name: "VIP", priceMinor: 50000, currency: "EUR", quantity: 10}) { ticketType { name } } }`,
    succeeded: (data) => assert.equal(data.createTicketType.ticketType.name, "VIP"),
  },
  {
    name: "updateTicketType",
    permission: "tickets:write",
    query: (ids) =>
      `mutation { updateTicketType(input: {id: "${ids.ticket}", quantity: 20}) { ticketType { id } userErrors { message } } }`,
    succeeded: (data) => assert.deepEqual(data.updateTicketType.userErrors, []),
  },
  {
    name: "attendees",
    permission: "attendees:read",
    query: (ids) =>
      `{ project(id: "${ids.project}") { attendees { totalCount edges { node { email checkedIn ticketType { name } } } } } }`,
    succeeded: (data) => assert.equal(data.project.attendees.totalCount, 1),
  },
  {
    name: "attendee node",
    permission: "attendees:read",
    query: (ids) => `{ node(id: "${ids.attendee}") { ... on Attendee { name } } }`,
    succeeded: (data) => assert.equal(data.node.name, "Grace Attendee"),
    denied: (body) => assert.deepEqual([body.data, body.errors], [{ node: null }, undefined]),
  },
  {
    name: "registerAttendee",
    permission: "attendees:write",
    query: (ids) =>
      `mutation { registerAttendee(input: {projectId: "${ids.project}", name: "Linus", email: "linus@example.test", ticketTypeId: "${ids.ticket}"}) { attendee { id } userErrors { message } } }`,
    succeeded: (data) => assert.ok(data.registerAttendee.attendee.id),
  },
  {
    name: "cancelAttendee",
    permission: "attendees:write",
    query: (ids) => `mutation { cancelAttendee(input: {id: "${ids.attendee}"}) { attendee { id } } }`,
    succeeded: (data) => assert.ok(data.cancelAttendee.attendee.id),
  },
  {
    name: "eraseAttendee",
    permission: "attendees:write",
    query: (ids) => `mutation { eraseAttendee(input: {id: "${ids.attendee}"}) { attendee { id } } }`,
    succeeded: (data) => assert.ok(data.eraseAttendee.attendee.id),
  },
  {
    name: "checkInAttendee",
    permission: "checkins:write",
    query: (ids) =>
      `mutation { checkInAttendee(input: {attendeeId: "${ids.attendee}"}) { checkIn { source checkedInAt } userErrors { message } } }`,
    succeeded: (data) => assert.equal(data.checkInAttendee.checkIn.source, "APP"),
  },
  {
    name: "undoCheckIn",
    permission: "checkins:write",
    query: (ids) =>
      `mutation { undoCheckIn(input: {attendeeId: "${ids.attendee}"}) { attendee { id } userErrors { message } } }`,
    succeeded: (data) => assert.deepEqual(data.undoCheckIn.userErrors, []),
  },
];

for (const engine of testEngines()) {
  describe(`API permissions (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    for (const c of cases) {
      test(`${c.name}: FORBIDDEN without ${c.permission}, allowed with it`, async () => {
        const ids = await fixture(server);
        const others = allPermissions.filter((p) => p !== c.permission);
        const without = await createApp(server.services, { projectId: ids.project, permissions: others });
        const denied = await gql(server.url, c.query(ids), { token: without.token });
        assert.equal(denied.status, 200);
        if (c.denied) {
          c.denied(denied.body);
        } else {
          assert.equal(denied.body.errors?.[0]?.extensions.code, "FORBIDDEN", JSON.stringify(denied.body));
          assert.equal(denied.body.errors[0].extensions.requiredPermission, c.permission);
        }

        const holder = await createApp(server.services, {
          projectId: ids.project,
          permissions: [c.permission],
        });
        const allowed = await gql(server.url, c.query(ids), { token: holder.token });
        assert.equal(allowed.body.errors, undefined, JSON.stringify(allowed.body.errors));
        c.succeeded(allowed.body.data);
      });
    }

    test("reads the basic fields of its home project with no permission at all", async () => {
      const ids = await fixture(server);
      const { token } = await createApp(server.services, { projectId: ids.project, permissions: [] });
      const { body } = await gql(
        server.url,
        `{ project(id: "${ids.project}") { id name status timezone viewerPermissions } }`,
        { token },
      );
      assert.deepEqual(body.data.project, {
        id: ids.project,
        name: "Test Conference",
        status: "DRAFT",
        timezone: "Europe/Berlin",
        viewerPermissions: [],
      });
    });

    test("returns validation problems as userErrors and changes nothing", async () => {
      const ids = await fixture(server);
      const { token } = await createApp(server.services, {
        projectId: ids.project,
        permissions: ["agenda:write", "agenda:read"],
      });
      const { body } = await gql(
        server.url,
        `mutation { createSession(input: {projectId: "${ids.project}", title: "", startsAt: "2026-05-04T10:00:00Z", endsAt: "2026-05-04T09:00:00Z", roomId: "not-a-room"}) { session { id } userErrors { field message } } }`,
        { token },
      );
      assert.equal(body.data.createSession.session, null);
      const fields = body.data.createSession.userErrors.map((e: { field: string[] }) => e.field.join("."));
      assert.ok(fields.includes("title"), JSON.stringify(fields));
      const count = await gql(
        server.url,
        `{ project(id: "${ids.project}") { sessions(status: [DRAFT, PUBLISHED, CANCELLED]) { totalCount } } }`,
        { token },
      );
      assert.equal(count.body.data.project.sessions.totalCount, 1);
    });

    // Attendee's permission is declared on the type and checked once per object where it enters the
    // answer (src/graphql/permissions.ts): the answer must stay what a check per field gives.
    test("a payload names the attendee it changed, and shows the rest only with attendees:read", async () => {
      const ids = await fixture(server);
      const register = (email: string) =>
        `mutation { registerAttendee(input: {projectId: "${ids.project}", name: "Linus", email: "${email}", ticketTypeId: "${ids.ticket}"}) { attendee { id name email status checkedIn ticketType { name } } } }`;
      const writer = await createApp(server.services, {
        projectId: ids.project,
        permissions: ["attendees:write"],
      });
      // The second document is past the length compiled by graphql-jit (src/graphql/documents.ts):
      // graphql-js's interpreter must refuse the same way.
      for (const padding of ["", `# ${"x".repeat(4_000)}\n`]) {
        const denied = await gql(server.url, padding + register(`linus${padding.length}@example.test`), {
          token: writer.token,
        });
        const attendee = denied.body.data.registerAttendee.attendee;
        assert.match(attendee.id, /^[A-Za-z0-9+/=]+$/);
        assert.deepEqual(
          { ...attendee, id: undefined },
          { id: undefined, name: null, email: null, status: null, checkedIn: null, ticketType: null },
        );
        const refusals = denied.body.errors.map(
          (e: { path: string[]; extensions: Record<string, unknown> }) => [
            e.path.join("."),
            e.extensions.code,
            e.extensions.requiredPermission,
          ],
        );
        assert.deepEqual(
          refusals.sort(),
          ["checkedIn", "email", "name", "status", "ticketType"].map((field) => [
            `registerAttendee.attendee.${field}`,
            "FORBIDDEN",
            "attendees:read",
          ]),
        );
      }

      const reader = await createApp(server.services, {
        projectId: ids.project,
        permissions: ["attendees:write", "attendees:read"],
      });
      const allowed = await gql(server.url, register("grace@example.test"), { token: reader.token });
      assert.equal(allowed.body.errors, undefined, JSON.stringify(allowed.body.errors));
      assert.deepEqual(
        { ...allowed.body.data.registerAttendee.attendee, id: undefined },
        {
          id: undefined,
          name: "Linus",
          email: "grace@example.test",
          status: "REGISTERED",
          checkedIn: false,
          ticketType: { name: "Standard" },
        },
      );
    });
  });
}
