import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  createAttendee,
  createProject,
  createPublishedProject,
  createTicketType,
  uniqueEmail,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { AppError } from "../../errors.js";
import { resolvePageArgs } from "../../shared/pagination.js";
import type { PageRegistrationInput } from "./event-page.service.js";

const allOf = resolvePageArgs({ first: 100 });

function failsWith(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    return true;
  };
}

for (const engine of testEngines()) {
  describe(`registration on the event page (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    /** A published event with a free ticket type, and a form submit for it. */
    async function event(ticket: Parameters<typeof createTicketType>[3] = { priceMinor: 0 }) {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id, ticket);
      const submit = (overrides: Partial<PageRegistrationInput> = {}): PageRegistrationInput => ({
        projectId: project.id,
        ticketTypeId: ticketType.id,
        name: "Ada Visitor",
        email: uniqueEmail("visitor"),
        idempotencyKey: randomUUID(),
        ...overrides,
      });
      const register = (
        input: PageRegistrationInput,
        ip = `10.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
      ) => ctx.services.eventPage.register(input, ip);
      const attendees = async () => {
        const access = await ctx.services.access.require(owner, project.id);
        return (await ctx.services.attendees.listAttendees(access, {}, allOf)).items;
      };
      return { project, owner, ticketType, submit, register, attendees };
    }

    /** The manage link's secret from the confirmation logged for `email` (no SMTP in these tests). */
    function linkSecretFor(email: string): string {
      const line = ctx.logs.lines.findLast((l) => l.includes(email) && l.includes("/registration/"));
      assert.ok(line, `no confirmation for ${email}`);
      const match = /\/registration\/([A-Za-z0-9_-]+)/.exec(line);
      assert.ok(match?.[1]);
      return match[1];
    }

    test("a draft, an archived and a missing project take no registration, and all look the same", async () => {
      const { project, ownerId } = await createProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, { kind: "user", userId: ownerId }, project.id, {
        priceMinor: 0,
      });
      for (const projectId of [project.id, "Zz9Q", "../x"]) {
        await assert.rejects(
          ctx.services.eventPage.register(
            {
              projectId,
              ticketTypeId: ticketType.id,
              name: "A",
              email: uniqueEmail(),
              idempotencyKey: randomUUID(),
            },
            "10.9.9.9",
          ),
          (error: unknown) =>
            failsWith("NOT_FOUND")(error) && (error as Error).message === "Project not found",
        );
      }
    });

    test("refuses when the page is off or registration is closed, and a paid type without a payment mode", async () => {
      const paid = await event({ priceMinor: 4900 });
      await assert.rejects(paid.register(paid.submit()), failsWith("CONFLICT"));
      const free = await event();
      await ctx.services.eventPage.updateSettings(free.owner, free.project.id, {
        pageEnabled: true,
        registrationOpen: false,
        companyField: "OPTIONAL",
      });
      await assert.rejects(free.register(free.submit()), failsWith("CONFLICT"));
      await ctx.services.eventPage.updateSettings(free.owner, free.project.id, {
        pageEnabled: false,
        registrationOpen: true,
        companyField: "OPTIONAL",
      });
      await assert.rejects(free.register(free.submit()), failsWith("NOT_FOUND"));
      assert.equal((await free.attendees()).length + (await paid.attendees()).length, 0);
    });

    test("enforces the sales window and the capacity like the API", async () => {
      const future = await event({ priceMinor: 0, salesStartAt: "2099-01-01T00:00:00.000Z" });
      await assert.rejects(future.register(future.submit()), failsWith("CONFLICT"));
      const small = await event({ priceMinor: 0, quantity: 1 });
      await small.register(small.submit());
      await assert.rejects(small.register(small.submit()), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.match(error.message, /sold out/);
        return true;
      });
      assert.equal((await small.attendees()).length, 1);
    });

    test("registers a paid ticket paid at the door, with the company as the organizer asked", async () => {
      const door = await event({ priceMinor: 2500, paymentMode: "AT_DOOR" });
      await ctx.services.eventPage.updateSettings(door.owner, door.project.id, {
        pageEnabled: true,
        registrationOpen: true,
        companyField: "REQUIRED",
      });
      await rejectsWithFieldErrors(door.register(door.submit()), ["company"]);
      const outcome = await door.register(door.submit({ company: "Analytical Engines Ltd" }));
      assert.equal(outcome.kind, "registered");
      const [attendee] = await door.attendees();
      assert.equal(attendee?.company, "Analytical Engines Ltd");

      await ctx.services.eventPage.updateSettings(door.owner, door.project.id, {
        pageEnabled: true,
        registrationOpen: true,
        companyField: "HIDDEN",
      });
      const email = uniqueEmail("hidden");
      await door.register(door.submit({ email, company: "Should not be kept" }));
      const hidden = (await door.attendees()).find((a) => a.email === email);
      assert.equal(hidden?.company, null);
    });

    test("a double submit of one form registers once, also when both arrive at the same time", async () => {
      const e = await event();
      const input = e.submit();
      const [first, second] = await Promise.all([e.register(input), e.register(input)]);
      const kinds = [first.kind, second.kind].sort();
      assert.deepEqual(kinds, ["registered", "repeat"]);
      const third = await e.register(input);
      assert.equal(third.kind, "repeat");
      assert.equal((await e.attendees()).length, 1);
    });

    test("an email already registered gets a new link by mail, and the page says nothing different", async () => {
      const e = await event();
      const email = uniqueEmail("twice");
      await createAttendee(ctx.services, e.owner, e.project.id, e.ticketType.id, { email });
      const outcome = await e.register(e.submit({ email: email.toUpperCase() }));
      assert.equal(outcome.kind, "existing");
      assert.equal((await e.attendees()).length, 1);
      const held = await ctx.services.eventPage.findByLink(e.project.id, linkSecretFor(email));
      assert.equal(held?.attendee.email, email);
    });

    test("a filled-in honeypot stores and sends nothing", async () => {
      const e = await event();
      const email = uniqueEmail("bot");
      const outcome = await e.register(e.submit({ email, honeypot: "https://spam.example" }));
      assert.equal(outcome.kind, "ignored");
      assert.equal((await e.attendees()).length, 0);
      assert.ok(!ctx.logs.text.includes(email));
    });

    test("one address is slowed after 60 registrations an hour", async () => {
      const e = await event({ priceMinor: 0, quantity: 1000 });
      const ip = `10.77.${Math.floor(Math.random() * 250)}.1`;
      // One after another: the count is what is tested, and 65 at once on a loaded host can run past
      // the pool's wait (BUSY), which is no registration and no refusal by the budget either.
      const codes: (string | undefined)[] = [];
      for (let i = 0; i < 65; i++) {
        codes.push(
          await e.register(e.submit(), ip).then(
            () => undefined,
            (error: AppError) => error.code,
          ),
        );
      }
      assert.deepEqual(codes.slice(60), Array(5).fill("RATE_LIMITED"));
      assert.equal((await e.attendees()).length, 60);
    });

    test("the manage link shows and cancels the registration; a wrong link finds nothing", async () => {
      const e = await event({ priceMinor: 0, quantity: 1 });
      const input = e.submit();
      await e.register(input);
      const secret = linkSecretFor(input.email);
      assert.equal(
        await ctx.services.eventPage.findByLink(e.project.id, `${secret.slice(0, -2)}xx`),
        undefined,
      );
      const other = await event();
      assert.equal(await ctx.services.eventPage.findByLink(other.project.id, secret), undefined);
      const cancelled = await ctx.services.eventPage.cancelByLink(e.project.id, secret);
      assert.equal(cancelled.attendee.status, "CANCELLED");
      // The seat is free again for the next visitor.
      assert.equal((await e.register(e.submit())).kind, "registered");
      // Cancelling twice is fine.
      assert.equal(
        (await ctx.services.eventPage.cancelByLink(e.project.id, secret)).attendee.status,
        "CANCELLED",
      );
    });

    test("settings need project:write and refuse garbage", async () => {
      const e = await event();
      const member = await ctx.services.users
        .create({ email: uniqueEmail("m"), name: "M", password: "long enough password" })
        .catch(() => undefined);
      assert.ok(member);
      await assert.rejects(
        ctx.services.eventPage.updateSettings({ kind: "user", userId: member.id }, e.project.id, {
          pageEnabled: false,
          registrationOpen: false,
          companyField: "OPTIONAL",
        }),
        failsWith("NOT_FOUND"),
      );
      await assert.rejects(
        ctx.services.eventPage.updateSettings(e.owner, e.project.id, {
          pageEnabled: true,
          registrationOpen: true,
          companyField: "SOMETIMES" as "OPTIONAL",
        }),
        failsWith("BAD_USER_INPUT"),
      );
      assert.deepEqual(await ctx.services.eventPage.settings(e.owner, e.project.id), {
        pageEnabled: true,
        registrationOpen: true,
        companyField: "OPTIONAL",
      });
    });
  });
}
