import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rejectsWithFieldErrors } from "../../../test/helpers/assertions.js";
import { testEngines } from "../../../test/helpers/engines.js";
import {
  appActor,
  createAttendee,
  createPublishedProject,
  createTicketType,
} from "../../../test/helpers/factories.js";
import { testContextPerSuite } from "../../../test/helpers/test-services.js";
import { AppError } from "../../errors.js";
import type { Services } from "../../services.js";
import { publicActor } from "../access/actor.js";
import { type Question, validateAnswers } from "./questions.model.js";

/** A published project with two ticket types and one question of each kind. */
async function event(services: Services) {
  const { project, owner } = await createPublishedProject(services);
  const pass = await createTicketType(services, owner, project.id, { name: "Pass" });
  const workshop = await createTicketType(services, owner, project.id, { name: "Workshop" });
  const q = (input: Omit<Parameters<Services["questions"]["createQuestion"]>[1], "projectId">) =>
    services.questions.createQuestion(owner, { projectId: project.id, ...input });
  const diet = await q({ label: "Diet", kind: "ONE_CHOICE", required: true, options: ["Any", "Vegan"] });
  const talks = await q({ label: "Talks", kind: "SEVERAL_CHOICES", options: ["A", "B", "C"] });
  const shirt = await q({ label: "Shirt", kind: "YES_NO", ticketTypeIds: [workshop.id] });
  const age = await q({ label: "Age", kind: "NUMBER" });
  const born = await q({ label: "Born", kind: "DATE" });
  const country = await q({ label: "Country", kind: "COUNTRY" });
  const bio = await q({ label: "Bio", kind: "LONG_TEXT" });
  const title = await q({ label: "Title", kind: "SHORT_TEXT" });
  return { project, owner, pass, workshop, diet, talks, shirt, age, born, country, bio, title };
}

for (const engine of testEngines()) {
  describe(`registration questions (${engine.name})`, () => {
    const ctx = testContextPerSuite(engine);

    test("only tickets:write manages questions and tickets:read reads them; others learn nothing", async () => {
      const { project } = await event(ctx.services);
      const input = { projectId: project.id, label: "Diet", kind: "SHORT_TEXT" };
      for (const actor of [publicActor, appActor(project.id, ["tickets:read", "attendees:write"])])
        await assert.rejects(ctx.services.questions.createQuestion(actor, input), AppError);
      const reader = await ctx.services.access.resolve(appActor(project.id, ["agenda:read"]), project.id);
      assert.ok(reader);
      await assert.rejects(ctx.services.questions.listQuestions(reader), AppError);
    });

    test("refuses garbage definitions: a choice without options, an unknown kind, a foreign ticket type", async () => {
      const { project, owner } = await event(ctx.services);
      const other = await createPublishedProject(ctx.services);
      const foreign = await createTicketType(ctx.services, other.owner, other.project.id);
      const create = (input: object) =>
        ctx.services.questions.createQuestion(owner, {
          projectId: project.id,
          label: "Q",
          kind: "ONE_CHOICE",
          ...input,
        });
      await rejectsWithFieldErrors(create({ options: ["only one"] }), ["options"]);
      await rejectsWithFieldErrors(create({ kind: "FILE" }), ["kind"]);
      await rejectsWithFieldErrors(create({ label: " ", options: ["a", "b"] }), ["label"]);
      await rejectsWithFieldErrors(create({ options: ["a", "b"], ticketTypeIds: [foreign.id] }), [
        "ticketTypeIds",
      ]);
    });

    test("keeps the organizer's order", async () => {
      const { project, owner } = await event(ctx.services);
      const access = await ctx.services.access.resolve(owner, project.id);
      assert.ok(access);
      const before = await ctx.services.questions.listQuestions(access);
      const reversed = before.map((q) => q.id).reverse();
      await rejectsWithFieldErrors(
        ctx.services.questions.reorderQuestions(owner, {
          projectId: project.id,
          questionIds: reversed.slice(1),
        }),
        ["questionIds"],
      );
      await ctx.services.questions.reorderQuestions(owner, { projectId: project.id, questionIds: reversed });
      const after = await ctx.services.questions.listQuestions(access);
      assert.deepEqual(
        after.map((q) => q.id),
        reversed,
      );
    });

    test("the organizer edits answers, checked by kind, scoped by ticket type, audited; erasure takes them", async () => {
      const e = await event(ctx.services);
      // Registered with the one required answer, as every registration now must give it.
      const attendee = await createAttendee(ctx.services, e.owner, e.project.id, e.pass.id, {
        answers: { [e.diet.id]: "Any" },
      });
      const set = (answers: Record<string, unknown>) =>
        ctx.services.questions.setAnswers(e.owner, { attendeeId: attendee.id, answers });
      await rejectsWithFieldErrors(
        set({
          [e.diet.id]: "Carnivore",
          [e.talks.id]: ["A", "Z"],
          [e.shirt.id]: true,
          [e.age.id]: "old",
          [e.born.id]: "2026-02-30",
          [e.country.id]: "XX",
          [e.title.id]: "a\u0000b",
        }),
        [e.diet.id, e.talks.id, e.shirt.id, e.age.id, e.born.id, e.country.id, e.title.id].map(
          (id) => `answers.${id}`,
        ),
      );
      await rejectsWithFieldErrors(set({ [e.diet.id]: null }), [`answers.${e.diet.id}`]);
      const answers = await set({
        [e.diet.id]: "Vegan",
        [e.talks.id]: ["C", "A", "A"],
        [e.age.id]: "42",
        [e.born.id]: "1984-02-29",
        [e.country.id]: "de",
        [e.bio.id]: "Line one\nLine two",
      });
      assert.deepEqual(
        answers.map((a) => [a.question.label, a.value]),
        [
          ["Diet", "Vegan"],
          ["Talks", ["A", "C"]],
          ["Age", 42],
          ["Born", "1984-02-29"],
          ["Country", "DE"],
          ["Bio", "Line one\nLine two"],
        ],
      );
      // Without attendees:read an answer is as missing as the attendee.
      await assert.rejects(
        ctx.services.questions.setAnswers(appActor(e.project.id, ["tickets:write"]), {
          attendeeId: attendee.id,
          answers: { [e.diet.id]: "Any" },
        }),
        (error: unknown) => error instanceof AppError && error.code === "NOT_FOUND",
      );
      const audit = await ctx.services.audit.list(e.owner, e.project.id, {}, { first: 50 });
      assert.ok(JSON.stringify(audit).includes("answers_updated"));

      await ctx.services.attendees.eraseAttendee(e.owner, { id: attendee.id });
      const access = await ctx.services.access.resolve(e.owner, e.project.id);
      assert.ok(access);
      assert.deepEqual((await ctx.services.questions.answersOf(access, [attendee.id])).get(attendee.id), []);
    });
  });
}

describe("validateAnswers", () => {
  const question = (id: string, over: Partial<Question>): Question => ({
    id,
    projectId: "P",
    label: id,
    help: null,
    kind: "SHORT_TEXT",
    required: false,
    options: [],
    ticketTypeIds: null,
    position: 1,
    ...over,
  });

  test("needs a required question only of the ticket types it is asked for", () => {
    const questions = [question("a", { required: true, ticketTypeIds: ["T1"] }), question("b", {})];
    assert.deepEqual(
      validateAnswers(questions, "T1", {}).errors.map((e) => e.field.join(".")),
      ["answers.a"],
    );
    assert.deepEqual(validateAnswers(questions, "T2", {}).errors, []);
    assert.deepEqual(
      validateAnswers(questions, "T2", { a: "x" }).errors.map((e) => e.field.join(".")),
      ["answers.a"],
    );
  });

  test("refuses an answer to an unknown question and over-long text", () => {
    const questions = [question("b", {})];
    const { errors } = validateAnswers(questions, "T", { zzz: "x", b: "x".repeat(201) });
    assert.deepEqual(
      errors.map((e) => e.field.join(".")),
      ["answers.zzz", "answers.b"],
    );
  });
});
