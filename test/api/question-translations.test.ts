import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Services } from "../../src/services.js";
import { rejectsWithFieldErrors } from "../helpers/assertions.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

/** A published event in English and German with a free ticket and a choice question translated in part. */
async function event(services: Services) {
  const { project, owner, ownerId } = await createPublishedProject(services);
  const pass = await createTicketType(services, owner, project.id, { name: "Pass", priceMinor: 0 });
  await services.eventLanguages.update(owner, project.id, { languages: ["en", "de"], translations: [] });
  const diet = await services.questions.createQuestion(owner, {
    projectId: project.id,
    label: "Diet",
    help: "We cook for everyone.",
    kind: "ONE_CHOICE",
    required: true,
    options: ["Any", "Vegan"],
    // "Vegan" is the same word in German: left blank, it shows as written.
    translations: [
      { language: "de", label: "Ernährung", help: "Wir kochen für alle.", options: ["Egal", ""] },
    ],
  });
  return { project, owner, ownerId, pass, diet };
}

const questionsQuery = `query ($id: ID!) {
  project(id: $id) {
    registrationQuestions { label help options translations { language label help options } }
  }
}`;

for (const engine of testEngines()) {
  describe(`registration questions in the event's languages (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("refuses garbage translations, naming each field, and stores none of them", async () => {
      const { services } = server;
      const { project, owner, diet } = await event(services);
      const update = (translations: unknown[]) =>
        services.questions.updateQuestion(owner, { id: diet.id, translations });
      await rejectsWithFieldErrors(
        update([
          { language: "xx", label: "?" },
          { language: "de", label: "L".repeat(301) },
          { language: "fr", options: ["a", "b", "c"], help: "bell\u0007" },
          { language: "fr", label: "Deux fois" },
        ]),
        [
          "translations.0",
          "translations.1.label",
          "translations.2.options",
          "translations.2.help",
          "translations.3.language",
        ],
      );
      await assert.rejects(update(Array.from({ length: 5 }, () => ({ language: "de" }))), {
        code: "BAD_USER_INPUT",
      });
      // Refused whole: the German texts are as they were.
      const kept = await services.questions.translationsByQuestionIds([diet.id]);
      assert.deepEqual(kept.get(diet.id), [
        { language: "de", label: "Ernährung", help: "Wir kochen für alle.", options: ["Egal", null] },
      ]);
      assert.ok(project.id);
    });

    test("the API takes a question's texts per language and shows them with tickets:read only", async () => {
      const { services } = server;
      const { project, ownerId } = await event(services);
      const writer = await createApp(services, {
        projectId: project.id,
        ownerId,
        permissions: ["tickets:write", "tickets:read"],
      });
      const created = await gql(
        server.url,
        `mutation ($input: CreateRegistrationQuestionInput!) {
          createRegistrationQuestion(input: $input) { question { label } userErrors { field message } }
        }`,
        {
          token: writer.token,
          variables: {
            input: {
              projectId: project.id,
              label: "T-shirt size",
              kind: "ONE_CHOICE",
              options: ["S", "M", "L"],
              translations: [{ language: "fr", label: "Taille de t-shirt", options: [null, null, "G"] }],
            },
          },
        },
      );
      assert.deepEqual(created.body.data.createRegistrationQuestion.userErrors, []);
      const read = await gql(server.url, questionsQuery, {
        token: writer.token,
        variables: { id: project.id },
      });
      assert.deepEqual(read.body.data.project.registrationQuestions, [
        {
          label: "Diet",
          help: "We cook for everyone.",
          options: ["Any", "Vegan"],
          translations: [
            { language: "de", label: "Ernährung", help: "Wir kochen für alle.", options: ["Egal", null] },
          ],
        },
        {
          label: "T-shirt size",
          help: null,
          options: ["S", "M", "L"],
          translations: [
            { language: "fr", label: "Taille de t-shirt", help: null, options: [null, null, "G"] },
          ],
        },
      ]);
      const agenda = await createApp(services, {
        projectId: project.id,
        ownerId,
        permissions: ["agenda:read"],
      });
      const hidden = await gql(server.url, questionsQuery, {
        token: agenda.token,
        variables: { id: project.id },
      });
      assert.equal(hidden.body.data.project.registrationQuestions, null);
    });

    test("the event page asks in the visitor's language and stores the option as written", async () => {
      const { services } = server;
      const { project, owner, pass, diet } = await event(services);
      const german = await (
        await fetch(`${server.url}/e/${project.id}/register`, { headers: { "accept-language": "de" } })
      ).text();
      assert.match(german, /Ernährung/);
      assert.match(german, /Wir kochen für alle\./);
      assert.match(german, /<option value="Any"[^>]*>Egal<\/option>/);
      assert.match(german, /<option value="Vegan"[^>]*>Vegan<\/option>/);
      assert.match(german, /Bitte wählen…/);
      // A refusal on the German form is in German, the answer's message beside its question.
      const hidden = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(german)?.[1] ?? "";
      const refused = await fetch(`${server.url}/e/${project.id}/register`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          ...Object.fromEntries(
            ["idempotencyKey", "issuedAt", "signature", "language"].map((name) => [name, hidden(name)]),
          ),
          ticketTypeId: pass.id,
          name: "Greta Gast",
          email: `greta-form-${engine.name}@example.org`,
        }),
      });
      assert.equal(refused.status, 400);
      const refusal = await refused.text();
      assert.match(refusal, /Bitte beantworten Sie diese Frage\./);
      assert.doesNotMatch(refusal, /needs an answer/);
      const english = await (await fetch(`${server.url}/e/${project.id}/register`)).text();
      assert.match(english, /<option value="Any"[^>]*>Any<\/option>/);
      assert.match(english, /We cook for everyone\./);
      assert.doesNotMatch(english, /Ernährung/);

      const base = {
        projectId: project.id,
        ticketTypeId: pass.id,
        name: "Greta Gast",
        email: `greta-${engine.name}@example.org`,
        idempotencyKey: "g".repeat(20),
        language: "de" as const,
      };
      // The translation is a label, never a value: an answer names the option as written.
      await rejectsWithFieldErrors(
        services.eventPage.register({ ...base, answers: { [diet.id]: "Egal" } }, "10.9.1.1"),
        [`answers.${diet.id}`],
      );
      const outcome = await services.eventPage.register(
        { ...base, answers: { [diet.id]: "Any" } },
        "10.9.1.1",
      );
      assert.ok(outcome.kind === "registered");
      const access = await services.access.resolve(owner, project.id);
      assert.ok(access);
      const answers = await services.questions.answersOf(access, [outcome.attendee.id]);
      assert.deepEqual(
        answers.get(outcome.attendee.id)?.map((a) => a.value),
        ["Any"],
      );
      let csv = "";
      for await (const chunk of services.attendeeFiles.exportCsv(access, {})) csv += String(chunk);
      assert.match(csv.split("\n")[0] ?? "", /,Diet$/);
      assert.ok(csv.includes(",Any") && !csv.includes("Egal"), csv);
    });

    test("a renamed option loses its translation, a reordered one keeps it; deleting the question deletes them", async () => {
      const { services } = server;
      const { owner, diet } = await event(services);
      await services.questions.updateQuestion(owner, {
        id: diet.id,
        options: ["Vegan", "Anything"],
        translations: [{ language: "de", label: "Ernährung", options: ["", ""] }],
      });
      assert.deepEqual((await services.questions.translationsByQuestionIds([diet.id])).get(diet.id), [
        { language: "de", label: "Ernährung", help: null, options: [null, null] },
      ]);
      // Stored by the option as written: a later reorder keeps each text with its option.
      await services.questions.updateQuestion(owner, {
        id: diet.id,
        translations: [{ language: "de", options: ["Vegan", "Egal"] }],
      });
      await services.questions.updateQuestion(owner, { id: diet.id, options: ["Anything", "Vegan"] });
      assert.deepEqual((await services.questions.translationsByQuestionIds([diet.id])).get(diet.id), [
        { language: "de", label: null, help: null, options: ["Egal", "Vegan"] },
      ]);
      await services.questions.deleteQuestion(owner, { id: diet.id });
      const left = await services.database.db
        .selectFrom("question_translations")
        .select("question_id")
        .where("question_id", "=", diet.id)
        .execute();
      assert.deepEqual(left, []);
    });
  });
}
