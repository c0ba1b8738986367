import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { feedListens } from "../helpers/change-feed.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createProject } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { type PlainSql, plainSql } from "../helpers/plain-sql.js";
import { startTestServer, type TestServer } from "../helpers/test-server.js";
import { ownDatabase } from "../helpers/throwaway-database.js";

// PostgreSQL's TRUNCATE fires no row trigger: emptying an access table that way would move no
// project version and send no notification, so every server would go on answering revoked callers
// from memory and from its cache. SQLite has no TRUNCATE (a DELETE without WHERE fires the triggers).

const projectQuery = "query ($id: ID!) { project(id: $id) { name } }";

const postgres = testEngines().find((engine) => engine.name === "postgres");

describe("a TRUNCATE of an access table (postgres)", { skip: postgres ? false : "no PostgreSQL" }, () => {
  let server: TestServer;
  let sql: PlainSql;
  let drop = async () => {};

  before(async () => {
    const own = await ownDatabase(postgres as NonNullable<typeof postgres>, "truncate");
    drop = own.drop;
    server = await startTestServer(own.engine);
    sql = await plainSql(server.config.databaseUrl);
    await feedListens(server.services);
  });
  after(async () => {
    await sql?.close();
    await server?.close();
    await drop();
  });

  test("emptying app_links is refused as TRUNCATE, and holds at once as DELETE", async () => {
    const { app, token } = await createApp(server.services, { permissions: ["agenda:read"] });
    const { project, ownerId } = await createProject(server.services);
    await server.services.apps.authorize(
      { kind: "user", userId: ownerId },
      { appId: app.id, projectId: project.id },
    );
    const ask = () => gql(server.url, projectQuery, { token, variables: { id: project.id } });
    await ask();
    assert.equal((await ask()).body.extensions.cached, true);
    // Allowed, it emptied the table and the cached answer was still served to the app. (Without
    // `cascade`, PostgreSQL itself refuses it while OAuth grants reference links.)
    await assert.rejects(sql.run("truncate app_links"), /use DELETE|referenced in a foreign key/);
    await sql.run("delete from app_links");
    await feedListens(server.services);
    const late = await ask();
    assert.equal(late.body.data?.project ?? null, null, JSON.stringify(late.body));
  });

  test("every access table and the versions refuse TRUNCATE, cascading or not", async () => {
    for (const table of [
      "projects",
      "project_versions",
      "apps",
      "app_links",
      "project_members",
      "users",
      "oauth_grants",
      "oauth_tokens",
    ]) {
      await assert.rejects(sql.run(`truncate ${table} cascade`), /use DELETE/, table);
    }
  });
});
