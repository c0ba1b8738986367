import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createAttendee,
  createProject,
  createTicketType,
  uniqueEmail,
  userActor,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import type { Actor } from "../access/actor.js";
import { guessMapping, maxImportRows, parseAttendeeCsv } from "./attendees-csv.js";
import { exportPageSize } from "./attendees-export.js";

const csvLine = (cells: string[]) => cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(",");

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += chunk.toString();
  return out;
}

for (const engine of testEngines()) {
  describe(`attendee CSV import and export (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    async function newProject() {
      const { project, ownerId } = await createProject(ctx.services);
      return { project, owner: userActor(ownerId) };
    }

    async function importText(actor: Actor, projectId: string, csv: string, dryRun: boolean) {
      const parsed = await parseAttendeeCsv(csv);
      return ctx.services.attendeeFiles.importRows(actor, projectId, parsed, guessMapping(parsed.headers), {
        dryRun,
      });
    }

    test("refuses text that is not CSV, an empty file and too many rows with BAD_USER_INPUT", async () => {
      await assert.rejects(parseAttendeeCsv('name,email\n"unclosed,a@b.co\n'), { code: "BAD_USER_INPUT" });
      await assert.rejects(parseAttendeeCsv(""), { code: "BAD_USER_INPUT" });
      const big = `name,email\n${"A,a@b.co\n".repeat(maxImportRows + 1)}`;
      await assert.rejects(parseAttendeeCsv(big), (error: Error & { details?: unknown }) => {
        assert.match(JSON.stringify(error.details), /more than 20,000 rows/);
        return true;
      });
    });

    test("reports each bad row (email, ticket type, sold out, duplicate) and imports only the valid ones", async () => {
      const { project, owner } = await newProject();
      const standard = await createTicketType(ctx.services, owner, project.id, {
        name: "Standard",
        quantity: 100,
      });
      await createTicketType(ctx.services, owner, project.id, { name: "VIP", quantity: 1 });
      const already = await createAttendee(ctx.services, owner, project.id, standard.id);
      const csv = [
        "Name,E-mail,Company,Ticket type",
        csvLine(["Ann Able", "ann@example.org", "Acme", "Standard"]),
        csvLine(["Bad Mail", "not-an-email", "", "Standard"]),
        csvLine(["Who Knows", "who@example.org", "", "Platinum"]),
        csvLine(["Vic First", "vic1@example.org", "", "vip"]),
        csvLine(["Vic Second", "vic2@example.org", "", "VIP"]),
        csvLine(["Ann Again", "ANN@example.org", "", "Standard"]),
        csvLine(["Old Friend", already.email, "", "Standard"]),
      ].join("\n");

      const dry = await importText(owner, project.id, csv, true);
      assert.equal(dry.imported, 2, "Ann and the first VIP");
      assert.deepEqual(
        dry.problems.map((p) => [p.line, p.kind]),
        [
          [3, "invalid"],
          [4, "unknown-ticket-type"],
          [6, "sold-out"],
          [7, "duplicate"],
          [8, "duplicate"],
        ],
      );
      const access = await ctx.services.access.require(owner, project.id);
      assert.equal(await ctx.services.attendees.countAttendees(access, {}), 1, "a dry run writes nothing");

      const real = await importText(owner, project.id, csv, false);
      assert.equal(real.imported, 2);
      assert.deepEqual(real.problems, dry.problems);
      assert.equal(await ctx.services.attendees.countAttendees(access, {}), 3);

      const again = await importText(owner, project.id, csv, false);
      assert.equal(again.imported, 0, "re-importing the same file registers nobody twice");
      assert.equal(await ctx.services.attendees.countAttendees(access, {}), 3);
    });

    test("applies the API's rules to apps: no attendees:write is FORBIDDEN, a closed sales window refuses", async () => {
      const { project, owner } = await newProject();
      await createTicketType(ctx.services, owner, project.id, {
        name: "Early",
        salesEndAt: new Date(Date.now() - 86_400_000).toISOString(),
      });
      const csv = `name,email,ticket\nAda,${uniqueEmail("ada")},Early\n`;
      await assert.rejects(importText(appActor(project.id, ["attendees:read"]), project.id, csv, true), {
        code: "FORBIDDEN",
      });
      const app = await importText(appActor(project.id, ["attendees:write"]), project.id, csv, true);
      assert.equal(app.imported, 0);
      assert.match(app.problems[0]?.message ?? "", /not on sale/);
      const organizer = await importText(owner, project.id, csv, true);
      assert.equal(
        organizer.imported,
        1,
        "organizers may register outside the sales window, as in the dashboard",
      );
    });

    test("an upload is previewed, run with progress kept, and cannot run twice", async () => {
      const { project, owner } = await newProject();
      await createTicketType(ctx.services, owner, project.id, { name: "Standard" });
      const csv = `full name,email,ticket type\n${Array.from({ length: 1_200 }, (_, i) => `P${i},p${i}-${project.id}@example.org,Standard`).join("\n")}`;
      const upload = await ctx.services.attendeeFiles.upload(owner, project.id, "list.csv", Buffer.from(csv));
      assert.equal(upload.rowCount, 1_200);
      const preview = await ctx.services.attendeeFiles.preview(owner, project.id, upload.id);
      assert.deepEqual(preview.mapping, {
        name: 0,
        lastName: null,
        email: 1,
        company: null,
        ticketType: 2,
        answers: {},
      });
      assert.equal(preview.outcome?.imported, 100, "the default ticket type has 100 seats");
      await assert.rejects(
        ctx.services.attendeeFiles.preview(owner, project.id, upload.id, {
          map_name: "1",
          map_email: "1",
          map_ticketType: "2",
        }),
        { code: "BAD_USER_INPUT" },
      );
      const { done } = await ctx.services.attendeeFiles.start(owner, project.id, upload.id, {
        map_name: "0",
        map_email: "1",
        map_ticketType: "2",
      });
      await assert.rejects(
        ctx.services.attendeeFiles.start(owner, project.id, upload.id, {
          map_name: "0",
          map_email: "1",
          map_ticketType: "2",
        }),
        { code: "BAD_USER_INPUT" },
      );
      const outcome = await done;
      assert.equal(outcome.imported, 100);
      const finished = await ctx.services.attendeeFiles.get(owner, project.id, upload.id);
      assert.deepEqual(
        [finished.status, finished.processedRows, finished.importedRows, finished.skippedRows],
        ["DONE", 1_200, 100, 1_100],
      );
      const { project: other, owner: stranger } = await newProject();
      await assert.rejects(ctx.services.attendeeFiles.get(stranger, other.id, upload.id), {
        code: "NOT_FOUND",
      });
      await assert.rejects(
        ctx.services.attendeeFiles.upload(owner, project.id, "x.csv", Buffer.from([0xff, 0xfe, 0x00])),
        {
          code: "BAD_USER_INPUT",
        },
      );
    });

    test("exports the filter's attendees page by page, with check-in times and formulas kept as text", async () => {
      const { project, owner } = await newProject();
      await createTicketType(ctx.services, owner, project.id, { name: "Standard", quantity: 5_000 });
      const rows = Array.from({ length: 2_345 }, (_, i) => `N${i},n${i}@x-${project.id}.org,Standard`);
      rows[0] = `"=HYPERLINK(""http://evil"")",evil@x-${project.id}.org,Standard`;
      const outcome = await importText(owner, project.id, `name,email,ticket\n${rows.join("\n")}`, false);
      assert.equal(outcome.imported, 2_345);
      const access = await ctx.services.access.require(owner, project.id);
      const someone = (await ctx.services.attendees.listAttendees(access, {}, resolvePageArgs({ first: 3 })))
        .items[2];
      assert.ok(someone);
      await ctx.services.checkins.checkIn(owner, { attendeeId: someone.id });

      let pages = 0;
      const csv = await text(ctx.services.attendeeFiles.exportCsv(access, {}, () => pages++));
      assert.equal(pages, Math.ceil(2_345 / exportPageSize), "one statement per 1,000 rows");
      const records = parse(csv, { columns: true }) as Record<string, string>[];
      assert.equal(records.length, 2_345);
      const evil = records.find((r) => r.email === `evil@x-${project.id}.org`);
      assert.equal(evil?.name, `'=HYPERLINK("http://evil")`);
      const checked = records.filter((r) => r.checked_in_at !== "");
      assert.deepEqual(
        checked.map((r) => r.id),
        [someone.id],
      );
      assert.equal(records[0]?.ticket_type, "Standard");
      assert.equal(
        new Set(records.map((r) => r.ticket_code)).size,
        2_345,
        "every row has its own ticket code",
      );
      assert.equal(records.find((r) => r.id === someone.id)?.ticket_code, someone.ticketCode);

      const onlyChecked = parse(
        await text(ctx.services.attendeeFiles.exportCsv(access, { checkedIn: true })),
        {
          columns: true,
        },
      ) as Record<string, string>[];
      assert.deepEqual(
        onlyChecked.map((r) => r.id),
        [someone.id],
      );
      assert.throws(() => ctx.services.attendeeFiles.exportCsv({ ...access, permissions: new Set() }, {}), {
        code: "FORBIDDEN",
      });
    });

    test("lists by name with the position of a page, and filters by check-in", async () => {
      const { project, owner } = await newProject();
      const type = await createTicketType(ctx.services, owner, project.id);
      for (const name of ["Cleo", "Abe", "Bea", "Dan"])
        await createAttendee(ctx.services, owner, project.id, type.id, { name });
      const access = await ctx.services.access.require(owner, project.id);
      const first = await ctx.services.attendees.listAttendees(
        access,
        {},
        resolvePageArgs({ first: 2 }),
        "name",
      );
      assert.deepEqual(
        first.items.map((a) => a.name),
        ["Abe", "Bea"],
      );
      const second = await ctx.services.attendees.listAttendees(
        access,
        {},
        resolvePageArgs({ first: 2, after: first.endCursor }),
        "name",
      );
      assert.deepEqual(
        second.items.map((a) => a.name),
        ["Cleo", "Dan"],
      );
      const firstOfSecond = second.items[0];
      assert.ok(firstOfSecond);
      assert.equal(await ctx.services.attendees.countBefore(access, {}, "name", firstOfSecond), 2);
      const back = await ctx.services.attendees.listAttendees(
        access,
        {},
        resolvePageArgs({ last: 2, before: second.startCursor }),
        "name",
      );
      assert.deepEqual(
        back.items.map((a) => a.name),
        ["Abe", "Bea"],
      );
      await ctx.services.checkins.checkIn(owner, { attendeeId: firstOfSecond.id });
      const checked = await ctx.services.attendees.listAttendees(
        access,
        { checkedIn: true },
        resolvePageArgs({ first: 10 }),
      );
      assert.deepEqual(
        checked.items.map((a) => a.name),
        ["Cleo"],
      );
      assert.equal(await ctx.services.attendees.countAttendees(access, { checkedIn: false }), 3);
    });
  });
}
