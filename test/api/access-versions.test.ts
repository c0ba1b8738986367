import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { systemActor } from "../../src/modules/access/actor.js";
import { testEngines } from "../helpers/engines.js";
import { addMember, createApp, createProject, createUser } from "../helpers/factories.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { createTestContext, type TestContext } from "../helpers/test-services.js";

// What decides access lives in these tables, and a plain-SQL write to any of these columns must move
// the `project` version of the projects it concerns, in the database itself (migration
// 2026-11-28T10-00_access-versions): the response cache, the remembered tokens and the remembered
// access are all checked against it (docs/runtime.md). `(insert)` and `(delete)` stand for the row.
const accessTables: Record<string, readonly string[]> = {
  projects: ["status", "(delete)"],
  // api_version: the pinned API version, remembered with the token (migration 2026-11-29T04-40).
  apps: ["project_id", "permissions", "token_hash", "api_version", "(insert)", "(delete)"],
  app_links: ["permissions", "revoked_at", "(insert)", "(delete)"],
  project_members: ["role", "(insert)", "(delete)"],
  users: ["email_verified_at", "(delete)"],
  // An OAuth grant's revocation, scopes and link; its tokens' removal (migration 2026-11-29T01-00).
  oauth_grants: ["revoked_at", "scopes", "link_id", "(delete)"],
  oauth_tokens: ["(delete)"],
};

// Every other table, with the reason nothing remembered depends on it. A new table must be added to
// one of the two lists: a table that decides access and moves no version would let a revoked caller
// be answered from memory.
const otherTables: Record<string, string> = {
  event_translations:
    "the organizer's texts of the event page in other languages: written through ProjectChanges, so cached pages follow the data version",
  auth_sessions:
    "dashboard sessions: read on every dashboard request, remembered nowhere, never read by the API",
  email_tokens: "one-time email links: read when opened",
  project_invitations: "accepting one writes project_members, which is versioned",
  project_versions: "the versions themselves",
  tracks: "agenda data: the agenda area's version",
  rooms: "agenda data: the agenda area's version",
  speakers: "agenda data: the agenda area's version",
  sessions: "agenda data (talks, not logins): the agenda area's version",
  session_speakers: "agenda data: the agenda area's version",
  ticket_types: "ticket data: the tickets area's version",
  attendees: "attendee data: the attendees area's version",
  check_ins: "check-in data: the checkins area's version",
  overview_ticket_counts: "the Overview's counters, kept by triggers; read by the dashboard only",
  overview_registrations: "the Overview's counters, kept by triggers; read by the dashboard only",
  overview_check_ins: "the Overview's counters, kept by triggers; read by the dashboard only",
  event_page_settings: "what the public page shows, not who may see it (the project's status does)",
  public_registrations: "registrations' manage links: read on each request",
  attendee_imports: "an import's preview: read on each request",
  app_usage: "request counts per app and day",
  oauth_clients:
    "client secrets and redirect URIs: read at each token or authorization request, remembered nowhere",
  oauth_codes: "authorization codes: read once, at their exchange",
  server_secrets: "signing secrets: read once at start-up",
  audit_events: "a record of what happened",
  webhook_endpoints: "where events go; each delivery checks the link and permissions again",
  webhook_deliveries: "the delivery queue",
  webhook_attempts: "the delivery log",
  ticket_mails: "the ticket email outbox",
  messages: "organizers' messages to attendees: read by the dashboard and the mail worker, never by an app",
  registration_links: "an event-page registration's manage links: read when opened",
  orders: "order data: the attendees area's version (orders:write bumps attendees and tickets)",
  order_lines: "an order's lines, written with the order",
  discount_codes:
    "prices, not access: the tickets area's version (tickets:write and orders:write bump it); read through a project access already checked",
  order_settings: "the hold length and bank details an order is placed with: read at checkout",
  idempotency_keys: "API mutations' Idempotency-Keys: read on each keyed mutation, remembered nowhere",
  bulk_operations:
    "apps' bulk queries: the job decides nothing; each page re-resolves the app's access through its link",
  bulk_operation_chunks:
    "a bulk query's result, served by a signed link to whoever holds it; written only while the job runs as the app",
  payment_accounts: "a project's Stripe keys (encrypted): read when a checkout or refund calls Stripe",
  order_refunds: "an order's refunds, written with the order",
  payment_notifications: "provider event ids already applied: read by the webhook receiver only",
  invoices: "invoices as issued, written with the order under orders:write (the attendees area)",
  invoice_counters: "the last invoice number per project, taken in the issuing transaction",
  registration_questions:
    "what a registration asks, not who may see it: the tickets area's version (tickets:write bumps it)",
  question_translations:
    "a question's texts in other languages: written with the question, under the tickets area's version",
  attendee_answers: "attendees' answers: the attendees area's version, written under attendees:write",
  waiting_list_entries:
    "people waiting for a seat: the attendees and tickets areas' versions (written like registrations)",
  waiting_list_settings: "how long an offer holds its seat: read when an offer is made",
  kysely_migration: "the migrator's",
  kysely_migration_lock: "the migrator's",
};

async function tablesOf(sql: PlainSql, engine: string): Promise<string[]> {
  const rows =
    engine === "sqlite"
      ? await sql.all<{ name: string }>(
          // SQLite's own tables and the search index's shadow tables (a virtual table's storage).
          "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'attendees_search%'",
        )
      : await sql.all<{ name: string }>(
          "select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
        );
  return rows.map((row) => row.name).sort();
}

for (const engine of testEngines()) {
  describe(`access facts move the project version in the database (${engine.name})`, () => {
    let ctx: TestContext;
    let sql: PlainSql;
    before(async () => {
      ctx = await createTestContext(engine);
      sql = await plainSql(ctx.config.databaseUrl);
    });
    after(async () => {
      await sql?.close();
      await ctx?.close();
    });

    const version = async (projectId: string) =>
      (
        await sql.all<{ v: number }>(
          "select project_version as v from project_versions where project_id = ?",
          projectId,
        )
      )[0]?.v;

    /** Runs `write` and asserts that it moved exactly the versions of `moved` and none of `still`. */
    async function expectMoves(
      write: () => Promise<void>,
      moved: readonly string[],
      still: readonly string[] = [],
    ): Promise<void> {
      const before = new Map<string, number | undefined>();
      for (const id of [...moved, ...still]) before.set(id, await version(id));
      await write();
      for (const id of moved) {
        const now = await version(id);
        assert.ok(now === undefined || now !== before.get(id), `project ${id}'s version did not move`);
      }
      for (const id of still)
        assert.equal(await version(id), before.get(id), `project ${id}'s version moved`);
    }

    test("every table is classified as deciding access or not", async () => {
      const classified = [...Object.keys(accessTables), ...Object.keys(otherTables)].sort();
      assert.deepEqual(await tablesOf(sql, engine.name), classified);
    });

    test("an app's token, permissions, row and links move the versions of every project it reaches", async () => {
      const { app, projectId: home } = await createApp(ctx.services, { permissions: ["agenda:read"] });
      const { project: linked, ownerId } = await createProject(ctx.services);
      const { project: bystander } = await createProject(ctx.services);
      await ctx.services.apps.authorize(
        { kind: "user", userId: ownerId },
        { appId: app.id, projectId: linked.id },
      );
      const both = [home, linked.id];
      await expectMoves(() => sql.run("update apps set token_hash = 'x' where id = ?", app.id), both, [
        bystander.id,
      ]);
      await expectMoves(
        () => sql.run("update apps set permissions = 'agenda:read attendees:read' where id = ?", app.id),
        both,
      );
      await expectMoves(
        () => sql.run("update apps set api_version = '2026-09-01' where id = ?", app.id),
        both,
      );
      // Its use is not access: the usage counters must not evict every answer of its projects.
      await expectMoves(
        () => sql.run("update apps set last_used_at = ? where id = ?", "2026-01-01", app.id),
        [],
        both,
      );
      await expectMoves(
        () => sql.run("update app_links set permissions = 'agenda:read' where app_id = ?", app.id),
        [linked.id],
        [home],
      );
      await expectMoves(
        () => sql.run("update app_links set revoked_at = ? where app_id = ?", "2026-01-01", app.id),
        [linked.id],
      );
      await expectMoves(() => sql.run("delete from app_links where app_id = ?", app.id), [linked.id], [home]);
      await expectMoves(
        () => sql.run("update apps set project_id = ? where id = ?", bystander.id, app.id),
        [home, bystander.id],
      );
      await expectMoves(() => sql.run("delete from apps where id = ?", app.id), [bystander.id]);
    });

    test("an OAuth grant's revocation, scopes and link, and its tokens' deletion move its project's version", async () => {
      const { app, projectId: home } = await createApp(ctx.services, { permissions: ["agenda:read"] });
      const { project: linked, ownerId } = await createProject(ctx.services);
      const link = await ctx.services.apps.authorize(
        { kind: "user", userId: ownerId },
        { appId: app.id, projectId: linked.id },
      );
      const grantId = "00000000-0000-4000-8000-00000000feed";
      await sql.run(
        "insert into oauth_grants (id, app_id, project_id, link_id, scopes, created_at) values (?, ?, ?, ?, ?, ?)",
        grantId,
        app.id,
        linked.id,
        link.id,
        "agenda:read",
        "2026-01-01",
      );
      await sql.run(
        "insert into oauth_tokens (token_hash, grant_id, kind, scopes, created_at, expires_at) values (?, ?, 'access', ?, ?, ?)",
        "h",
        grantId,
        "agenda:read",
        "2026-01-01",
        "2099-01-01",
      );
      // Its use is not access: writing the last use must not evict the project's answers.
      await expectMoves(
        () => sql.run("update oauth_grants set last_used_at = ? where id = ?", "2026-01-02", grantId),
        [],
        [linked.id, home],
      );
      await expectMoves(
        () => sql.run("update oauth_grants set scopes = '' where id = ?", grantId),
        [linked.id],
        [home],
      );
      await expectMoves(
        () => sql.run("delete from oauth_tokens where grant_id = ?", grantId),
        [linked.id],
        [home],
      );
      await expectMoves(
        () => sql.run("update oauth_grants set revoked_at = ? where id = ?", "2026-01-03", grantId),
        [linked.id],
      );
      await expectMoves(() => sql.run("delete from oauth_grants where id = ?", grantId), [linked.id]);
    });

    test("a new app and a new link move their projects' versions", async () => {
      const { app, projectId: home } = await createApp(ctx.services);
      const { project: other } = await createProject(ctx.services);
      const columns = (await sql.all<{ name: string }>(columnsQuery(engine.name), "apps")).map((c) => c.name);
      const copied = columns.map((c) => (c === "id" ? "?" : c === "token_hash" ? "?" : c)).join(", ");
      await expectMoves(
        () =>
          sql.run(
            `insert into apps (${columns.join(", ")}) select ${copied} from apps where id = ?`,
            ...columns.flatMap((c) =>
              c === "id" ? [`${app.id.slice(0, -4)}beef`] : c === "token_hash" ? ["y"] : [],
            ),
            app.id,
          ),
        [home],
      );
      await expectMoves(
        () =>
          sql.run(
            "insert into app_links (id, app_id, project_id, authorized_at, permissions) values (?, ?, ?, ?, ?)",
            "00000000-0000-4000-8000-00000000abcd",
            app.id,
            other.id,
            "2026-01-01",
            "agenda:read",
          ),
        [other.id],
        [home],
      );
    });

    test("memberships, a user's verification and deletion, a project's status and deletion move versions", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const { project: other } = await createProject(ctx.services);
      const member = await createUser(ctx.services);
      await addMember(ctx.services, { kind: "user", userId: ownerId }, project.id, member.email, "MEMBER");
      await expectMoves(
        () =>
          sql.run(
            "update project_members set role = 'ADMIN' where user_id = ? and project_id = ?",
            member.id,
            project.id,
          ),
        [project.id],
        [other.id],
      );
      await expectMoves(
        () => sql.run("update users set email_verified_at = null where id = ?", member.id),
        [project.id],
        [other.id],
      );
      await expectMoves(
        () =>
          sql.run(
            "insert into project_members (project_id, user_id, role, created_at) values (?, ?, 'MEMBER', ?)",
            other.id,
            member.id,
            "2026-01-01",
          ),
        [other.id],
        [project.id],
      );
      await expectMoves(
        () =>
          sql.run("delete from project_members where user_id = ? and project_id = ?", member.id, other.id),
        [other.id],
      );
      await expectMoves(() => sql.run("delete from users where id = ?", member.id), [project.id], [other.id]);
      await expectMoves(
        () => sql.run("update projects set status = 'PUBLISHED' where id = ?", project.id),
        [project.id],
      );
      // A write that sets the status to itself changes no access (the membership lock does that).
      await expectMoves(
        () => sql.run("update projects set status = status where id = ?", project.id),
        [],
        [project.id],
      );
      await sql.run("delete from projects where id = ?", project.id);
      assert.equal(await version(project.id), undefined, "a deleted project's versions go with it");
      // The product's own write path still moves the version too.
      await expectMoves(async () => {
        await ctx.services.projects.update(systemActor, other.id, { name: "Renamed" });
      }, [other.id]);
    });
  });
}

function columnsQuery(engine: string): string {
  return engine === "sqlite"
    ? "select name from pragma_table_info(?)"
    : "select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ? order by ordinal_position";
}
