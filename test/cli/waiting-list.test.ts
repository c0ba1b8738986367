import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import { runCliInProcess as eventgraph, onlyJson } from "../helpers/cli.js";
import { testEngines } from "../helpers/engines.js";
import {
  createAttendee,
  createPublishedProject,
  createTicketType,
  uniqueEmail,
} from "../helpers/factories.js";
import { temporaryFolder } from "../helpers/temporary.js";
import { createTestContext, type TestContext } from "../helpers/test-services.js";

for (const engine of testEngines()) {
  describe(`eventgraph waiting-list list / export (${engine.name})`, () => {
    let ctx: TestContext;
    let env: Record<string, string>;
    const dir = temporaryFolder("eventgraph-cli-waiting-list-");
    before(async () => {
      ctx = await createTestContext(engine);
      env = { DATABASE_URL: ctx.config.databaseUrl };
    });
    after(() => ctx.close());

    let addresses = 0;
    /** A project with two sold-out ticket types: Ada and Bob wait for the pass, Cy for the workshop. */
    async function lines() {
      const { project, owner } = await createPublishedProject(ctx.services);
      const pass = await createTicketType(ctx.services, owner, project.id, {
        name: "Pass",
        quantity: 1,
        priceMinor: 0,
      });
      const workshop = await createTicketType(ctx.services, owner, project.id, {
        name: "Workshop",
        quantity: 1,
        priceMinor: 0,
      });
      const holder = await createAttendee(ctx.services, owner, project.id, pass.id);
      await createAttendee(ctx.services, owner, project.id, workshop.id);
      const join = (ticketTypeId: string, name: string) =>
        ctx.services.waitingList.join(
          {
            projectId: project.id,
            ticketTypeId,
            name,
            email: uniqueEmail(/^\w+$/.test(name) ? name.toLowerCase() : "wait"),
          },
          `198.51.100.${++addresses % 250}`,
        );
      const ada = await join(pass.id, "Ada");
      await join(workshop.id, '=HYPERLINK("http://evil")');
      const bob = await join(pass.id, "Bob");
      const cy = await join(pass.id, "Cy");
      return { project, owner, pass, workshop, holder, ada, bob, cy };
    }

    test("refuses a missing --project, an unknown project and another project's ticket type", async () => {
      assert.equal((await eventgraph(["waiting-list", "list"], env)).code, 2);
      assert.equal((await eventgraph(["waiting-list", "export"], env)).code, 2);
      assert.equal((await eventgraph(["waiting-list", "list", "--project", "p1", "--nope"], env)).code, 2);
      const unknown = await eventgraph(["waiting-list", "list", "--project", "zzzz"], env);
      assert.deepEqual([unknown.code, unknown.stderr], [1, "error: Project not found\n"]);
      const { project } = await lines();
      const other = await lines();
      for (const command of ["list", "export"]) {
        const foreign = await eventgraph(
          ["waiting-list", command, "--project", project.id, "--ticket-type", other.pass.id],
          env,
        );
        assert.deepEqual(
          [foreign.code, foreign.stdout, foreign.stderr],
          [1, "", "error: Ticket type not found\n"],
        );
      }
    });

    test("lists the lines in order with places and states; --ticket-type keeps one line", async () => {
      const { project, owner, pass, holder, ada } = await lines();
      // A seat frees: Ada, first in line, is offered it; Bob and Cy move up.
      await ctx.services.attendees.cancelAttendee(owner, { id: holder.id });
      await ctx.services.waitingList.serve();
      const listed = await eventgraph(["waiting-list", "list", "--project", project.id, "--json"], env);
      assert.equal(listed.code, 0, listed.stderr);
      const { entries } = onlyJson(listed.stdout) as {
        entries: { id: string; place: number | null; ticketTypeName: string; name: string; state: string }[];
      };
      assert.deepEqual(
        entries.map((e) => [e.place, e.ticketTypeName, e.name, e.state]),
        [
          [null, "Pass", "Ada", "OFFERED"],
          [1, "Workshop", '=HYPERLINK("http://evil")', "WAITING"],
          [1, "Pass", "Bob", "WAITING"],
          [2, "Pass", "Cy", "WAITING"],
        ],
      );
      assert.equal(entries[0]?.id, ada.id);

      const text = await eventgraph(
        ["waiting-list", "list", "--project", project.id, "--ticket-type", pass.id],
        env,
      );
      assert.equal(text.code, 0, text.stderr);
      const rows = text.stdout.trimEnd().split("\n");
      assert.equal(rows.length, 3, text.stdout);
      assert.match(rows[0] ?? "", /^\s+OFFERED\s+Pass {2}Ada <ada-[^>]+> {2}held until \d{4}-/);
      assert.match(rows[1] ?? "", /^\s+#1 {2}WAITING\s+Pass {2}Bob </);
      assert.match(rows[2] ?? "", /^\s+#2 {2}WAITING\s+Pass {2}Cy </);

      const { project: empty } = await createPublishedProject(ctx.services);
      const none = await eventgraph(["waiting-list", "list", "--project", empty.id], env);
      assert.equal(none.stdout, "Nobody is on a waiting list.\n");
    });

    test("exports every entry as CSV to stdout or --out, formulas defused", async () => {
      const { project, owner, bob, workshop } = await lines();
      await ctx.services.waitingList.remove(owner, project.id, bob.id);
      const csv = await eventgraph(["waiting-list", "export", "--project", project.id], env);
      assert.equal(csv.code, 0, csv.stderr);
      const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
      assert.deepEqual(Object.keys(rows[0] ?? {}), [
        "place",
        "ticket_type",
        "name",
        "email",
        "state",
        "joined_at",
        "offered_at",
        "offer_expires_at",
        "id",
      ]);
      assert.deepEqual(
        rows.map((r) => [r.place, r.ticket_type, r.name, r.state]),
        [
          ["1", "Pass", "Ada", "WAITING"],
          ["1", "Workshop", '\'=HYPERLINK("http://evil")', "WAITING"],
          ["", "Pass", "Bob", "REMOVED"],
          ["2", "Pass", "Cy", "WAITING"],
        ],
      );

      const out = join(dir, `${project.id}.csv`);
      const written = await eventgraph(
        [
          "waiting-list",
          "export",
          "--project",
          project.id,
          "--ticket-type",
          workshop.id,
          "--out",
          out,
          "--json",
        ],
        env,
      );
      assert.equal(written.code, 0, written.stderr);
      assert.deepEqual(onlyJson(written.stdout), { out, rows: 1 });
      const file = parse(readFileSync(out, "utf8"), { columns: true }) as Record<string, string>[];
      assert.deepEqual(
        file.map((r) => r.ticket_type),
        ["Workshop"],
      );
    });
  });
}
