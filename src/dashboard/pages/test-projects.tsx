import type { FastifyInstance } from "fastify";
import { httpStatusOf } from "../../errors.js";
import { actorOf, redirectTo } from "../context.js";
import { formValues } from "../form-data.js";
import { Form, SubmitButton } from "../ui/forms.js";

// Test projects (issue 41, docs/guides/13-test-projects.md): made in one step from the projects
// list, reset from the Overview. The service (modules/demo/test-projects.ts) holds the rules.

/** The projects list's button that makes a test project (a POST: it creates one). */
export function NewTestProjectButton(props: { csrf: string }) {
  return (
    <Form action="/projects/test" csrf={props.csrf} label="New test project">
      <SubmitButton variant="secondary">New test project</SubmitButton>
    </Form>
  );
}

/** The Overview's reset of a test project: a checkbox to confirm, as a reset replaces every attendee. */
export function ResetTestProjectPanel(props: { projectId: string; csrf: string }) {
  return (
    <section class="panel" aria-labelledby="reset-test-heading">
      <h2 id="reset-test-heading">Reset to demo data</h2>
      <p>
        Replaces the agenda, tickets, attendees, check-ins and orders with the demo data this project started
        with. Members, apps, tokens and webhooks stay.
      </p>
      <Form
        action={`/b/${props.projectId}/test/reset`}
        csrf={props.csrf}
        label="Reset to demo data"
        confirm="Replace this test project's data with its demo data?"
      >
        <div class="checkbox">
          <input type="checkbox" id="reset-confirm" name="confirm" value="yes" required />
          <label for="reset-confirm">I want to replace this project's data</label>
        </div>
        <div class="form-actions">
          <SubmitButton variant="danger">Reset</SubmitButton>
        </div>
      </Form>
    </section>
  );
}

/** `POST /b/:projectId/test/reset` (the create route is the projects list's, in projects.tsx). */
export function registerTestProjectPages(app: FastifyInstance): void {
  const { services } = app;

  app.post<{ Params: { projectId: string } }>("/b/:projectId/test/reset", async (request, reply) => {
    const actor = actorOf(request);
    const access = await services.access.require(actor, request.params.projectId);
    const back = `/b/${access.projectId}`;
    if (formValues(request.body).confirm !== "yes") {
      return redirectTo(request, reply, back, { kind: "error", text: "Tick the box to confirm the reset." });
    }
    try {
      await services.testProjects.reset(actor, access.projectId);
    } catch (error) {
      if (httpStatusOf(error) >= 500) throw error;
      return redirectTo(request, reply, back, { kind: "error", text: (error as Error).message });
    }
    return redirectTo(request, reply, back, {
      kind: "success",
      text: "The test project has its demo data again.",
    });
  });
}
