import type { FastifyInstance, FastifyReply } from "fastify";
import { httpStatusOf, notFound } from "../../errors.js";
import type { App } from "../../modules/apps/apps.service.js";
import { eventCatalogue } from "../../modules/webhooks/catalogue.js";
import {
  type Delivery,
  deliveryStatuses,
  type WebhookEndpoint,
} from "../../modules/webhooks/webhooks.service.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { formList, formValues, stateFromError } from "../form-data.js";
import type { ProjectPageData } from "../pages/project-page.js";
import { formatDateTime } from "../time.js";
import { Badge, DataTable, EmptyState, Notice } from "../ui/components.js";
import {
  CheckboxGroup,
  Form,
  FormError,
  type FormState,
  formState,
  SubmitButton,
  TextAreaField,
  TextField,
} from "../ui/forms.js";
import { sendPage } from "../ui/render.js";
import { appPath } from "./api-tab.js";
import { AppFrame, type AppRequest, loadAppPage } from "./app-details.js";
import { SecretDialog } from "./app-ui.js";

type StatusFilter = (typeof deliveryStatuses)[number] | undefined;

const statusTone = {
  PENDING: "neutral",
  DELIVERED: "success",
  FAILED: "danger",
  CANCELLED: "neutral",
} as const;

/** Fragments as the form shows them: one `event.type: selection` per line. */
function fragmentLines(fragments: Record<string, string>): string {
  return Object.entries(fragments)
    .map(([type, selection]) => `${type}: ${selection}`)
    .join("\n");
}

function parseFragmentLines(text: string): Record<string, string> {
  const fragments: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) fragments[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return fragments;
}

const when = (iso: string | null) => (iso ? formatDateTime(iso, "UTC") : "—");

function WebhooksTab(props: {
  ctx: PageContext;
  data: ProjectPageData;
  app: App;
  endpoint: WebhookEndpoint | undefined;
  deliveries: Delivery[];
  status: StatusFilter;
  state: FormState;
  checked: readonly string[];
  newSecret?: string | undefined;
}) {
  const { app, ctx, endpoint } = props;
  const path = `${appPath(app)}/webhooks`;
  return (
    <AppFrame ctx={ctx} data={props.data} app={app} tab="webhooks">
      {endpoint?.disabledAt ? (
        <Notice kind="error">
          Deliveries to this endpoint failed for 3 days, so it was disabled on {when(endpoint.disabledAt)}.
          Fix the receiver, save the endpoint again, then redeliver the failed events.
        </Notice>
      ) : null}
      <section class="panel narrow-panel" aria-labelledby="endpoint-heading">
        <h4 id="endpoint-heading">Endpoint</h4>
        <p>
          Events are sent as signed POST requests (Standard Webhooks: <code>webhook-id</code>,{" "}
          <code>webhook-timestamp</code>, <code>webhook-signature</code>), retried for about a day.
          {endpoint ? (
            <>
              {" "}
              Signing secret: <code>whsec_…{endpoint.secretLastFour}</code>
            </>
          ) : null}
        </p>
        <Form action={path} csrf={ctx.csrf} label="Webhook endpoint">
          <FormError state={props.state} />
          <TextField
            name="url"
            label="Endpoint URL"
            type="url"
            state={props.state}
            required
            hint="An https:// address on the public internet."
          />
          <CheckboxGroup
            name="events"
            label="Events"
            state={props.state}
            checked={props.checked}
            options={eventCatalogue.map((e) => ({
              value: e.type,
              label: e.type,
              description: e.permission ? `${e.description} Needs ${e.permission}.` : e.description,
            }))}
            hint="A project sends only the events its link's permissions allow."
          />
          <TextAreaField
            name="fragments"
            label="Payload fragments"
            state={props.state}
            rows={3}
            hint="One line per event type, e.g. attendee.registered: id name email ticketType { name }. Without one, data.object has the default fields."
          />
          <div class="form-actions">
            <SubmitButton>Save endpoint</SubmitButton>
          </div>
        </Form>
        {endpoint ? (
          <div class="form-actions spaced">
            <Form action={`${path}/test`} csrf={ctx.csrf} label="Send test event">
              <SubmitButton variant="secondary">Send test event</SubmitButton>
            </Form>
            <Form
              action={`${path}/rotate`}
              csrf={ctx.csrf}
              label="Rotate secret"
              confirm="Issue a new signing secret? The current one keeps signing beside it for 24 hours."
            >
              <SubmitButton variant="secondary">Rotate secret</SubmitButton>
            </Form>
          </div>
        ) : null}
      </section>
      <h4 class="spaced">Deliveries</h4>
      <nav class="filter-links" aria-label="Filter deliveries by status">
        {[undefined, ...deliveryStatuses].map((s) => (
          <a
            href={s ? `${path}?status=${s.toLowerCase()}` : path}
            aria-current={s === props.status ? "page" : undefined}
            class="button button-secondary button-small"
          >
            {s ? s.charAt(0) + s.slice(1).toLowerCase() : "All"}
          </a>
        ))}
      </nav>
      {props.deliveries.length === 0 ? (
        <EmptyState title="No deliveries">
          <p>Events appear here once they are recorded, with every attempt's answer.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption="Deliveries"
          columns={["Event", "Status", "Attempts", "Answer", "Recorded", { label: "Actions", hidden: true }]}
        >
          {props.deliveries.map((d) => (
            <tr>
              <th scope="row">
                {d.type} <code class="project-id">{d.projectId}</code>
                <div class="muted small">{d.id}</div>
              </th>
              <td>
                <Badge tone={statusTone[d.status]}>{d.status.toLowerCase()}</Badge>
              </td>
              <td>{d.attempts}</td>
              <td class="muted small">{d.responseStatus ?? d.lastError ?? "—"}</td>
              <td class="muted small">{when(d.createdAt)}</td>
              <td>
                {d.status === "PENDING" ? null : (
                  <Form action={`${path}/redeliver`} csrf={ctx.csrf} label={`Redeliver ${d.id}`}>
                    <input type="hidden" name="deliveryId" value={d.id} />
                    <SubmitButton variant="secondary">Redeliver</SubmitButton>
                  </Form>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <section class="panel narrow-panel spaced" aria-labelledby="redeliver-heading">
        <h4 id="redeliver-heading">Redeliver failed events</h4>
        <Form action={`${path}/redeliver`} csrf={ctx.csrf} label="Redeliver all failed">
          <TextField
            name="since"
            label="Failed events recorded since (UTC)"
            type="datetime-local"
            state={formState()}
            required
          />
          <div class="form-actions">
            <SubmitButton variant="secondary">Redeliver all failed</SubmitButton>
          </div>
        </Form>
      </section>
      {props.newSecret ? (
        <SecretDialog what="signing secret" id="secret" secret={props.newSecret} closeTo={path}>
          Receivers verify each request's signature with this secret. It is shown only this once.
        </SecretDialog>
      ) : null}
    </AppFrame>
  );
}

/** The app's Webhooks tab: endpoint and events, test event, secret rotation, the delivery log. */
export function registerWebhooksTab(app: FastifyInstance): void {
  const { services } = app;

  const load = (request: AppRequest) => loadAppPage(app, request);

  async function render(
    request: AppRequest,
    reply: FastifyReply,
    loaded: Awaited<ReturnType<typeof load>>,
    extra: { state?: FormState; checked?: readonly string[]; newSecret?: string; status?: number } = {},
  ) {
    const { data, found } = loaded;
    const query = request.query as { status?: string };
    const wanted = query.status?.toUpperCase();
    const status = deliveryStatuses.find((s) => s === wanted);
    const [endpoint, deliveries] = await Promise.all([
      services.webhooks.endpointOf(data.actor, found.id),
      services.webhooks.deliveries(data.actor, found.id, { status, limit: 100 }),
    ]);
    const state =
      extra.state ??
      formState({ url: endpoint?.url ?? "", fragments: fragmentLines(endpoint?.fragments ?? {}) });
    return sendPage(
      reply,
      <WebhooksTab
        ctx={pageContext(request, reply)}
        data={data}
        app={found}
        endpoint={endpoint}
        deliveries={deliveries}
        status={status}
        state={state}
        checked={extra.checked ?? endpoint?.events ?? []}
        newSecret={extra.newSecret}
      />,
      extra.status,
    );
  }

  const base = "/b/:projectId/settings/api/apps/:appId/webhooks";

  app.get(base, async (request: AppRequest, reply) => render(request, reply, await load(request)));

  app.post(base, async (request: AppRequest, reply) => {
    const loaded = await load(request);
    const values = formValues(request.body);
    const checked = formList(request.body, "events");
    try {
      const { secret } = await services.webhooks.configure(loaded.data.actor, {
        appId: loaded.found.id,
        url: values.url ?? "",
        events: checked,
        fragments: parseFragmentLines(values.fragments ?? ""),
      });
      if (secret) return render(request, reply, loaded, { newSecret: secret });
      return redirectTo(request, reply, `${appPath(loaded.found)}/webhooks`, {
        kind: "success",
        text: "Endpoint saved.",
      });
    } catch (error) {
      return render(request, reply, loaded, {
        state: stateFromError(error, values),
        checked,
        status: httpStatusOf(error),
      });
    }
  });

  app.post(`${base}/rotate`, async (request: AppRequest, reply) => {
    const loaded = await load(request);
    const endpoint = await services.webhooks.endpointOf(loaded.data.actor, loaded.found.id);
    if (!endpoint) throw notFound("Webhook");
    const { secret } = await services.webhooks.configure(loaded.data.actor, {
      appId: loaded.found.id,
      url: endpoint.url,
      events: endpoint.events,
      fragments: endpoint.fragments,
      rotateSecret: true,
    });
    return render(request, reply, loaded, { newSecret: secret });
  });

  app.post(`${base}/test`, async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    await services.webhooks.sendPing(data.actor, found.id);
    return redirectTo(request, reply, `${appPath(found)}/webhooks`, {
      kind: "success",
      text: "A signed ping is on its way; it appears in the deliveries below.",
    });
  });

  app.post(`${base}/redeliver`, async (request: AppRequest, reply) => {
    const { data, found } = await load(request);
    const values = formValues(request.body);
    const back = `${appPath(found)}/webhooks`;
    if (values.deliveryId) {
      await services.webhooks.redeliver(data.actor, values.deliveryId);
      return redirectTo(request, reply, back, { kind: "success", text: "Queued for redelivery." });
    }
    // datetime-local has no zone: the form says UTC.
    const since =
      values.since && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(values.since)
        ? `${values.since.slice(0, 16)}:00.000Z`
        : "";
    const count = await services.webhooks.redeliverFailedSince(data.actor, found.id, since);
    return redirectTo(request, reply, back, {
      kind: "success",
      text: `${count} failed ${count === 1 ? "delivery" : "deliveries"} queued for redelivery.`,
    });
  });
}
