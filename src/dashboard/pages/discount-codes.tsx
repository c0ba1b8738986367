import type { FastifyInstance, FastifyReply } from "fastify";
import type { DiscountCode } from "../../modules/discount-codes/discount-codes.model.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";

import { resolvePageArgs } from "../../shared/pagination.js";
import { type PageContext, pageContext } from "../context.js";
import { type FormRequest, formRoute, pageRoute, type RowLookup, rowFormRoute } from "../form-route.js";
import { formatDateTime } from "../time.js";
import { DataTable, EmptyState } from "../ui/components.js";
import { Form, FormError, type FormState, formState, SubmitButton, TextField } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { TermFields, terms, termsErrorState, termsInput, withChecked } from "./discount-code-form.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

const pageSize = 50;

function CodesPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  codes: DiscountCode[];
  total: number;
  next: string | null;
  batch: string | undefined;
  ticketTypes: TicketType[];
  currency: string;
  state: FormState;
  generateState: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/codes`;
  const csv = `${base}/export.csv${props.batch ? `?batch=${encodeURIComponent(props.batch)}` : ""}`;
  const names = new Map(props.ticketTypes.map((t) => [t.id, t.name]));
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="tickets" title="Discount codes">
      <PageHeading title={props.batch ? `Discount codes · ${props.batch}` : "Discount codes"} level={2}>
        <a href={csv} class="button button-secondary">
          Download CSV
        </a>
      </PageHeading>
      <p class="muted">
        {props.total} {props.total === 1 ? "code" : "codes"}
        {props.batch ? (
          <>
            {" "}
            in this batch · <a href={base}>All codes</a>
          </>
        ) : null}
        . Buyers type a code on the event page or follow <code>/e/{project.id}?code=…</code>.
      </p>
      {props.codes.length === 0 ? (
        <EmptyState title="No codes yet">
          <p>Add a code below, or generate a batch of single-use codes for a sponsor.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption="Discount codes"
          columns={[
            "Code",
            "Terms",
            { label: "Uses", numeric: true },
            "Valid",
            "Ticket types",
            "Batch",
            { label: "Actions", hidden: true },
          ]}
        >
          {props.codes.map((code) => (
            <tr>
              <th scope="row">
                <code>{code.code}</code>
              </th>
              <td>{terms(code, props.currency)}</td>
              <td class="num">
                {code.uses}
                {code.maxUses === null ? "" : ` of ${code.maxUses}`}
              </td>
              <td class="muted">
                {code.validFrom ? `from ${formatDateTime(code.validFrom, project.timezone)} ` : ""}
                {code.validUntil ? `until ${formatDateTime(code.validUntil, project.timezone)}` : ""}
                {!code.validFrom && !code.validUntil ? "Always" : ""}
              </td>
              <td class="muted">
                {code.ticketTypeIds
                  ? code.ticketTypeIds.map((id) => names.get(id) ?? "(deleted)").join(", ")
                  : "All"}
              </td>
              <td>
                {code.batch ? (
                  <a href={`${base}?batch=${encodeURIComponent(code.batch)}`}>{code.batch}</a>
                ) : null}
              </td>
              <td>
                <Form
                  action={`${base}/${code.id}/delete`}
                  csrf={props.ctx.csrf}
                  class="inline-form"
                  confirm={`Delete the code ${code.code}? Orders placed with it keep their discount.`}
                >
                  <button type="submit" class="button button-link" aria-label={`Delete code ${code.code}`}>
                    Delete
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {props.next ? (
        <p>
          <a
            href={`${base}?${props.batch ? `batch=${encodeURIComponent(props.batch)}&` : ""}after=${encodeURIComponent(props.next)}`}
          >
            Next page
          </a>
        </p>
      ) : null}
      <section class="panel spaced" aria-labelledby="add-code-heading">
        <h2 id="add-code-heading">Add code</h2>
        <Form action={base} csrf={props.ctx.csrf} label="Add code">
          <FormError state={props.state} />
          <TextField
            name="code"
            label="Code"
            state={props.state}
            required
            hint="3 to 40 letters, digits, - or _; case does not matter."
          />
          <TermFields state={props.state} ticketTypes={props.ticketTypes} prefix="add" />
          <div class="form-actions">
            <SubmitButton>Add code</SubmitButton>
          </div>
        </Form>
      </section>
      <section class="panel spaced" aria-labelledby="generate-heading">
        <h2 id="generate-heading">Generate codes</h2>
        <Form action={`${base}/generate`} csrf={props.ctx.csrf} label="Generate codes">
          <FormError state={props.generateState} />
          <div class="field-row">
            <TextField
              name="count"
              label="How many"
              type="number"
              min="1"
              state={formState()}
              idPrefix="gen"
              required
            />
            <TextField
              name="prefix"
              label="Prefix"
              state={props.generateState}
              idPrefix="gen"
              hint="e.g. SPONSOR-"
            />
            <TextField name="batch" label="Batch name" state={props.generateState} idPrefix="gen" />
          </div>
          <TermFields state={props.generateState} ticketTypes={props.ticketTypes} prefix="gen" />
          <div class="form-actions">
            <SubmitButton>Generate codes</SubmitButton>
          </div>
        </Form>
      </section>
    </ProjectLayout>
  );
}

/** Discount codes: the list with each code's uses, add, generate, delete and the CSV (tickets:write). */
export function registerDiscountCodePages(app: FastifyInstance): void {
  const { services } = app;
  const codeRow: RowLookup<DiscountCode> = {
    param: "codeId",
    what: "Discount code",
    find: (actor, id) => services.discountCodes.findDiscountCode(actor, id),
  };
  const codesPath = (data: ProjectPageData) => `/b/${data.project.id}/codes`;

  async function ticketTypesOf(data: ProjectPageData) {
    return (await services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow())).items;
  }

  async function page(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
    generateState = formState({ maxUses: "1" }),
  ) {
    const query = request.query;
    const batch = query.batch?.slice(0, 100) || undefined;
    const window = resolvePageArgs({ first: pageSize, after: query.after || null });
    const [list, total, ticketTypes] = await Promise.all([
      services.discountCodes.listDiscountCodes(data.access, { batch }, window),
      services.discountCodes.countDiscountCodes(data.access, { batch }),
      ticketTypesOf(data),
    ]);
    return (
      <CodesPage
        ctx={pageContext(request, reply)}
        data={data}
        codes={list.items}
        total={total}
        next={list.hasNextPage ? list.endCursor : null}
        batch={batch}
        ticketTypes={ticketTypes}
        currency={ticketTypes[0]?.currency ?? "EUR"}
        state={state}
        generateState={generateState}
      />
    );
  }

  pageRoute(app, "/b/:projectId/codes", (request, reply, data) => page(request, reply, data, formState()));

  app.get("/b/:projectId/codes/export.csv", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const batch = request.query.batch?.slice(0, 100) || undefined;
    const csv = await services.discountCodes.exportCsv(data.actor, data.project.id, batch);
    return reply
      .type("text/csv; charset=utf-8")
      .header("cache-control", "no-store")
      .header("content-disposition", `attachment; filename="codes-${data.project.id}.csv"`)
      .send(csv);
  });

  formRoute(app, "/b/:projectId/codes", {
    async submit({ data, values, request }) {
      const currency = (await ticketTypesOf(data))[0]?.currency ?? "EUR";
      const code = await services.discountCodes.createDiscountCode(data.actor, {
        projectId: data.project.id,
        code: values.code ?? "",
        ...termsInput(values, request.body, data.project.timezone, currency),
      });
      return { to: codesPath(data), flash: { kind: "success", text: `Code ${code.code} added.` } };
    },
    errorState: termsErrorState,
    invalid: ({ request, reply, data, values }, state) =>
      page(request, reply, data, { ...state, values: withChecked(values, request.body) }),
  });

  formRoute(app, "/b/:projectId/codes/generate", {
    async submit({ data, values, request }) {
      const currency = (await ticketTypesOf(data))[0]?.currency ?? "EUR";
      const count = Number(values.count);
      const codes = await services.discountCodes.generateDiscountCodes(data.actor, {
        projectId: data.project.id,
        count: Number.isInteger(count) ? count : 0,
        prefix: values.prefix || null,
        batch: values.batch || null,
        ...termsInput(values, request.body, data.project.timezone, currency),
      });
      const batch = codes[0]?.batch ?? "";
      return {
        to: `${codesPath(data)}?batch=${encodeURIComponent(batch)}`,
        flash: { kind: "success", text: `${codes.length} codes generated in the batch “${batch}”.` },
      };
    },
    errorState: termsErrorState,
    invalid: ({ request, reply, data, values }, state) =>
      page(request, reply, data, formState(), { ...state, values: withChecked(values, request.body) }),
  });

  rowFormRoute(app, "/b/:projectId/codes/:codeId/delete", codeRow, {
    async submit({ data, row }) {
      await services.discountCodes.deleteDiscountCode(data.actor, { id: row.id });
      return { to: codesPath(data), flash: { kind: "info", text: `Code ${row.code} deleted.` } };
    },
  });
}
