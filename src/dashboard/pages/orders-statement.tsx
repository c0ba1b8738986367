import type { FastifyInstance } from "fastify";
import { isUserError } from "../../errors.js";
import { maxImportBytes } from "../../modules/attendees/attendees-csv.js";
import type { StatementOutcome, StatementRow } from "../../modules/orders/bank-statement.js";
import { type PageContext, pageContext } from "../context.js";
import { csvUploadRoutes, uploadedFile, uploadFields } from "../csv-upload.js";
import type { FormRequest } from "../form-route.js";
import { DataTable, Facts, Notice } from "../ui/components.js";
import { csrfFieldName, SubmitButton } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { loadProjectPage, type ProjectPageData } from "./project-page.js";

const outcomeLabels: Record<StatementOutcome, string> = {
  MATCHED: "Matched",
  ALREADY_PAID: "Already paid",
  AMOUNT_MISMATCH: "Amount differs",
  REFUSED: "Refused",
  UNMATCHED: "Unmatched",
};

function StatementLayout(props: { ctx: PageContext; data: ProjectPageData; children: unknown }) {
  return (
    <ProjectLayout
      ctx={props.ctx}
      project={props.data.project}
      section="orders"
      title="Import bank statement"
    >
      <p>
        <a href={`/b/${props.data.project.id}/orders`}>← Orders</a>
      </p>
      <PageHeading title="Import bank statement" level={2} />
      {props.children}
    </ProjectLayout>
  );
}

function UploadForm(props: { ctx: PageContext; projectId: string }) {
  return (
    <form
      method="post"
      action={`/b/${props.projectId}/orders/statement`}
      enctype="multipart/form-data"
      class="form"
      aria-label="Upload bank statement"
    >
      <input type="hidden" name={csrfFieldName} value={props.ctx.csrf} />
      <div class="field">
        <label for="statement-file">Bank statement (CSV)</label>
        <input id="statement-file" name="file" type="file" accept=".csv,text/csv" required />
      </div>
      <div class="checkbox">
        <input id="statement-check" name="checkOnly" type="checkbox" value="yes" />
        <label for="statement-check">
          <span class="checkbox-label">Only check: mark nothing paid</span>
        </label>
      </div>
      <SubmitButton>Import statement</SubmitButton>
    </form>
  );
}

function UploadPage(props: { ctx: PageContext; data: ProjectPageData; error?: string }) {
  return (
    <StatementLayout ctx={props.ctx} data={props.data}>
      <p>
        Export the account's transactions from your bank as CSV (a header row and an Amount column: Amount,
        Betrag, Montant, …). Each credit whose text holds an order's code and whose amount is its total marks
        that pending bank-transfer order paid, as "Mark paid" does. Importing a statement again changes
        nothing: its orders are paid.
      </p>
      <p class="muted">Up to {maxImportBytes / 1024 / 1024} MB, UTF-8.</p>
      {props.error ? <Notice kind="error">{props.error}</Notice> : null}
      <UploadForm ctx={props.ctx} projectId={props.data.project.id} />
    </StatementLayout>
  );
}

function ResultPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  fileName: string;
  rows: StatementRow[];
  checkOnly: boolean;
}) {
  const count = (outcome: StatementOutcome) => props.rows.filter((r) => r.outcome === outcome).length;
  const matched = count("MATCHED");
  const base = `/b/${props.data.project.id}/orders`;
  return (
    <StatementLayout ctx={props.ctx} data={props.data}>
      <Notice kind={props.checkOnly ? "info" : "success"}>
        {props.checkOnly
          ? `Checked ${props.fileName}: ${matched} ${matched === 1 ? "order" : "orders"} would be marked paid. Nothing changed.`
          : `Imported ${props.fileName}: ${matched} ${matched === 1 ? "order" : "orders"} marked paid.`}
      </Notice>
      <Facts
        items={[
          ["Rows", props.rows.length],
          ...Object.entries(outcomeLabels).map(
            ([outcome, label]) => [label, count(outcome as StatementOutcome)] as const,
          ),
        ]}
      />
      <DataTable
        caption="Rows of the statement"
        showCaption
        columns={["Line", "Order", { label: "Amount", numeric: true }, "Result"]}
      >
        {props.rows.map((row) => (
          <tr>
            <td>{row.line}</td>
            <td>
              {row.orderCode && row.outcome !== "UNMATCHED" ? (
                <a href={`${base}?q=${encodeURIComponent(row.orderCode)}`}>{row.orderCode}</a>
              ) : (
                (row.orderCode ?? "—")
              )}
            </td>
            <td class="num">{row.amountMinor === null ? "—" : (row.amountMinor / 100).toFixed(2)}</td>
            <td>
              <strong>{outcomeLabels[row.outcome]}</strong>
              {row.message ? `: ${row.message}` : ""}
            </td>
          </tr>
        ))}
      </DataTable>
      <h3>Another statement</h3>
      <UploadForm ctx={props.ctx} projectId={props.data.project.id} />
    </StatementLayout>
  );
}

/**
 * The Orders tab's bank-statement import: the CLI's `orders import-statement` (one function,
 * importBankStatement) from an uploaded CSV, then a page of what each row did.
 */
export function registerStatementImport(app: FastifyInstance): void {
  app.get("/b/:projectId/orders/statement", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    return sendPage(reply, <UploadPage ctx={pageContext(request, reply)} data={data} />);
  });

  csvUploadRoutes(app, (upload) => {
    upload.post("/b/:projectId/orders/statement", async (request: FormRequest, reply) => {
      const data = await loadProjectPage(app, request);
      const ctx = pageContext(request, reply);
      const checkOnly = uploadFields(request).checkOnly === "yes";
      try {
        const file = uploadedFile(request);
        const rows = await app.services.importBankStatement(data.actor, {
          projectId: data.project.id,
          csv: file.content.toString("utf8"),
          dryRun: checkOnly,
        });
        const page = (
          <ResultPage ctx={ctx} data={data} fileName={file.fileName} rows={rows} checkOnly={checkOnly} />
        );
        return sendPage(reply, page);
      } catch (error) {
        if (!isUserError(error)) throw error;
        const problem = error.details.fieldErrors?.[0];
        const text = problem ? `The file ${problem.message}.` : error.message;
        return sendPage(reply, <UploadPage ctx={ctx} data={data} error={text} />, 400);
      }
    });
  });
}
