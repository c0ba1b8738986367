import assert from "node:assert/strict";
import { describe, test } from "node:test";
import ICAL from "ical.js";
import { sqliteEngine } from "../helpers/engines.js";
import { seedEvent } from "../helpers/event-site-seed.js";
import { createApp, createProject, createSession, userActor } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

// The public event site (/e/<id>) over plain HTTP: the 404s, the page cache, escaping, the
// iCalendar feeds, the registration form's defences and the page settings through the API.

describe("the public event site over HTTP", () => {
  const server = serverPerSuite(sqliteEngine);

  test("a draft, an archived, a missing and a switched-off event answer the same 404", async () => {
    const { project: draft } = await createProject(server.services, { input: { name: "Draft event" } });
    const { project: archived } = await createProject(server.services, {
      input: { name: "Old", status: "ARCHIVED" },
    });
    const { project: off, ownerId } = await createProject(server.services, {
      input: { name: "Off", status: "PUBLISHED" },
    });
    await server.services.eventPage.updateSettings(userActor(ownerId), off.id, {
      pageEnabled: false,
      registrationOpen: true,
      companyField: "OPTIONAL",
    });
    const bodies = new Set<string>();
    for (const id of [draft.id, archived.id, off.id, "Zz9Q"]) {
      for (const path of ["", "/agenda.ics", "/register"]) {
        const response = await fetch(`${server.url}/e/${id}${path}`);
        assert.equal(response.status, 404, `${id}${path}`);
        bodies.add((await response.text()).replace(`/e/${id}${path}`, "/e/ID"));
      }
    }
    assert.equal(bodies.size, 1);
    const [body] = bodies;
    assert.ok(!body?.includes("Draft event") && !body?.includes("Off"));
  });

  test("serves the page from the cache until the project changes", async () => {
    const { project, actor } = await seedEvent(server);
    const first = await fetch(`${server.url}/e/${project.id}`);
    assert.equal(first.headers.get("x-cache"), "miss");
    const second = await fetch(`${server.url}/e/${project.id}`);
    assert.equal(second.headers.get("x-cache"), "hit");
    assert.equal(await second.text(), await first.text());
    await createSession(server.services, actor, project.id, { title: "Added later", status: "PUBLISHED" });
    const third = await fetch(`${server.url}/e/${project.id}`);
    assert.equal(third.headers.get("x-cache"), "miss");
    assert.ok((await third.text()).includes("Added later"));
  });

  test("1,000 requests at once for a page not yet cached render it once and all succeed", async () => {
    const { project } = await seedEvent(server);
    const responses = await Promise.all(
      Array.from({ length: 1000 }, () => fetch(`${server.url}/e/${project.id}`)),
    );
    const misses = responses.filter((r) => r.headers.get("x-cache") === "miss").length;
    assert.deepEqual([...new Set(responses.map((r) => r.status))], [200]);
    assert.equal(misses, 1);
    await Promise.all(responses.map((r) => r.arrayBuffer()));
  });

  test("escapes organizer text in the page and in the JSON-LD, and shows no draft", async () => {
    const { project } = await seedEvent(server);
    const body = await (await fetch(`${server.url}/e/${project.id}`)).text();
    assert.ok(!body.includes("<script>alert"), "an organizer's script reached the page");
    assert.ok(!body.includes("<img src=x"), "an organizer's tag reached the page");
    assert.ok(!body.includes("Secret draft session") && !body.includes("Draft Speaker"));
    const scripts = [...body.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    assert.equal(scripts.length, 1, "exactly the JSON-LD element");
    const jsonLd = JSON.parse(scripts[0]?.[1] ?? "");
    assert.equal(jsonLd["@type"], "Event");
    assert.equal(jsonLd.name, project.name);
    assert.equal(jsonLd.location.address.addressLocality, "Galway");
    assert.deepEqual(
      jsonLd.offers.map((o: { name: string; price: string }) => [o.name, o.price]),
      [
        ["Community pass", "0.00"],
        ["Door pass", "49.00"],
        ["Corporate pass", "990.00"],
      ],
    );
    assert.match(body, /<meta property="og:title" content="Harbour Conf Ada's &lt;\/script>&lt;script>/);
    assert.match(body, /<meta name="twitter:card" content="summary"/);
  });

  test("the iCalendar feed has one event per published session with stable UIDs", async () => {
    const { project, actor, keynote, dayTwo } = await seedEvent(server);
    const response = await fetch(`${server.url}/e/${project.id}/agenda.ics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^text\/calendar/);
    const text = await response.text();
    for (const line of text.split("\r\n")) assert.ok(Buffer.byteLength(line) <= 75, `unfolded line: ${line}`);
    const calendar = new ICAL.Component(ICAL.parse(text));
    assert.equal(calendar.getFirstPropertyValue("x-wr-timezone"), "Europe/Dublin");
    const events = calendar.getAllSubcomponents("vevent").map((v) => new ICAL.Event(v));
    assert.deepEqual(
      events.map((e) => e.summary),
      [keynote.title, dayTwo.title],
    );
    const [first] = events;
    assert.equal(first?.startDate.toJSDate().toISOString(), "2026-10-05T08:30:00.000Z");
    assert.match(
      first?.description ?? "",
      /^Speakers: Grace Hopper\n\nLine one\nLine two, with Ada's <\/script>/,
    );
    assert.match(first?.location ?? "", /^Main hall, Harbour Hall/);
    // Fetched again after an unrelated change, every UID is the same.
    await server.services.projects.update(actor, project.id, { website: "https://harbour.example" });
    const again = new ICAL.Component(
      ICAL.parse(await (await fetch(`${server.url}/e/${project.id}/agenda.ics`)).text()),
    );
    assert.deepEqual(
      again.getAllSubcomponents("vevent").map((v) => v.getFirstPropertyValue("uid")),
      events.map((e) => e.uid),
    );
    const single = await (await fetch(`${server.url}/e/${project.id}/sessions/${dayTwo.id}.ics`)).text();
    const one = new ICAL.Component(ICAL.parse(single)).getAllSubcomponents("vevent");
    assert.equal(one.length, 1);
    assert.equal(one[0]?.getFirstPropertyValue("uid"), events[1]?.uid);
    const draftSession = await fetch(`${server.url}/e/${project.id}/sessions/not-a-session.ics`);
    assert.equal(draftSession.status, 404);
    assert.equal(draftSession.headers.get("content-disposition"), null);
  });

  test("refuses a registration posted from another site or with a forged form", async () => {
    const { project, free } = await seedEvent(server);
    const form = await (await fetch(`${server.url}/e/${project.id}/register`)).text();
    const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form)?.[1] ?? "";
    const fields = {
      idempotencyKey: hidden("idempotencyKey"),
      issuedAt: hidden("issuedAt"),
      signature: hidden("signature"),
      ticketTypeId: free.id,
      name: "Mallory",
      email: "mallory@example.test",
    };
    const post = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/e/${project.id}/register`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams(body),
      });
    assert.equal((await post(fields, { origin: "https://evil.example" })).status, 403);
    assert.equal((await post(fields, { "sec-fetch-site": "cross-site" })).status, 403);
    // The last character changed (to "A", unless it is one already: a 1-in-64 flake it was).
    const forged = `${fields.signature.slice(0, -1)}${fields.signature.endsWith("A") ? "B" : "A"}`;
    assert.equal((await post({ ...fields, signature: forged })).status, 403);
    assert.equal((await post({ ...fields, issuedAt: String(Date.now() - 2 * 86_400_000) })).status, 403);
    const garbage = await post({ ...fields, email: "not an email", name: "x".repeat(5000) });
    assert.equal(garbage.status, 400);
    assert.match(await garbage.text(), /Please correct the marked fields/);
    const ok = await post(fields);
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), `/e/${project.id}/registered`);
  });

  test("apps read the page settings freely and change them only with project:write", async () => {
    const reader = await createApp(server.services, { permissions: ["agenda:read"] });
    await server.services.projects.update({ kind: "system" }, reader.projectId, { status: "PUBLISHED" });
    const writer = await createApp(server.services, {
      projectId: reader.projectId,
      ownerId: reader.ownerId,
      permissions: ["project:write"],
    });
    const read = `query ($id: ID!) { project(id: $id) { eventPage { path pageEnabled registrationOpen companyField } } }`;
    const update = `mutation ($input: UpdateEventPageInput!) {
      updateEventPage(input: $input) { eventPage { registrationOpen companyField } userErrors { field message } } }`;
    const input = {
      projectId: reader.projectId,
      pageEnabled: true,
      registrationOpen: false,
      companyField: "REQUIRED",
    };
    const before = await gql(server.url, read, { variables: { id: reader.projectId } });
    assert.deepEqual(before.body.data.project.eventPage, {
      path: `/e/${reader.projectId}`,
      pageEnabled: true,
      registrationOpen: true,
      companyField: "OPTIONAL",
    });
    const refused = await gql(server.url, update, { token: reader.token, variables: { input } });
    assert.equal(refused.body.errors[0].extensions.code, "FORBIDDEN");
    assert.equal(refused.body.errors[0].extensions.requiredPermission, "project:write");
    const anonymous = await gql(server.url, update, { variables: { input } });
    assert.equal(anonymous.body.errors[0].extensions.code, "FORBIDDEN");
    const changed = await gql(server.url, update, { token: writer.token, variables: { input } });
    assert.deepEqual(changed.body.data.updateEventPage, {
      eventPage: { registrationOpen: false, companyField: "REQUIRED" },
      userErrors: [],
    });
    // The cached public answer is not served stale after the change.
    const after = await gql(server.url, read, { variables: { id: reader.projectId } });
    assert.equal(after.body.data.project.eventPage.registrationOpen, false);
  });

  test("answers 429 with Retry-After once an address used its registrations for the hour", async () => {
    const { project, free } = await seedEvent(server);
    const form = await (await fetch(`${server.url}/e/${project.id}/register`)).text();
    const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(form)?.[1] ?? "";
    const body = new URLSearchParams({
      idempotencyKey: hidden("idempotencyKey"),
      issuedAt: hidden("issuedAt"),
      signature: hidden("signature"),
      ticketTypeId: free.id,
      name: "Script Kiddie",
      email: "script@example.test",
    });
    const statuses: number[] = [];
    for (let i = 0; i < 70 && !statuses.includes(429); i++) {
      const response = await fetch(`${server.url}/e/${project.id}/register`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body,
      });
      statuses.push(response.status);
      if (response.status === 429) assert.equal(response.headers.get("retry-after"), "3600");
    }
    assert.ok(statuses.includes(429), "never slowed");
    // The one form registered once however often it came.
    assert.deepEqual([...new Set(statuses)].sort(), [303, 429]);
  });
});
