import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testEngines } from "../../../test/helpers/engines.js";
import { createAttendee, createPublishedProject, createTicketType } from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { resolvePageArgs } from "../../shared/pagination.js";

for (const engine of testEngines()) {
  describe(`attendee search by several words (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("finds names in any order, with short words filtering, and not across unrelated rows", async () => {
      const { project, owner } = await createPublishedProject(ctx.services);
      const ticketType = await createTicketType(ctx.services, owner, project.id);
      for (const [name, company] of [
        ["Ivan Sato", "Kaze KK"],
        ["Ivan Petrov", null],
        ["Yuki Sato", null],
        ["Li Na", "Wuhan Tennis"],
        ["Na Li", null],
      ] as const) {
        await createAttendee(ctx.services, owner, project.id, ticketType.id, { name, company });
      }
      const access = await ctx.services.access.require(owner, project.id);
      const names = async (search: string) =>
        (
          await ctx.services.attendees.listAttendees(access, { search }, resolvePageArgs({ first: 100 }))
        ).items
          .map((a) => a.name)
          .sort();
      assert.deepEqual(await names("sato ivan"), ["Ivan Sato"]);
      assert.deepEqual(await names("  IVAN   sato "), ["Ivan Sato"]);
      assert.deepEqual(await names("sato kaze"), ["Ivan Sato"], "a word may match the company");
      assert.deepEqual(await names("ivan"), ["Ivan Petrov", "Ivan Sato"]);
      assert.deepEqual(await names("tennis li"), ["Li Na"], "a short word filters the indexed matches");
      assert.deepEqual(await names("li na"), ["Li Na"], "only short words: the whole text as one phrase");
      assert.deepEqual(await names("sato petrov"), []);
      assert.deepEqual(await names('sato "%_'), []);
    });
  });
}
