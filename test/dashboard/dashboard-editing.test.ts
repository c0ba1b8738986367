import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../helpers/engines.js";
import {
  addMember,
  createAttendee,
  createProject,
  createTicketType,
  createUser,
  uniqueEmail,
  userActor,
} from "../helpers/factories.js";
import { follow, logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite } from "../helpers/test-server.js";

const xss = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
const system = { kind: "system" } as const;

/** The message next to a field, by the input's id (`f-<name>`). */
function fieldError(body: string, name: string): string | undefined {
  return new RegExp(`id="f-${name}-error">([^<]+)<`).exec(body)?.[1];
}

/** The value an input shows. */
function inputValue(body: string, name: string): string | undefined {
  const tag = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(body)?.[0] ?? "";
  return /value="([^"]*)"/.exec(tag)?.[1];
}

for (const engine of testEngines()) {
  describe(`dashboard members and edit pages over HTTP (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    const loggedInAs = (email: string) => logIn(server.url, email);

    /** A project whose owner is logged in. */
    async function ownerWithProject() {
      const { user: owner, project } = await createOrganizer(server.services, {
        name: "Olga Owner",
        project: { timezone: "UTC" },
      });
      return { owner, project, client: await loggedInAs(owner.email) };
    }

    async function roles(projectId: string): Promise<Record<string, string>> {
      const members = await server.services.members.list(system, projectId);
      return Object.fromEntries(members.map((m) => [m.email, m.role]));
    }

    test("refuses a malformed email and a made-up role, keeping the typed values", async () => {
      const { project, client } = await ownerWithProject();
      const members = `/b/${project.id}/settings/members`;
      await client.get(members);
      const malformed = "nobody-at-example";
      const missing = await client.post(members, { email: malformed, role: "ADMIN" });
      assert.equal(missing.status, 400);
      assert.equal(fieldError(missing.body, "email"), "Email must be a valid email address.");
      assert.equal(inputValue(missing.body, "email"), malformed);
      assert.match(missing.body, /<option value="ADMIN" selected/);
      const someone = await createUser(server.services);
      const badRole = await client.post(members, { email: someone.email, role: "ROOT" });
      assert.equal(badRole.status, 400);
      assert.equal(fieldError(badRole.body, "role"), "Role must be Member, Admin or Owner.");
      assert.equal((await roles(project.id))[someone.email], undefined);
    });

    test("managers invite, re-role and remove a member, who then gets the 404 page", async () => {
      const { owner, project, client } = await ownerWithProject();
      const colleague = await createUser(server.services, { name: "Carl Colleague" });
      const members = `/b/${project.id}/settings/members`;
      const tab = await client.get(members);
      assert.equal(tab.status, 200);
      assert.match(tab.body, /role="tab"[^>]*aria-selected="true"[^>]*>Members</);

      const invited = await follow(
        client,
        await client.post(members, { email: colleague.email, role: "ADMIN" }),
      );
      // This server has no SMTP: the inviter gets the link to pass on, not a claim that it was emailed.
      assert.match(
        invited.body,
        new RegExp(
          `No email was sent \\(this server has no SMTP_URL\\)\\. Send ${colleague.email} this link`,
        ),
      );
      assert.match(invited.body, /Pending invitations/);
      // No membership without the invitee's consent.
      assert.deepEqual(await roles(project.id), { [owner.email]: "OWNER" });
      await addMember(server.services, userActor(owner.id), project.id, colleague.email, "ADMIN");
      assert.deepEqual(await roles(project.id), { [owner.email]: "OWNER", [colleague.email]: "ADMIN" });

      const colleagueClient = await loggedInAs(colleague.email);
      assert.equal((await colleagueClient.get(`/b/${project.id}`)).status, 200);

      await client.get(members);
      const demoted = await follow(
        client,
        await client.post(`${members}/${colleague.id}/role`, { role: "MEMBER" }),
      );
      assert.match(demoted.body, /Carl Colleague is now a member\./);
      assert.equal((await roles(project.id))[colleague.email], "MEMBER");

      const removed = await follow(client, await client.post(`${members}/${colleague.id}/remove`, {}));
      assert.match(removed.body, /Carl Colleague was removed from the project\./);
      assert.doesNotMatch(removed.body, new RegExp(colleague.email));
      assert.deepEqual(await roles(project.id), { [owner.email]: "OWNER" });

      // The removed member's very next request: the same 404 page a stranger gets.
      const gone = await colleagueClient.get(`/b/${project.id}/settings/members`);
      assert.equal(gone.status, 404);
      assert.doesNotMatch(gone.body, new RegExp(project.name));
    });

    test("refuses to remove or demote the last owner and says why", async () => {
      const { owner, project, client } = await ownerWithProject();
      const members = `/b/${project.id}/settings/members`;
      await client.get(members);
      const remove = await client.post(`${members}/${owner.id}/remove`, {});
      assert.equal(remove.status, 409);
      assert.match(remove.body, /role="alert">A project needs at least one owner</);
      const demote = await client.post(`${members}/${owner.id}/role`, { role: "ADMIN" });
      assert.equal(demote.status, 409);
      assert.match(demote.body, /A project needs at least one owner/);
      assert.deepEqual(await roles(project.id), { [owner.email]: "OWNER" });

      // With a second owner, the first may step down and leave.
      const partner = await createUser(server.services);
      await addMember(server.services, userActor(owner.id), project.id, partner.email, "OWNER");
      await client.get(members);
      const left = await client.post(`${members}/${owner.id}/remove`, {});
      assert.equal(left.status, 303);
      assert.equal(left.headers.get("location"), "/");
      assert.deepEqual(await roles(project.id), { [partner.email]: "OWNER" });
    });

    test("shows members the list read-only and refuses their changes", async () => {
      const { owner, project } = await ownerWithProject();
      const member = await createUser(server.services, { name: "Mia Member" });
      const other = await createUser(server.services);
      await addMember(server.services, userActor(owner.id), project.id, member.email, "MEMBER");
      const client = await loggedInAs(member.email);
      const members = `/b/${project.id}/settings/members`;
      const page = await client.get(members);
      assert.equal(page.status, 200);
      assert.match(page.body, /Olga Owner/);
      assert.match(page.body, /Only the project's owners and admins can invite, change or remove members/);
      assert.doesNotMatch(page.body, /Send invitation|Change role|>Remove</);

      await client.get(`/b/${project.id}`);
      const add = await client.post(members, { email: other.email, role: "OWNER" });
      assert.equal(add.status, 403);
      const promote = await client.post(`${members}/${member.id}/role`, { role: "OWNER" });
      assert.equal(promote.status, 403);
      const remove = await client.post(`${members}/${owner.id}/remove`, {});
      assert.equal(remove.status, 403);
      assert.deepEqual(await roles(project.id), { [owner.email]: "OWNER", [member.email]: "MEMBER" });

      // A stranger learns nothing: the 404 page, for the list and for the forms.
      const stranger = await loggedInAs((await createUser(server.services)).email);
      assert.equal((await stranger.get(members)).status, 404);
    });

    test("shows a member's name with markup as text", async () => {
      const { owner, project, client } = await ownerWithProject();
      const sneaky = await createUser(server.services, { name: xss });
      await addMember(server.services, userActor(owner.id), project.id, sneaky.email, "MEMBER");
      const page = await client.get(`/b/${project.id}/settings/members`);
      assert.equal(page.status, 200);
      assert.ok(!page.body.includes(xss), "the raw payload is not in the page");
      // Preact escapes `<`, `&` and `"` in text and attributes, which is what keeps markup inert.
      assert.match(
        page.body,
        /<th scope="row">&lt;script>alert\(&quot;x&quot;\)&lt;\/script>&lt;img src=x onerror=alert\(1\)><\/th>/,
      );
      assert.doesNotMatch(page.body, /<img src=x/);
    });

    test("refuses every new form without the session's CSRF token", async () => {
      const { owner, project, client } = await ownerWithProject();
      const actor = userActor(owner.id);
      const colleague = await createUser(server.services);
      await addMember(server.services, actor, project.id, colleague.email, "ADMIN");
      const ticketType = await createTicketType(server.services, actor, project.id);
      const attendee = await createAttendee(server.services, actor, project.id, ticketType.id);
      const track = await server.services.agenda.createTrack(actor, { projectId: project.id, name: "Web" });
      const room = await server.services.agenda.createRoom(actor, { projectId: project.id, name: "Hall" });
      const base = `/b/${project.id}`;
      const posts: [string, Record<string, string>][] = [
        [`${base}/settings/members`, { email: uniqueEmail(), role: "OWNER" }],
        [`${base}/settings/members/${colleague.id}/role`, { role: "MEMBER" }],
        [`${base}/settings/members/${colleague.id}/remove`, {}],
        [`${base}/tickets/${ticketType.id}`, { name: "Forged", price: "1", currency: "EUR", quantity: "5" }],
        [`${base}/agenda/tracks/${track.id}`, { name: "Forged" }],
        [`${base}/agenda/rooms/${room.id}`, { name: "Forged" }],
        [
          `${base}/attendees/${attendee.id}`,
          { name: "Forged", email: uniqueEmail(), ticketTypeId: ticketType.id },
        ],
      ];
      await client.get(base);
      for (const [path, fields] of posts) {
        const response = await client.post(path, { ...fields, _csrf: null });
        assert.equal(response.status, 403, path);
        assert.match(response.body, /This form has expired or did not come from this site/);
        assert.equal((await client.post(path, { ...fields, _csrf: "forged" })).status, 403, path);
      }
      assert.equal((await roles(project.id))[colleague.email], "ADMIN");
      assert.equal(
        (await server.services.tickets.findTicketType(actor, ticketType.id))?.item.name,
        "Standard",
      );
      assert.equal((await server.services.agenda.findTrack(actor, track.id))?.item.name, "Web");
      assert.equal((await server.services.agenda.findRoom(actor, room.id))?.item.name, "Hall");
      assert.equal(
        (await server.services.attendees.findAttendee(actor, attendee.id))?.item.name,
        attendee.name,
      );
    });

    test("edits a ticket type: refuses a quantity below the tickets sold, keeps the values, then saves", async () => {
      const { owner, project, client } = await ownerWithProject();
      const actor = userActor(owner.id);
      const ticketType = await createTicketType(server.services, actor, project.id, {
        name: "Early bird",
        quantity: 3,
        priceMinor: 4900,
      });
      await createAttendee(server.services, actor, project.id, ticketType.id);
      await createAttendee(server.services, actor, project.id, ticketType.id);
      const path = `/b/${project.id}/tickets/${ticketType.id}`;
      const list = await client.get(`/b/${project.id}/tickets`);
      assert.match(list.body, new RegExp(`href="${path}"`));
      const form = await client.get(path);
      assert.equal(form.status, 200);
      assert.equal(inputValue(form.body, "price"), "49.00");
      assert.equal(inputValue(form.body, "quantity"), "3");
      assert.match(form.body, /2 tickets sold/);

      const fields = {
        name: "Early bird (last call)",
        description: "Until the end of May",
        price: "59.50",
        currency: "EUR",
        quantity: "1",
        salesStartAt: "",
        salesEndAt: "2026-05-31T23:59",
      };
      const tooFew = await client.post(path, fields);
      assert.equal(tooFew.status, 400);
      assert.equal(
        fieldError(tooFew.body, "quantity"),
        "Quantity must be at least 2, the number of tickets already sold.",
      );
      assert.equal(inputValue(tooFew.body, "name"), "Early bird (last call)");
      assert.equal(inputValue(tooFew.body, "price"), "59.50");
      assert.equal(inputValue(tooFew.body, "salesEndAt"), "2026-05-31T23:59");
      assert.match(tooFew.body, /Until the end of May<\/textarea>/);

      const badPrice = await client.post(path, { ...fields, quantity: "2", price: "cheap" });
      assert.equal(badPrice.status, 400);
      assert.equal(fieldError(badPrice.body, "price"), "Price must be an amount such as 49.00.");

      const saved = await follow(client, await client.post(path, { ...fields, quantity: "2" }));
      assert.match(saved.body, /Ticket type “Early bird \(last call\)” saved\./);
      const stored = (await server.services.tickets.findTicketType(actor, ticketType.id))?.item;
      assert.equal(stored?.quantity, 2);
      assert.equal(stored?.priceMinor, 5950);
      assert.equal(stored?.description, "Until the end of May");
      assert.equal(stored?.salesEndAt, "2026-05-31T23:59:00.000Z");
    });

    test("edits a track and a room: a bad color or capacity is marked, the values stay", async () => {
      const { owner, project, client } = await ownerWithProject();
      const actor = userActor(owner.id);
      const track = await server.services.agenda.createTrack(actor, { projectId: project.id, name: "Web" });
      const room = await server.services.agenda.createRoom(actor, {
        projectId: project.id,
        name: "Hall",
        capacity: 100,
      });
      const agenda = await client.get(`/b/${project.id}/agenda`);
      assert.match(agenda.body, new RegExp(`href="/b/${project.id}/agenda/tracks/${track.id}"`));
      assert.match(agenda.body, new RegExp(`href="/b/${project.id}/agenda/rooms/${room.id}"`));

      const trackPath = `/b/${project.id}/agenda/tracks/${track.id}`;
      await client.get(trackPath);
      const badColor = await client.post(trackPath, { name: "Frontend", color: "red" });
      assert.equal(badColor.status, 400);
      assert.equal(fieldError(badColor.body, "color"), "Color must be a color in the form #RRGGBB.");
      assert.equal(inputValue(badColor.body, "name"), "Frontend");
      assert.equal(inputValue(badColor.body, "color"), "red");
      const emptyName = await client.post(trackPath, { name: "", color: "#112233" });
      assert.equal(fieldError(emptyName.body, "name"), "Track name must not be empty.");
      const savedTrack = await follow(
        client,
        await client.post(trackPath, { name: "Frontend", color: "#1a73e8" }),
      );
      assert.match(savedTrack.body, /Track “Frontend” saved\./);
      const storedTrack = (await server.services.agenda.findTrack(actor, track.id))?.item;
      assert.equal(storedTrack?.name, "Frontend");
      assert.equal(storedTrack?.color, "#1A73E8");

      const roomPath = `/b/${project.id}/agenda/rooms/${room.id}`;
      const roomForm = await client.get(roomPath);
      assert.equal(inputValue(roomForm.body, "capacity"), "100");
      const badCapacity = await client.post(roomPath, { name: "Main hall", capacity: "lots" });
      assert.equal(badCapacity.status, 400);
      assert.equal(fieldError(badCapacity.body, "capacity"), "Capacity must be a whole number.");
      assert.equal(inputValue(badCapacity.body, "name"), "Main hall");
      const negative = await client.post(roomPath, { name: "Main hall", capacity: "-4" });
      assert.equal(negative.status, 400);
      assert.ok(fieldError(negative.body, "capacity"));
      const savedRoom = await follow(
        client,
        await client.post(roomPath, { name: "Main hall", capacity: "" }),
      );
      assert.match(savedRoom.body, /Room “Main hall” saved\./);
      const storedRoom = (await server.services.agenda.findRoom(actor, room.id))?.item;
      assert.equal(storedRoom?.name, "Main hall");
      assert.equal(storedRoom?.capacity, null);
    });

    test("edits an attendee: a bad email is marked, then name, email, company and ticket type save", async () => {
      const { owner, project, client } = await ownerWithProject();
      const actor = userActor(owner.id);
      const standard = await createTicketType(server.services, actor, project.id);
      const vip = await createTicketType(server.services, actor, project.id, { name: "VIP" });
      const attendee = await createAttendee(server.services, actor, project.id, standard.id);
      const path = `/b/${project.id}/attendees/${attendee.id}`;
      const list = await client.get(`/b/${project.id}/attendees`);
      assert.match(list.body, new RegExp(`href="${path}"`));
      const form = await client.get(path);
      assert.equal(inputValue(form.body, "email"), attendee.email);

      const bad = await client.post(path, {
        name: "Grace Hopper",
        email: "not-an-email",
        company: "Navy",
        ticketTypeId: vip.id,
      });
      assert.equal(bad.status, 400);
      assert.ok(fieldError(bad.body, "email"));
      assert.equal(inputValue(bad.body, "name"), "Grace Hopper");
      assert.equal(inputValue(bad.body, "company"), "Navy");
      assert.match(bad.body, new RegExp(`<option value="${vip.id}" selected`));

      const email = uniqueEmail("grace");
      const saved = await follow(
        client,
        await client.post(path, { name: "Grace Hopper", email, company: "Navy", ticketTypeId: vip.id }),
      );
      assert.match(saved.body, /Grace Hopper saved\./);
      const stored = (await server.services.attendees.findAttendee(actor, attendee.id))?.item;
      assert.equal(stored?.email, email);
      assert.equal(stored?.company, "Navy");
      assert.equal(stored?.ticketTypeId, vip.id);
    });

    test("answers another project's item under this project with the 404 page", async () => {
      const { project, client } = await ownerWithProject();
      const elsewhere = await createProject(server.services);
      const theirs = await createTicketType(
        server.services,
        userActor(elsewhere.ownerId),
        elsewhere.project.id,
      );
      const track = await server.services.agenda.createTrack(userActor(elsewhere.ownerId), {
        projectId: elsewhere.project.id,
        name: "Theirs",
      });
      assert.equal((await client.get(`/b/${project.id}/tickets/${theirs.id}`)).status, 404);
      assert.equal((await client.get(`/b/${project.id}/agenda/tracks/${track.id}`)).status, 404);
      await client.get(`/b/${project.id}`);
      const post = await client.post(`/b/${project.id}/agenda/tracks/${track.id}`, { name: "Mine now" });
      assert.equal(post.status, 404);
      const stored = await server.services.agenda.findTrack(userActor(elsewhere.ownerId), track.id);
      assert.equal(stored?.item.name, "Theirs");
    });
  });
}
