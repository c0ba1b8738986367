import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { demoProjectInput, demoTimeZone, generateDemo, zonedTime } from "./demo.generator.js";

const now = new Date("2026-11-23T12:00:00Z");

// Everything but the ids, which are fresh on every run so one database can hold many demos.
function withoutIds(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (key, v) =>
      key === "id" || key.endsWith("_id") || key === "ticket_code" ? undefined : v,
    ),
  );
}

function localHour(iso: string): number {
  return Number(
    new Intl.DateTimeFormat("en-GB", { timeZone: demoTimeZone, hour: "2-digit", hourCycle: "h23" }).format(
      new Date(iso),
    ),
  );
}

describe("demo generator", () => {
  test("converts wall-clock times in the project's zone across a DST change", () => {
    // Berlin: UTC+2 in summer, UTC+1 in winter.
    assert.equal(
      new Date(zonedTime(Date.UTC(2026, 6, 1), 9 * 60, "Europe/Berlin")).toISOString(),
      "2026-07-01T07:00:00.000Z",
    );
    assert.equal(
      new Date(zonedTime(Date.UTC(2026, 11, 1), 9 * 60, "Europe/Berlin")).toISOString(),
      "2026-12-01T08:00:00.000Z",
    );
  });

  test("gives the same conference for the same seed and another for another seed", () => {
    const a = generateDemo("AAAA", "organizer", { scale: 1, seed: 7, now });
    const b = generateDemo("BBBB", "organizer", { scale: 1, seed: 7, now });
    const c = generateDemo("AAAA", "organizer", { scale: 1, seed: 8, now });
    assert.deepEqual(withoutIds(a), withoutIds(b));
    assert.notDeepEqual(withoutIds(a.speakers), withoutIds(c.speakers));
    assert.notEqual(a.attendees[0]?.id, b.attendees[0]?.id);
  });

  test("builds a realistic conference at scale 1", () => {
    const data = generateDemo("AAAA", "organizer", { scale: 1, seed: 1, now });
    assert.equal(data.sessions.length, 60);
    assert.equal(data.speakers.length, 80);
    assert.equal(data.attendees.length, 2000);
    assert.equal(data.tracks.length, 6);
    assert.deepEqual(
      data.ticketTypes.map((t) => t.name),
      ["Early Bird", "Regular", "Student", "Workshop Day", "Group (5+)"],
    );

    const statuses = new Map<string, number>();
    for (const s of data.sessions) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
    assert.ok((statuses.get("PUBLISHED") ?? 0) >= 48, "mostly published");
    assert.ok(
      (statuses.get("DRAFT") ?? 0) + (statuses.get("CANCELLED") ?? 0) >= 1,
      "a few drafts or cancellations",
    );

    // Three days, between 09:00 and 18:00 local time, never two sessions in one room at once.
    const project = demoProjectInput(now);
    const days = new Set(data.sessions.map((s) => s.starts_at.slice(0, 10)));
    assert.equal(days.size, 3);
    for (const s of data.sessions) {
      assert.ok(localHour(s.starts_at) >= 9 && localHour(s.ends_at) <= 18, s.starts_at);
      assert.ok(s.starts_at >= (project.startsAt ?? "") && s.ends_at <= (project.endsAt ?? ""));
    }
    const slots = new Set(data.sessions.map((s) => `${s.room_id}@${s.starts_at}`));
    assert.equal(slots.size, data.sessions.length);

    // 1–3 speakers per session, every speaker on at least one session, some on several.
    const perSession = new Map<string, number>();
    const perSpeaker = new Map<string, number>();
    for (const link of data.sessionSpeakers) {
      perSession.set(link.session_id, (perSession.get(link.session_id) ?? 0) + 1);
      perSpeaker.set(link.speaker_id, (perSpeaker.get(link.speaker_id) ?? 0) + 1);
    }
    assert.equal(perSession.size, data.sessions.length);
    assert.ok([...perSession.values()].every((n) => n >= 1 && n <= 3));
    assert.equal(perSpeaker.size, data.speakers.length);
    assert.ok([...perSpeaker.values()].some((n) => n > 1));

    // Some cancelled, about 40% checked in, only registered attendees checked in, emails unique.
    const cancelled = data.attendees.filter((a) => a.status === "CANCELLED");
    assert.ok(cancelled.length > 40 && cancelled.length < 200, `${cancelled.length} cancelled`);
    const ratio = data.checkIns.length / data.attendees.length;
    assert.ok(ratio > 0.35 && ratio < 0.45, `${ratio} checked in`);
    const cancelledIds = new Set(cancelled.map((a) => a.id));
    assert.ok(data.checkIns.every((c) => !cancelledIds.has(c.attendee_id)));
    assert.equal(new Set(data.attendees.map((a) => a.email_normalized)).size, data.attendees.length);

    // Ticket types: the early bird sold out and closed, others on sale now with room left.
    const registered = (typeId: string) =>
      data.attendees.filter((a) => a.ticket_type_id === typeId && a.status === "REGISTERED").length;
    const [early, regular] = data.ticketTypes;
    assert.ok(early && regular);
    assert.equal(early.quantity, registered(early.id ?? ""));
    assert.ok((early.sales_end_at ?? "") < now.toISOString());
    assert.ok(
      (regular.sales_end_at ?? "") > now.toISOString() && regular.quantity > registered(regular.id ?? ""),
    );
    assert.ok(
      data.ticketTypes.filter((t) => (t.sales_end_at ?? "") < now.toISOString()).length >= 2,
      "some off-sale",
    );
  });

  test("multiplies sessions, speakers, rooms and attendees with the scale", () => {
    const data = generateDemo("AAAA", "organizer", { scale: 10, seed: 1, now });
    assert.deepEqual([data.sessions.length, data.speakers.length, data.attendees.length], [600, 800, 20_000]);
    assert.equal(new Set(data.sessions.map((s) => `${s.room_id}@${s.starts_at}`)).size, 600);
  });
});

for (const engine of testEngines()) {
  describe(`demo seeding (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("rejects a scale that is not a whole number from 1 to 1000", async () => {
      await rejectsWithFieldErrors(ctx.services.demo.seed({ scale: 0, seed: 1 }), ["scale"]);
      await rejectsWithFieldErrors(ctx.services.demo.seed({ scale: 1.5, seed: -1 }), ["scale", "seed"]);
      await rejectsWithFieldErrors(ctx.services.demo.seed({ scale: 1001, seed: 1 }), ["scale"]);
    });

    test("stores a published project owned by a verified organizer, every row in its table", async () => {
      const result = await ctx.services.demo.seed({ scale: 1, seed: 3, now });
      const projectId = result.project.id;
      assert.equal(result.project.status, "PUBLISHED");
      const user = await ctx.services.users.authenticate(result.organizer.email, result.password);
      assert.equal(user?.emailVerified, true);
      const mine = await ctx.services.projects.listForUser(result.organizer.id);
      assert.deepEqual(
        mine.map((p) => [p.id, p.role]),
        [[projectId, "OWNER"]],
      );

      const count = async (
        table: "tracks" | "rooms" | "speakers" | "sessions" | "ticket_types" | "attendees" | "check_ins",
      ) =>
        Number(
          (
            await ctx.database.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as("n"))
              .where("project_id", "=", projectId)
              .executeTakeFirstOrThrow()
          ).n,
        );
      assert.deepEqual(
        {
          tracks: await count("tracks"),
          rooms: await count("rooms"),
          speakers: await count("speakers"),
          sessions: await count("sessions"),
          ticketTypes: await count("ticket_types"),
          attendees: await count("attendees"),
          checkIns: await count("check_ins"),
        },
        {
          tracks: result.counts.tracks,
          rooms: result.counts.rooms,
          speakers: 80,
          sessions: 60,
          ticketTypes: 5,
          attendees: 2000,
          checkIns: result.counts.checkIns,
        },
      );
      const links = await ctx.database.db
        .selectFrom("session_speakers")
        .innerJoin("sessions", "sessions.id", "session_speakers.session_id")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("sessions.project_id", "=", projectId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(links.n), result.counts.sessionSpeakers);
    });

    test("seeds twice into one database without collisions", async () => {
      const first = await ctx.services.demo.seed({ scale: 1, seed: 5 });
      const second = await ctx.services.demo.seed({ scale: 1, seed: 5 });
      assert.notEqual(first.project.id, second.project.id);
      assert.notEqual(first.organizer.email, second.organizer.email);
    });
  });
}
