import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../../errors.js";
import { servedVersions, sunsetOf } from "../../graphql/versions/api-versions.js";
import type { Actor } from "../../modules/access/actor.js";
import type { App } from "../../modules/apps/apps.service.js";
import { redirectTo } from "../context.js";
import { formValues } from "../form-data.js";
import { Form, formState, SelectField, SubmitButton } from "../ui/forms.js";
import { appPath } from "./api-tab.js";

type AppRequest = FastifyRequest<{ Params: { projectId: string; appId: string } }>;

/** The label of a version in the select: when it stops being answered, or that it is the newest. */
function versionLabel(name: string, sunset: string | undefined): string {
  return sunset ? `${name} (until ${sunset})` : `${name} (newest)`;
}

/**
 * The app's API version on its Settings tab: the version its requests without an
 * `Eventgraph-Version` header, and its webhook payloads, are answered in.
 */
export function ApiVersionPanel(props: { app: App; csrf: string }) {
  const { app } = props;
  const options = servedVersions(new Date()).map((v) => ({
    value: v.name,
    label: versionLabel(v.name, sunsetOf(v)),
  }));
  return (
    <section class="panel spaced narrow-panel" aria-labelledby="api-version-heading">
      <h4 id="api-version-heading">API version</h4>
      <p>
        Requests without an <code>Eventgraph-Version</code> header, and webhook payloads, are answered in this
        version. Test a newer one by sending the header before you switch.{" "}
        <a href="/graphql/reference/guides/versioning">What changed in each version</a>
      </p>
      <Form action={`${appPath(app)}/api-version`} csrf={props.csrf} label="API version">
        <SelectField
          name="apiVersion"
          label="API version"
          required
          options={options}
          state={formState({ apiVersion: app.apiVersion })}
        />
        <div class="form-actions">
          <SubmitButton>Save version</SubmitButton>
        </div>
      </Form>
    </section>
  );
}

/**
 * `POST …/apps/:appId/api-version`: pins the app to the chosen version. `load` is the app pages'
 * loader (app-details.tsx): the member's role and the app's project checked.
 */
export function registerApiVersionRoute(
  app: FastifyInstance,
  load: (request: AppRequest) => Promise<{ data: { actor: Actor }; found: App }>,
): void {
  app.post("/b/:projectId/settings/api/apps/:appId/api-version", async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    const chosen = formValues(request.body).apiVersion ?? "";
    try {
      await app.services.apps.updateApp(data.actor, { id: found.id, apiVersion: chosen });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return redirectTo(request, reply, appPath(found), {
        kind: "error",
        text: `API version: ${error.message}`,
      });
    }
    return redirectTo(request, reply, appPath(found), {
      kind: "success",
      text: `Requests without a version header are now answered in ${chosen}.`,
    });
  });
}
