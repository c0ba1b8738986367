import { builder } from "../../graphql/builder.js";
import { globalId } from "../../graphql/ids.js";
import { inputMutation, payloadType } from "../../graphql/mutations.js";
import { ProjectRef } from "../projects/projects.graphql.js";
import type { CreatedTestProject } from "./test-projects.js";

// Each call generates a demo conference (about 2,000 attendees and 60 sessions), a second of work:
// 200 of the rate limit's points (cost / 100), so an app's hourly budget (10,000 by default) makes
// at most 50 an hour, whatever it sends at once. Within MAX_QUERY_COST (50,000) with room to spare.
const testProjectCost = 20_000;

const CreatedTestProjectRef = builder.objectRef<CreatedTestProject>("CreatedTestProject").implement({
  description: "A new test project and the token of its Test app, shown this once.",
  fields: (t) => ({
    project: t.field({
      type: ProjectRef,
      description: "The test project (isTest: true); the calling app is linked to it.",
      resolve: (created) => created.project,
    }),
    testAppId: t.id({
      description: "Global id of the project's Test app, which holds every permission on it.",
      resolve: (created) => globalId("App", created.appId),
    }),
    token: t.string({
      description:
        "The Test app's API token: every permission on this test project and nothing else. Shown once; store it like a password.",
      resolve: (created) => created.token,
    }),
  }),
});

/** Defines `createTestProject` and `resetTestProject` (issue 41). */
export function defineTestProjectTypes(): void {
  const CreateTestProjectInput = builder.inputType("CreateTestProjectInput", {
    description: "What to call the new test project; everything else is generated demo data.",
    fields: (t) => ({
      name: t.string({
        description: 'Its name after "Test project: " (at most 80 characters); a generated one when omitted.',
      }),
    }),
  });
  const ResetTestProjectInput = builder.inputType("ResetTestProjectInput", {
    description: "The test project to reset.",
    fields: (t) => ({
      projectId: t.id({ required: true, description: "The test project's 4-character id." }),
    }),
  });

  builder.mutationField("createTestProject", (t) =>
    inputMutation(t, {
      permission: "project:write",
      cost: testProjectCost,
      description:
        "Creates a test project for the app's developer (the person who created the app, while they manage its home project), as a development store is made for a Shopify partner: demo data, never published, never counted, with a Test app holding every permission. The calling app is linked to it with its own permissions. Only an app's own token on its real home project may call it (project:write there): not an OAuth access token, not a test project's token. At most 10 test projects per developer.",
      input: CreateTestProjectInput,
      payload: payloadType(
        "CreateTestProjectPayload",
        "testProject",
        CreatedTestProjectRef,
        "The result of createTestProject.",
        "The new test project and its Test app's token; null when it could not be made.",
      ),
      field: "testProject",
      write: (input, context) =>
        context.services.testProjects.createFor(context.actor, { name: input.name ?? undefined }),
    }),
  );

  builder.mutationField("resetTestProject", (t) =>
    inputMutation(t, {
      permission: "project:write",
      cost: testProjectCost,
      description:
        "Resets a test project's agenda, tickets, attendees, check-ins and orders to its initial demo data, dated from now; its members, apps, links, tokens and webhooks stay. A project that is not a test project is refused.",
      input: ResetTestProjectInput,
      payload: payloadType(
        "ResetTestProjectPayload",
        "project",
        ProjectRef,
        "The result of resetTestProject.",
        "The test project after its reset; null when the input had problems.",
      ),
      field: "project",
      write: (input, context) => context.services.testProjects.reset(context.actor, String(input.projectId)),
    }),
  );
}
