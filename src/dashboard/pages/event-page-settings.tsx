import type { FastifyInstance } from "fastify";
import type { CompanyField } from "../../db/schema.js";
import { companyFields, type EventPageSettings } from "../../modules/event-page/page-settings.js";
import { actorOf, type PageContext, redirectTo } from "../context.js";
import { formValues } from "../form-data.js";
import { Form, formState, SelectField, SubmitButton } from "../ui/forms.js";

const companyLabels: Record<CompanyField, string> = {
  OPTIONAL: "Asked, optional",
  REQUIRED: "Asked, required",
  HIDDEN: "Not asked",
};

/** Settings → General: the public event page's switches (shown to those who may change the project). */
export function EventPagePanel(props: {
  ctx: PageContext;
  projectId: string;
  published: boolean;
  settings: EventPageSettings;
}) {
  const { settings, projectId } = props;
  const state = formState({ companyField: settings.companyField });
  return (
    <section class="panel" aria-labelledby="event-page-heading">
      <h3 id="event-page-heading">Public event page</h3>
      <p>
        {props.published && settings.pageEnabled ? (
          <>
            Visitors see the event at <a href={`/e/${projectId}`}>{`/e/${projectId}`}</a>, with its published
            sessions, speakers and tickets on sale.
          </>
        ) : (
          "The page is shown only while the project is published and the page is on."
        )}
      </p>
      <p>
        <a href={`/b/${projectId}/settings/languages`}>Languages and translations</a> of the page and the
        attendees' emails.
      </p>
      <Form action={`/b/${projectId}/settings/event-page`} csrf={props.ctx.csrf} label="Public event page">
        <fieldset class="fieldset">
          <legend>Page and registration</legend>
          <div class="checkbox">
            <input
              type="checkbox"
              id="f-pageEnabled"
              name="pageEnabled"
              value="on"
              checked={settings.pageEnabled}
            />
            <label for="f-pageEnabled">
              <span class="checkbox-label">Show the event page</span>
            </label>
          </div>
          <div class="checkbox">
            <input
              type="checkbox"
              id="f-registrationOpen"
              name="registrationOpen"
              value="on"
              checked={settings.registrationOpen}
            />
            <label for="f-registrationOpen">
              <span class="checkbox-label">Registration open</span>
              <span class="hint">Free tickets, and paid ones set to "pay at the door" or "invoice".</span>
            </label>
          </div>
        </fieldset>
        <SelectField
          name="companyField"
          label="Company on the registration form"
          state={state}
          required
          options={companyFields.map((value) => ({ value, label: companyLabels[value] }))}
        />
        <div class="form-actions">
          <SubmitButton>Save page settings</SubmitButton>
        </div>
      </Form>
    </section>
  );
}

/** Saves the event page's switches (needs project:write, like the other General settings). */
export function registerEventPageSettings(app: FastifyInstance): void {
  app.post<{ Params: { projectId: string } }>("/b/:projectId/settings/event-page", async (request, reply) => {
    const values = formValues(request.body);
    const companyField = companyFields.find((c) => c === values.companyField) ?? "OPTIONAL";
    const settings = await app.services.eventPage.updateSettings(actorOf(request), request.params.projectId, {
      pageEnabled: values.pageEnabled === "on",
      registrationOpen: values.registrationOpen === "on",
      companyField,
    });
    const text = settings.pageEnabled
      ? "Event page settings saved."
      : "Event page settings saved; the page is off.";
    return redirectTo(request, reply, `/b/${request.params.projectId}/settings`, { kind: "success", text });
  });
}
