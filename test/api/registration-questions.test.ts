import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { globalId } from "../../src/graphql/ids.js";
import type { Permission } from "../../src/modules/access/permissions.js";
import { testEngines } from "../helpers/engines.js";
import { createApp, createAttendee, createPublishedProject, createTicketType } from "../helpers/factories.js";
import { gql } from "../helpers/graphql.js";
import { serverPerSuite } from "../helpers/test-server.js";

const questionsQuery = `query Q($id: ID!) {
  project(id: $id) { registrationQuestions { id label kind required options ticketTypeIds } }
}`;
const answersQuery = `query A($id: ID!) {
  project(id: $id) { attendees(first: 10) { edges { node { name answers { question { label kind } text choices } } } } }
}`;
const create = `mutation C($input: CreateRegistrationQuestionInput!) {
  createRegistrationQuestion(input: $input) { question { id label } userErrors { field message code } }
}`;
const setAnswers = `mutation S($input: SetAttendeeAnswersInput!) {
  setAttendeeAnswers(input: $input) { attendee { answers { text choices } } userErrors { field message code } }
}`;

for (const engine of testEngines()) {
  describe(`registration questions API (${engine.name})`, () => {
    const server = serverPerSuite(engine);

    test("questions need tickets:read to read and tickets:write to add; answers need attendees:read", async () => {
      const { project, ownerId, owner } = await createPublishedProject(server.services);
      const pass = await createTicketType(server.services, owner, project.id, { name: "Pass" });
      const token = async (permissions: Permission[]) =>
        (await createApp(server.services, { projectId: project.id, ownerId, permissions })).token;
      const agendaReader = await token(["agenda:read"]);
      const ticketsWriter = await token(["tickets:write", "tickets:read"]);
      const attendeesApp = await token(["attendees:read", "attendees:write"]);

      const input = { projectId: project.id, label: "Talks", kind: "SEVERAL_CHOICES", options: ["A", "B"] };
      const refused = await gql(server.url, create, { token: agendaReader, variables: { input } });
      assert.equal(refused.body.errors[0].extensions.requiredPermission, "tickets:write");
      const bad = await gql(server.url, create, {
        token: ticketsWriter,
        variables: { input: { ...input, options: ["A"] } },
      });
      assert.deepEqual(bad.body.data.createRegistrationQuestion.userErrors[0].field, ["options"]);
      const made = await gql(server.url, create, { token: ticketsWriter, variables: { input } });
      const questionId = made.body.data.createRegistrationQuestion.question.id;

      for (const t of [agendaReader, undefined]) {
        const read = await gql(server.url, questionsQuery, { token: t, variables: { id: project.id } });
        assert.equal(read.body.data.project.registrationQuestions, null);
        assert.equal(read.body.errors[0].extensions.code, "FORBIDDEN");
      }
      const listed = await gql(server.url, questionsQuery, {
        token: ticketsWriter,
        variables: { id: project.id },
      });
      assert.deepEqual(listed.body.data.project.registrationQuestions, [
        {
          id: questionId,
          label: "Talks",
          kind: "SEVERAL_CHOICES",
          required: false,
          options: ["A", "B"],
          ticketTypeIds: null,
        },
      ]);

      const attendee = await createAttendee(server.services, owner, project.id, pass.id, { name: "Ada" });
      const attendeeId = globalId("Attendee", attendee.id);
      const wrong = await gql(server.url, setAnswers, {
        token: attendeesApp,
        variables: { input: { attendeeId, answers: [{ questionId, choices: ["Z"] }] } },
      });
      assert.equal(wrong.body.data.setAttendeeAnswers.userErrors.length, 1);
      const saved = await gql(server.url, setAnswers, {
        token: attendeesApp,
        variables: { input: { attendeeId, answers: [{ questionId, choices: ["B", "A"] }] } },
      });
      assert.deepEqual(saved.body.data.setAttendeeAnswers.attendee.answers, [
        { text: "A; B", choices: ["A", "B"] },
      ]);
      const read = await gql(server.url, answersQuery, {
        token: attendeesApp,
        variables: { id: project.id },
      });
      assert.deepEqual(read.body.data.project.attendees.edges[0].node, {
        name: "Ada",
        answers: [
          { question: { label: "Talks", kind: "SEVERAL_CHOICES" }, text: "A; B", choices: ["A", "B"] },
        ],
      });
    });
  });
}
