import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import { runCliInProcess } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import {
  addMember,
  createAttendee,
  createPublishedProject,
  createTicketType,
  createUser,
  userActor,
} from "../helpers/factories.js";
import { HttpClient } from "../helpers/http-client.js";
import { logIn } from "../helpers/log-in.js";
import { serverPerSuite } from "../helpers/test-server.js";

// The waiting-list page's "Download CSV": the CLI's export over HTTP, behind the page's own checks.

for (const engine of testEngines()) {
  describe(`waiting list CSV in the dashboard (${engine.name})`, () => {
    const server = serverPerSuite(engine);
    let addresses = 0;

    /** A published event whose two sold-out ticket types have people in line, the first twice. */
    async function lines() {
      const services = server.services;
      const owner = await createUser(services, { name: "Olga Owner" });
      const { project, owner: actor } = await createPublishedProject(services);
      await addMember(services, actor, project.id, owner.email, "OWNER");
      const pass = await createTicketType(services, actor, project.id, {
        name: "Pass",
        quantity: 1,
        priceMinor: 0,
      });
      const workshop = await createTicketType(services, actor, project.id, {
        name: "Workshop",
        quantity: 1,
        priceMinor: 0,
      });
      await createAttendee(services, actor, project.id, pass.id);
      await createAttendee(services, actor, project.id, workshop.id);
      const join = (ticketTypeId: string, name: string) =>
        services.waitingList.join(
          {
            projectId: project.id,
            ticketTypeId,
            name,
            email: `${name.toLowerCase()}-${project.id}@example.org`,
          },
          `192.0.2.${++addresses}`,
        );
      await join(pass.id, "Ada");
      await join(workshop.id, "Cy");
      await join(pass.id, "Bob");
      return { project, actor, owner, pass, workshop };
    }

    const csvRows = (body: string) => parse(body, { columns: true }) as Record<string, string>[];

    test("refuses strangers, another event's organizer and the logged-out, and names nobody to them", async () => {
      const { project } = await lines();
      const path = `/b/${project.id}/waiting-list/export.csv`;
      const stranger = await createUser(server.services);
      const otherOrganizer = await createUser(server.services);
      const { project: other, owner: otherActor } = await createPublishedProject(server.services);
      await addMember(server.services, otherActor, other.id, otherOrganizer.email, "OWNER");
      for (const email of [stranger.email, otherOrganizer.email]) {
        const refused = await (await logIn(server.url, email)).get(path);
        assert.equal(refused.status, 404, email);
        assert.doesNotMatch(refused.body, new RegExp(`-${project.id}@example\\.org|Waiting list`));
        assert.notEqual(refused.headers.get("content-type")?.split(";")[0], "text/csv");
      }
      // Their own project's export does not reach into this one's entries either.
      const own = await (await logIn(server.url, otherOrganizer.email)).get(
        `/b/${other.id}/waiting-list/export.csv`,
      );
      assert.equal(own.status, 200);
      assert.deepEqual(csvRows(own.body), []);
      const anonymous = await new HttpClient(server.url).get(path);
      assert.equal(anonymous.status, 303);
      assert.match(anonymous.headers.get("location") ?? "", /^\/login/);
    });

    test("the page's permission check is the service's: no attendees:read, no CSV", async () => {
      const { project, actor } = await lines();
      const access = await server.services.access.require(actor, project.id);
      const withoutNames = { ...access, permissions: new Set(["tickets:read" as const]) };
      assert.throws(() => server.services.waitingList.exportCsv(withoutNames, undefined), {
        code: "FORBIDDEN",
      });
    });

    test("an organizer and a member download the page's filter, the same CSV as the CLI's export", async () => {
      const { project, owner, pass } = await lines();
      const client = await logIn(server.url, owner.email);
      const page = await client.get(`/b/${project.id}/waiting-list?ticket=${pass.id}`);
      assert.match(
        page.body,
        new RegExp(`href="/b/${project.id}/waiting-list/export.csv\\?ticket=${pass.id}"`),
      );

      const all = await client.get(`/b/${project.id}/waiting-list/export.csv`);
      assert.equal(all.status, 200, all.body);
      assert.equal(all.headers.get("content-type"), "text/csv; charset=utf-8");
      assert.match(
        all.headers.get("content-disposition") ?? "",
        new RegExp(`^attachment; filename="waiting-list-${project.id}-\\d{4}-\\d\\d-\\d\\d\\.csv"$`),
      );
      assert.deepEqual(
        csvRows(all.body).map((r) => [r.place, r.ticket_type, r.name, r.state]),
        [
          ["1", "Pass", "Ada", "WAITING"],
          ["1", "Workshop", "Cy", "WAITING"],
          ["2", "Pass", "Bob", "WAITING"],
        ],
      );
      const cli = await runCliInProcess(["waiting-list", "export", "--project", project.id], {
        DATABASE_URL: server.config.databaseUrl,
      });
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal(all.body, cli.stdout);

      const filtered = await client.get(`/b/${project.id}/waiting-list/export.csv?ticket=${pass.id}`);
      assert.deepEqual(
        csvRows(filtered.body).map((r) => [r.place, r.name]),
        [
          ["1", "Ada"],
          ["2", "Bob"],
        ],
      );

      // Every role reads attendees (docs/roles.md), so a MEMBER downloads what the page shows them.
      const member = await createUser(server.services);
      await addMember(server.services, userActor(owner.id), project.id, member.email, "MEMBER");
      const asMember = await (await logIn(server.url, member.email)).get(
        `/b/${project.id}/waiting-list/export.csv`,
      );
      assert.equal(asMember.status, 200);
      assert.equal(csvRows(asMember.body).length, 3);
    });
  });
}
