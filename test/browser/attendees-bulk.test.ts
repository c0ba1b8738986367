import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { parse } from "csv-parse/sync";
import type { Page } from "playwright-core";
import { describeInBrowser, screenshot, widths } from "../helpers/browser.js";
import { createProject, createTicketType, createUser, userActor } from "../helpers/factories.js";

async function assertFits(page: Page, what: string, width: number): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  // Names the widest elements, so a failure says what to fix.
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .filter((e) => {
        for (let p = e.parentElement; p; p = p.parentElement)
          if (getComputedStyle(p).overflowX !== "visible") return false;
        return true;
      })
      .slice(0, 3)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
  );
  assert.ok(overflow <= 0, `${what} is ${overflow} px wider than the ${width} px window: ${wide.join(", ")}`);
}

// The email column's header is not one the import recognises, so the organizer maps it by hand.
function attendeeCsv(projectId: string): string {
  return [
    "Full name,Attendee e-mail address,Company,Ticket type",
    `Ada Lovelace,ada-${projectId}@example.org,Analytical Engines,Standard`,
    `Grace Hopper,grace-${projectId}@example.org,US Navy,standard`,
    `Vip One,vip1-${projectId}@example.org,,VIP`,
    `Vip Two,vip2-${projectId}@example.org,,VIP`,
    "Broken Mail,not-an-email,,Standard",
    `Nobody,nobody-${projectId}@example.org,,Platinum`,
    `Ada Again,ADA-${projectId}@example.org,,Standard`,
  ].join("\n");
}

// The whole bulk story in Chromium: import with mapping and per-row problems, re-import, filters,
// export, bulk cancel, and the Overview's figures and Publish button. At 390 px it runs with
// JavaScript off, which proves every step works without it.
describeInBrowser(
  "attendees in bulk and the Overview in Chromium at 390 px (no JavaScript) and 1280 px",
  {},
  (fx) => {
    for (const width of widths) {
      test(`imports, re-imports, filters, exports, bulk-cancels and publishes at ${width} px`, async () => {
        const user = await createUser(fx.server.services, { name: "Ada Organizer" });
        const actor = userActor(user.id);
        const now = Date.now();
        const { project } = await createProject(fx.server.services, {
          ownerId: user.id,
          input: {
            timezone: "UTC",
            startsAt: new Date(now - 3_600_000).toISOString(),
            endsAt: new Date(now + 3_600_000).toISOString(),
          },
        });
        await createTicketType(fx.server.services, actor, project.id, { name: "Standard", quantity: 100 });
        const vip = await createTicketType(fx.server.services, actor, project.id, {
          name: "VIP",
          quantity: 1,
          priceMinor: 25000,
          currency: "USD",
        });
        const base = `${fx.server.url}/b/${project.id}`;
        const javaScriptEnabled = width !== 390;
        const page = await fx.page(width, user, { acceptDownloads: true, javaScriptEnabled });

        const upload = async () => {
          await page.goto(`${base}/attendees`);
          await page.getByRole("link", { name: "Import CSV" }).click();
          await page.getByRole("heading", { name: "Import attendees" }).waitFor();
          await assertFits(page, "the upload page", width);
          await page.getByLabel("CSV file").setInputFiles({
            name: "attendees.csv",
            mimeType: "text/csv",
            buffer: Buffer.from(attendeeCsv(project.id)),
          });
          await page.getByRole("button", { name: "Upload and preview" }).click();
          await page.getByRole("heading", { name: "Import attendees.csv" }).waitFor();
          // The email column was not recognised: nothing is checked until it is mapped.
          assert.equal(await page.getByRole("button", { name: /^Import \d+ attendees?$/ }).count(), 0);
          await page.getByLabel("Email", { exact: true }).selectOption({ label: "Attendee e-mail address" });
          await page.getByRole("button", { name: "Check again with this mapping" }).click();
          await page.getByRole("heading", { name: "Check" }).waitFor();
        };

        await upload();
        await assertFits(page, "the preview", width);
        const problems = page.getByRole("table", { name: /Rows that will be skipped/ });
        for (const [line, text] of [
          ["5", "Sold out"],
          ["6", "Invalid"],
          ["7", "Unknown ticket type"],
          ["8", "Duplicate"],
        ] as const) {
          const row = problems
            .getByRole("row")
            .filter({ has: page.getByRole("cell", { name: line, exact: true }) });
          assert.match((await row.textContent()) ?? "", new RegExp(text), `line ${line}`);
        }
        if (width === 1280) await screenshot(page, "attendees-import-preview");
        await page.getByRole("button", { name: "Import 3 attendees" }).click();
        await page.getByRole("heading", { name: "Import finished" }).waitFor({ timeout: 30_000 });
        assert.match((await page.getByRole("status").allTextContents()).join(" "), /3 imported, 4 skipped/);
        assert.equal(await page.locator("progress").getAttribute("value"), "7");
        await page.getByRole("link", { name: "See the attendees" }).click();
        await page.getByText("1–3 of 3").waitFor();

        // The same file again: every row is already registered or refused, nothing to import.
        await upload();
        await page.getByText("No row can be imported.").waitFor();
        assert.equal(await page.getByRole("button", { name: /^Import \d+ attendees?$/ }).count(), 0);

        // Filters, sorting and the count.
        await page.goto(`${base}/attendees`);
        const filters = page.getByRole("form", { name: "Filter attendees" });
        await filters.getByLabel("Ticket type").selectOption({ label: "VIP" });
        await filters.getByLabel("Sort by").selectOption({ label: "Name" });
        await filters.getByRole("button", { name: "Search" }).click();
        await page.getByText("1–1 of 1").waitFor();
        assert.ok(await page.getByText("Vip One").isVisible());
        await assertFits(page, "the filtered list", width);

        // Export of the current filter (VIP only), parsed.
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("link", { name: "Export CSV" }).click(),
        ]);
        const path = await download.path();
        const exported = parse(await readFile(path ?? assert.fail("no download")), {
          columns: true,
        }) as Record<string, string>[];
        assert.deepEqual(
          exported.map((r) => [r.name, r.ticket_type, r.ticket_type_id]),
          [["Vip One", "VIP", vip.id]],
        );
        assert.match(exported[0]?.ticket_code ?? "", /^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);

        // Check one in, then bulk-cancel two of the Standard attendees.
        const access = await fx.server.services.access.require(actor, project.id);
        const all = await fx.server.services.attendees.countAttendees(access, {});
        assert.equal(all, 3);
        const ada = (
          await fx.server.services.attendees.listAttendees(
            access,
            { search: "ada" },
            { limit: 5, after: undefined, before: undefined, backward: false },
          )
        ).items[0];
        await fx.server.services.checkins.checkIn(actor, { attendeeId: ada?.id ?? "" });
        await page.goto(`${base}/attendees?sort=name`);
        await page.getByRole("checkbox", { name: "Select Ada Lovelace" }).check();
        await page.getByRole("checkbox", { name: "Select Grace Hopper" }).check();
        if (width === 1280) await screenshot(page, "attendees-list");
        await page.getByRole("button", { name: "Cancel selected…" }).click();
        await page.getByRole("heading", { name: "Cancel 2 registrations?" }).waitFor();
        await assertFits(page, "the bulk cancel confirmation", width);
        await page.getByRole("button", { name: "Cancel 2 registrations" }).click();
        await page.getByText("2 registrations are cancelled.").waitFor();
        assert.equal(await fx.server.services.attendees.countAttendees(access, { status: "REGISTERED" }), 1);

        // The Overview: figures, charts, and Publish without leaving it.
        await fx.server.services.checkins.checkIn(actor, {
          attendeeId:
            (
              await fx.server.services.attendees.listAttendees(
                access,
                { status: "REGISTERED" },
                { limit: 1, after: undefined, before: undefined, backward: false },
              )
            ).items[0]?.id ?? "",
        });
        await page.goto(base);
        await page.getByRole("heading", { name: "How the event is doing" }).waitFor();
        const figures = await page.locator(".stats").textContent();
        assert.match(figures ?? "", /Registrations\s*1\s*of 101/);
        assert.match(figures ?? "", /\$250\.00/);
        assert.match(figures ?? "", /Checked in\s*100%/);
        assert.ok(await page.getByRole("img", { name: /Registrations over time/ }).isVisible());
        assert.ok(await page.getByRole("img", { name: /Check-ins per 15 minutes/ }).isVisible());
        assert.ok(await page.getByRole("meter", { name: "VIP: 1 of 1 sold" }).isVisible());
        await assertFits(page, "the Overview", width);
        await page.getByRole("button", { name: "Publish", exact: true }).click();
        await page.getByText("The project is published.").waitFor();
        assert.equal(new URL(page.url()).pathname, `/b/${project.id}`);
        if (width === 1280) await screenshot(page, "overview");
        await page.getByRole("button", { name: "Unpublish" }).click();
        await page.getByText("The project is a draft again.").waitFor();
      });
    }
  },
);
