import assert from "node:assert/strict";
import { describe, test } from "node:test";
import axe from "axe-core";
import ICAL from "ical.js";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot, widths } from "../helpers/browser.js";
import { sqliteEngine } from "../helpers/engines.js";
import {
  createApp,
  createProject,
  createSession,
  createTicketType,
  userActor,
} from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { Mailbox } from "../helpers/mailbox.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite, type TestServer } from "../helpers/test-server.js";

// Organizer text that tries everything: markup, a script, and the end of the JSON-LD element.
const xss = `Ada's </script><script>alert(1)</script><img src=x onerror=alert(2)> & "friends"`;

/** A published event with an agenda, speakers and three kinds of ticket, made by its organizer. */
async function seedEvent(server: TestServer) {
  const { user, actor, project } = await createOrganizer(server.services, {
    name: "Olga Organizer",
    project: {
      name: `Harbour Conf ${xss}`,
      description: `Two days by the sea.\n\n${xss}`,
      timezone: "Europe/Dublin",
      startsAt: "2026-10-05T08:00:00.000Z",
      endsAt: "2026-10-06T16:00:00.000Z",
      venue: { name: "Harbour Hall", address: "1 Quay Street", city: "Galway", country: "IE" },
      status: "PUBLISHED",
    },
  });
  const services = server.services;
  const room = await services.agenda.createRoom(actor, { projectId: project.id, name: "Main hall" });
  const track = await services.agenda.createTrack(actor, { projectId: project.id, name: "Web" });
  const speaker = await services.agenda.createSpeaker(actor, {
    projectId: project.id,
    name: "Grace Hopper",
    company: "US Navy",
    bio: `Compilers. ${xss}`,
  });
  const hidden = await services.agenda.createSpeaker(actor, { projectId: project.id, name: "Draft Speaker" });
  const keynote = await createSession(services, actor, project.id, {
    title:
      "Keynote; with a comma, a semicolon and a very long title that has to be folded in iCalendar lines",
    description: `Line one\nLine two, with ${xss}`,
    startsAt: "2026-10-05T08:30:00.000Z",
    roomId: room.id,
    trackId: track.id,
    speakerIds: [speaker.id],
    status: "PUBLISHED",
  });
  const dayTwo = await createSession(services, actor, project.id, {
    title: "Day two opening",
    startsAt: "2026-10-06T08:00:00.000Z",
    status: "PUBLISHED",
  });
  await createSession(services, actor, project.id, {
    title: "Secret draft session",
    speakerIds: [hidden.id],
    status: "DRAFT",
  });
  const free = await createTicketType(services, actor, project.id, {
    name: "Community pass",
    priceMinor: 0,
    quantity: 2,
  });
  const door = await createTicketType(services, actor, project.id, {
    name: "Door pass",
    priceMinor: 4900,
    paymentMode: "AT_DOOR",
  });
  const elsewhere = await createTicketType(services, actor, project.id, {
    name: "Corporate pass",
    priceMinor: 99000,
  });
  return { user, actor, project, speaker, keynote, dayTwo, free, door, elsewhere };
}

/** Runs axe-core in the page (through the debugging protocol, so the page's CSP does not apply). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  const result = await page.evaluate(() =>
    (globalThis as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ["violations"] }),
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

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

describeInBrowser("the public event site in Chromium", { mailbox: true }, (fx) => {
  for (const width of widths) {
    test(`the event and speaker pages fit ${width} px, run no script and pass axe`, async () => {
      const { project, speaker } = await seedEvent(fx.server);
      const page = await fx.page(width);
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      for (const path of [
        `/e/${project.id}`,
        `/e/${project.id}/speakers/${speaker.id}`,
        `/e/${project.id}/register`,
      ]) {
        const response = await page.goto(`${fx.server.url}${path}`);
        assert.equal(response?.status(), 200, path);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow} px wider than the ${width} px window`);
        assert.deepEqual(await axeViolations(page), [], path);
      }
      await page.goto(`${fx.server.url}/e/${project.id}`);
      assert.ok(await page.getByRole("heading", { level: 1, name: /Harbour Conf/ }).isVisible());
      assert.ok(await page.getByText("(Europe/Dublin time)").isVisible());
      assert.ok(await page.getByRole("heading", { name: "Monday, 5 October 2026" }).isVisible());
      assert.ok(await page.getByText("09:30").first().isVisible(), "08:30 UTC is 09:30 in Dublin");
      assert.equal(await page.getByRole("link", { name: /Register for Corporate pass/ }).count(), 0);
      const map = await page.getByRole("link", { name: /Map/ }).getAttribute("href");
      assert.equal(
        map,
        "https://www.openstreetmap.org/search?query=Harbour%20Hall%2C%201%20Quay%20Street%2C%20Galway%2C%20IE",
      );
      await screenshot(page, `event-page-${width}`);
      assert.deepEqual(dialogs, []);
    });
  }

  test("a visitor registers, gets the email with the ticket, and cancels through its link", async () => {
    const { project, actor, free } = await seedEvent(fx.server);
    const page = await fx.phone();
    await page.goto(`${fx.server.url}/e/${project.id}`);
    await page.getByRole("link", { name: "Register for Community pass" }).click();
    assert.equal(await page.getByLabel("Ticket").inputValue(), free.id);
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Email").fill("ada@example.test");
    await page.getByLabel("Company").fill("Analytical Engines");
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    // The browser's back button and a second click: still one registration.
    await page.goBack();
    await page.getByRole("button", { name: "Register" }).click();
    await page.getByRole("heading", { name: "Check your inbox" }).waitFor();
    const access = await fx.server.services.access.require(actor, project.id);
    const list = await fx.server.services.attendees.listAttendees(
      access,
      {},
      { limit: 10, after: undefined, before: undefined, backward: false },
    );
    assert.deepEqual(
      list.items.map((a) => [a.name, a.company]),
      [["Ada Lovelace", "Analytical Engines"]],
    );

    const mail = await fx.mailbox.latest("ada@example.test");
    assert.match(mail.text, /you are registered for Harbour Conf/);
    const code = /Ticket code: ([0-9A-Z-]{19})/.exec(mail.text)?.[1];
    assert.ok(code, mail.text);
    const [qr] = mail.attachments;
    assert.equal(qr?.filename, `ticket-${code}.svg`);
    assert.equal(qr?.contentType, "image/svg+xml");
    assert.match(qr?.content ?? "", /^<svg [^>]*role="img"/);
    assert.equal(fx.mailbox.to("ada@example.test").length, 1, "a repeated submit sends no second email");
    const link = Mailbox.linkIn(mail, fx.server.url);
    assert.match(link, new RegExp(`^/e/${project.id}/registration/[A-Za-z0-9_-]{43}$`));
    const manage = await page.goto(`${fx.server.url}${link}`);
    assert.equal(manage?.headers()["referrer-policy"], "no-referrer");
    assert.ok(await page.getByText("Ada Lovelace", { exact: true }).isVisible());
    assert.ok(await page.getByText("Community pass", { exact: true }).isVisible());
    assert.ok(await page.getByText(code).isVisible());
    assert.ok(await page.getByRole("img", { name: "Ticket QR code of Ada Lovelace" }).isVisible());
    assert.deepEqual(await axeViolations(page), []);
    await page.getByRole("button", { name: "Cancel my registration" }).click();
    await page.getByText("This registration is cancelled.").waitFor();
    assert.equal(await page.getByRole("button", { name: "Cancel my registration" }).count(), 0);
    const after = await fx.server.services.attendees.listAttendees(
      access,
      { status: "CANCELLED" },
      { limit: 10, after: undefined, before: undefined, backward: false },
    );
    assert.equal(after.items.length, 1);
  });

  test("the organizer closes registration in Settings → General and the page follows", async () => {
    const { project, user } = await seedEvent(fx.server);
    const page = await fx.desktop(user);
    await page.setViewportSize({ width: 390, height: 800 });
    await page.goto(`${fx.server.url}/b/${project.id}/settings`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the settings page is ${overflow} px wider than a 390 px phone`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel("Registration open").uncheck();
    await page.getByLabel("Company on the registration form").selectOption("HIDDEN");
    await page.getByRole("button", { name: "Save page settings" }).click();
    await page.getByText("Event page settings saved.").waitFor();
    await page.goto(`${fx.server.url}/e/${project.id}`);
    assert.ok(await page.getByText("Registration on this page is closed.").isVisible());
    assert.equal(await page.getByRole("link", { name: /^Register/ }).count(), 0);
    await page.goto(`${fx.server.url}/b/${project.id}/settings`);
    await page.getByLabel("Show the event page").uncheck();
    await page.getByRole("button", { name: "Save page settings" }).click();
    await page.getByText("Event page settings saved; the page is off.").waitFor();
    assert.equal((await fetch(`${fx.server.url}/e/${project.id}`)).status, 404);
  });
});
