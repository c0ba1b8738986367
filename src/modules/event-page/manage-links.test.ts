import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createPublishedProject, createTicketType, uniqueEmail } from "../../../test/helpers/factories.js";
import { createTestContext, type TestContext } from "../../../test/helpers/test-services.js";

// Issue 39: each public submit with a registrant's email rotated the manage secret, so anyone who
// knew the email killed every link the registrant held (8 submits: all 5 links answered 404).

for (const engine of testEngines()) {
  describe(`a repeated registration keeps the manage links already sent (${engine.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(engine);
    });
    after(() => ctx.close());

    /** Every manage link's secret mailed to `email` so far (the test mailer logs each mail). */
    function linksMailedTo(email: string): string[] {
      return ctx.logs.lines
        .filter((line) => line.includes(email) && line.includes("/registration/"))
        .map((line) => /\/registration\/([A-Za-z0-9_-]+)/.exec(line)?.[1] ?? "");
    }

    test("8 submits with the registrant's email: every link mailed still opens the registration", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id, { priceMinor: 0 });
      const email = uniqueEmail("registrant");
      const submit = (name: string, ip: string) =>
        ctx.services.eventPage.register(
          { projectId: project.id, ticketTypeId: ticketType.id, name, email, idempotencyKey: randomUUID() },
          ip,
        );
      const first = await submit("Ada Registrant", "10.1.0.1");
      assert.equal(first.kind, "registered");
      for (let i = 0; i < 8; i++) await submit("Mallory", `10.2.0.${i + 1}`);
      const links = linksMailedTo(email);
      // The mail limit (5 an hour per recipient) stops the rest; no link is lost to them.
      assert.equal(links.length, 5);
      assert.equal(new Set(links).size, 5);
      for (const link of links) {
        const held = await ctx.services.eventPage.findByLink(project.id, link);
        assert.equal(held?.attendee.email, email, `link ${link} no longer opens the registration`);
        assert.equal(held?.attendee.name, "Ada Registrant", "a repeat changes nothing of the registration");
      }
      const wrong = await ctx.services.eventPage.findByLink(project.id, "x".repeat(43));
      assert.equal(wrong, undefined);
    });
  });
}
