import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { sqliteEngine } from "../helpers/engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "../helpers/factories.js";
import { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { createOrganizer } from "../helpers/organizer.js";
import { serverPerSuite, type TestServer } from "../helpers/test-server.js";

/** Signs up through the dashboard and answers the page the redirect leads to (with its flash). */
async function signUp(server: TestServer, email: string) {
  const client = new HttpClient(server.url);
  await client.get("/signup");
  const answer = await client.post("/signup", {
    name: "Tom Newcomer",
    email,
    password: "correct horse battery staple",
  });
  assert.equal(answer.status, 303);
  return { client, page: await client.get(answer.headers.get("location") ?? "/") };
}

const flashText = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");

// Issue 38, "Honest screens and logs": without SMTP the screens said an email went out, and the log
// held secret links (one cancels a registration) though the README says logs hold no tokens.
describe("without SMTP on a real server (BASE_URL set): no secret in the log, the truth on screen", () => {
  const server = serverPerSuite(sqliteEngine, { BASE_URL: "https://events.example.org" });

  test("sign-up says no email was sent and how the operator verifies; the log has no link", async () => {
    const email = uniqueEmail("tom");
    const { page } = await signUp(server, email);
    const text = flashText(page.body);
    assert.match(text, /No email was sent \(this server has no SMTP_URL\)/);
    assert.match(text, new RegExp(`eventgraph users verify --email ${email}`));
    assert.doesNotMatch(text, /We sent/);
    assert.doesNotMatch(server.logs.text, /token=|verify-email\?/);
    assert.match(server.logs.text, /Email not sent: no SMTP_URL is set/);
  });

  test("an invitation shows its link to the inviter instead of claiming it was emailed", async () => {
    const { user, project } = await createOrganizer(server.services);
    const projectId = project.id;
    const client = await logIn(server.url, user.email);
    await client.get(`/b/${projectId}/settings/members`);
    const invited = await client.post(`/b/${projectId}/settings/members`, {
      email: "tom@example.org",
      role: "MEMBER",
    });
    assert.equal(invited.status, 303);
    const text = flashText((await client.get(`/b/${projectId}/settings/members`)).body);
    assert.doesNotMatch(text, /We emailed/);
    const link =
      /Send tom@example\.org this link to join as a member yourself \(valid 7 days\): (\S+\/invite\?token=[\w-]+)/.exec(
        text,
      );
    assert.ok(link, text);
    const token = /token=([\w-]+)/.exec(link[1] ?? "")?.[1] ?? "";
    assert.ok(!server.logs.text.includes(token), "the invitation's secret is not in the log");
  });

  test("a registration on the event page leaves its manage link out of the log and says no email comes", async () => {
    const { project, owner } = await createPublishedProject(server.services);
    const ticket = await createTicketType(server.services, owner, project.id, { priceMinor: 0 });
    const before = server.logs.lines.length;
    const outcome = await server.services.eventPage.register(
      {
        projectId: project.id,
        ticketTypeId: ticket.id,
        name: "Walk In",
        email: uniqueEmail("walk"),
        idempotencyKey: randomUUID(),
      },
      "10.1.2.3",
    );
    assert.equal(outcome.kind, "registered");
    const logged = server.logs.lines.slice(before).join("\n");
    assert.doesNotMatch(logged, /\/registration\//);
    assert.match(logged, /Email not sent/);
  });
});

describe("without SMTP on a development server (BASE_URL unset)", () => {
  const server = serverPerSuite(sqliteEngine);

  test("sign-up says the link is in the log, and it is", async () => {
    const email = uniqueEmail("dev");
    const { page } = await signUp(server, email);
    assert.match(flashText(page.body), /the verification link is in the server log/);
    assert.match(server.logs.text, /verify-email\?token=/);
  });
});
