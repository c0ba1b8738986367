import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import { publicActor } from "../../src/modules/access/actor.js";
import { parseAttendeeCsv } from "../../src/modules/attendees/attendees-csv.js";
import type { Services } from "../../src/services.js";
import { resolvePageArgs } from "../../src/shared/pagination.js";
import { rejectsWithFieldErrors } from "../helpers/assertions.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

const register = `mutation ($input: RegisterAttendeeInput!) {
  registerAttendee(input: $input) {
    attendee { id answers { question { label } text choices } }
    userErrors { field message }
  }
}`;

/** A published event with a free ticket, a workshop ticket and three questions. */
async function event(services: Services) {
  const { project, owner, ownerId } = await createPublishedProject(services);
  const pass = await createTicketType(services, owner, project.id, { name: "Pass", priceMinor: 0 });
  const workshop = await createTicketType(services, owner, project.id, { name: "Workshop", priceMinor: 0 });
  const q = (input: Omit<Parameters<Services["questions"]["createQuestion"]>[1], "projectId">) =>
    services.questions.createQuestion(owner, { projectId: project.id, ...input });
  const diet = await q({ label: "Diet", kind: "ONE_CHOICE", required: true, options: ["Any", "Vegan"] });
  const talks = await q({ label: "Talks", kind: "SEVERAL_CHOICES", options: ["A", "B", "C"] });
  const laptop = await q({ label: "Laptop", kind: "YES_NO", required: true, ticketTypeIds: [workshop.id] });
  return { project, owner, ownerId, pass, workshop, diet, talks, laptop };
}

async function count(
  services: Services,
  owner: Parameters<Services["access"]["resolve"]>[0],
  projectId: string,
) {
  const access = await services.access.resolve(owner, projectId);
  assert.ok(access);
  return services.attendees.countAttendees(access, {});
}

for (const engine of testEngines()) {
  describe(`answers given with a registration (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("registerAttendee refuses a missing required answer and a wrong one, naming the field; registers nobody", async () => {
      const { services } = server;
      const { project, owner, ownerId, pass, workshop, diet, talks, laptop } = await event(services);
      const { token } = await createApp(services, {
        projectId: project.id,
        ownerId,
        permissions: ["attendees:write", "attendees:read"],
      });
      const input = (ticketTypeId: string, answers: object[]) => ({
        projectId: project.id,
        name: "Ann Answer",
        email: "ann@example.org",
        ticketTypeId: globalId("TicketType", ticketTypeId),
        answers,
      });
      const missing = await gql(server.url, register, {
        token,
        variables: {
          input: input(workshop.id, [
            { questionId: globalId("RegistrationQuestion", diet.id), value: "Any" },
          ]),
        },
      });
      assert.deepEqual(missing.body.data.registerAttendee.userErrors, [
        { field: ["answers", laptop.id], message: '"Laptop" needs an answer' },
      ]);
      const wrong = await gql(server.url, register, {
        token,
        variables: {
          input: input(pass.id, [
            { questionId: globalId("RegistrationQuestion", diet.id), value: "Steak" },
            { questionId: globalId("RegistrationQuestion", laptop.id), value: "true" },
          ]),
        },
      });
      assert.deepEqual(
        wrong.body.data.registerAttendee.userErrors.map((e: { field: string[] }) => e.field.join(".")).sort(),
        [`answers.${diet.id}`, `answers.${laptop.id}`].sort(),
      );
      assert.equal(await count(services, owner, project.id), 0);

      const ok = await gql(server.url, register, {
        token,
        variables: {
          input: input(pass.id, [
            { questionId: globalId("RegistrationQuestion", diet.id), value: "Vegan" },
            { questionId: globalId("RegistrationQuestion", talks.id), choices: ["C", "A", "A"] },
          ]),
        },
      });
      assert.deepEqual(ok.body.data.registerAttendee.userErrors, []);
      assert.deepEqual(ok.body.data.registerAttendee.attendee.answers, [
        { question: { label: "Diet" }, text: "Vegan", choices: null },
        { question: { label: "Talks" }, text: "A; C", choices: ["A", "C"] },
      ]);
    });

    test("refuses garbage: more answers than questions, an unknown question", async () => {
      const { services } = server;
      const { project, owner, pass, diet } = await event(services);
      const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`q${i}`, "x"]));
      const base = { projectId: project.id, name: "Gus", email: "gus@example.org", ticketTypeId: pass.id };
      await rejectsWithFieldErrors(services.attendees.registerAttendee(owner, { ...base, answers: many }), [
        "answers",
      ]);
      await rejectsWithFieldErrors(
        services.attendees.registerAttendee(owner, { ...base, answers: { [diet.id]: "Any", nope: "x" } }),
        ["answers.nope"],
      );
      assert.equal(await count(services, owner, project.id), 0);
    });

    test("the event page stores the answers with the registration, or refuses it whole", async () => {
      const { services } = server;
      const { project, owner, pass, diet, talks } = await event(services);
      const base = {
        projectId: project.id,
        ticketTypeId: pass.id,
        name: "Pat Page",
        email: "pat@example.org",
        idempotencyKey: "k".repeat(20),
      };
      await rejectsWithFieldErrors(services.eventPage.register({ ...base, answers: {} }, "10.9.0.1"), [
        `answers.${diet.id}`,
      ]);
      assert.equal(await count(services, owner, project.id), 0);
      const outcome = await services.eventPage.register(
        { ...base, answers: { [diet.id]: "Any", [talks.id]: ["B"] } },
        "10.9.0.1",
      );
      assert.equal(outcome.kind, "registered");
      assert.ok(outcome.kind === "registered");
      const access = await services.access.resolve(owner, project.id);
      assert.ok(access);
      const answers = (await services.questions.answersOf(access, [outcome.attendee.id])).get(
        outcome.attendee.id,
      );
      assert.deepEqual(
        answers?.map((a) => [a.question.label, a.value]),
        [
          ["Diet", "Any"],
          ["Talks", ["B"]],
        ],
      );
    });

    test("a checkout asks each ticket's holder; a refusal names the ticket and places no order", async () => {
      const { services } = server;
      const { project, owner, pass, workshop, diet, laptop } = await event(services);
      const order = (laptopAnswer: unknown) =>
        services.orders.placeOrder(publicActor, {
          projectId: project.id,
          buyerName: "Bo Buyer",
          buyerEmail: "bo@example.org",
          tickets: [
            { ticketTypeId: pass.id, name: "Bo", email: "bo@example.org", answers: { [diet.id]: "Any" } },
            {
              ticketTypeId: workshop.id,
              name: "Cy",
              email: "cy@example.org",
              answers: { [diet.id]: "Vegan", [laptop.id]: laptopAnswer },
            },
          ],
        });
      await rejectsWithFieldErrors(order(undefined), [`tickets.1.answers.${laptop.id}`]);
      assert.equal(await count(services, owner, project.id), 0);
      const placed = await order("yes");
      const access = await services.access.resolve(owner, project.id);
      assert.ok(access);
      const ids = placed.tickets.map((t) => t.id);
      const answers = await services.questions.answersOf(access, ids);
      assert.deepEqual(
        ids.map((id) => answers.get(id)?.map((a) => a.value)),
        [["Any"], ["Vegan", true]],
      );
    });

    test("the CSV export has a column per question, and an import maps them back, checking each row", async () => {
      const { services } = server;
      const { project, owner, workshop, diet, talks, laptop } = await event(services);
      await services.attendees.registerAttendee(owner, {
        projectId: project.id,
        name: "Eve Export",
        email: "eve@example.org",
        ticketTypeId: workshop.id,
        answers: { [diet.id]: "Vegan", [talks.id]: ["A", "B"], [laptop.id]: false },
      });
      const access = await services.access.resolve(owner, project.id);
      assert.ok(access);
      let text = "";
      for await (const chunk of services.attendeeFiles.exportCsv(access, {})) text += String(chunk);
      const [header, row] = text.trim().split("\n");
      assert.match(header ?? "", /,checked_in_at,Diet,Talks,Laptop$/);
      assert.match(row ?? "", /,Vegan,A; B,no$/);

      const csv = [
        "name,email,ticket type,diet,Talks,Laptop",
        "Ida Import,ida@example.org,Pass,Any,C; A,",
        "Ned Nodiet,ned@example.org,Pass,,,",
        "Wes Workshop,wes@example.org,Workshop,Vegan,,maybe",
        "Liv Laptop,liv@example.org,Workshop,Vegan,,yes",
      ].join("\n");
      const parsed = await parseAttendeeCsv(csv);
      const mapping = { name: 0, lastName: null, email: 1, company: null, ticketType: 2 };
      const outcome = await services.attendeeFiles.importRows(owner, project.id, parsed, mapping, {
        dryRun: false,
      });
      assert.equal(outcome.imported, 2);
      assert.deepEqual(
        outcome.problems.map((p) => [p.line, p.message]),
        [
          [3, 'Diet: "Diet" needs an answer'],
          [4, "Laptop: must be yes or no"],
        ],
      );
      const page = await services.attendees.listAttendees(
        access,
        { search: "ida" },
        resolvePageArgs({ first: 10 }),
      );
      const ida = page.items[0];
      assert.ok(ida);
      const answers = (await services.questions.answersOf(access, [ida.id])).get(ida.id);
      assert.deepEqual(
        answers?.map((a) => a.value),
        ["Any", ["A", "C"]],
      );
    });
  });
}
