import type { FastifyInstance } from "fastify";
import { type AppError, isUserError } from "../../errors.js";
import type { AttendeeImport, ImportOutcome } from "../../modules/attendees/attendee-import.model.js";
import {
  answerMapField,
  type ImportMapping,
  importFieldLabels,
  importFields,
  maxImportBytes,
  maxImportRows,
  optionalImportFields,
} from "../../modules/attendees/attendees-csv.js";
import type { Question } from "../../modules/questions/questions.model.js";
import { type PageContext, pageContext, redirectTo } from "../context.js";
import { csvUploadRoutes, uploadedFile } from "../csv-upload.js";
import { formValues } from "../form-data.js";
import { type FormRequest, pageRoute } from "../form-route.js";
import { DataTable, Facts, Notice } from "../ui/components.js";
import { csrfFieldName, Form, formState, SelectField, SubmitButton } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { SendTicketField } from "./attendee-edit.js";
import { loadProjectPage, type ProjectPageData } from "./project-page.js";

// "Email needs a column: …; Ticket type …": the mapping's field errors as one sentence.
function fieldErrorText(error: AppError): string {
  const labels = Object.fromEntries(importFields.map((f) => [`map_${f}`, importFieldLabels[f]]));
  const fields = error.details.fieldErrors ?? [];
  if (fields.length === 0) return error.message;
  return fields.map((f) => `${labels[f.field[0] ?? ""] ?? "The mapping"} ${f.message}.`).join(" ");
}

/** Problems listed on the preview; the counts above the list cover every row. */
const shownProblems = 100;

const problemTitles = {
  invalid: "Invalid",
  "unknown-ticket-type": "Unknown ticket type",
  "sold-out": "Sold out",
  duplicate: "Duplicate",
} as const;

function ImportLayout(props: { ctx: PageContext; data: ProjectPageData; title: string; children: unknown }) {
  return (
    <ProjectLayout ctx={props.ctx} project={props.data.project} section="attendees" title={props.title}>
      <p>
        <a href={`/b/${props.data.project.id}/attendees`}>← Attendees</a>
      </p>
      <PageHeading title={props.title} level={2} />
      {props.children}
    </ProjectLayout>
  );
}

function UploadPage(props: { ctx: PageContext; data: ProjectPageData }) {
  const base = `/b/${props.data.project.id}/attendees/import`;
  return (
    <ImportLayout ctx={props.ctx} data={props.data} title="Import attendees">
      <p>
        A CSV file with a header row and one attendee per row: name (or first and last name in two columns),
        email, ticket type (its name as on the Tickets page) and optionally company. You map the columns and
        see every row's problems before anything is imported; rows whose email is already registered are
        skipped, so importing a file twice registers nobody twice.
      </p>
      <p class="muted">
        Up to {maxImportRows.toLocaleString("en")} rows and {maxImportBytes / 1024 / 1024} MB, UTF-8.
      </p>
      <form method="post" action={base} enctype="multipart/form-data" class="form" aria-label="Upload CSV">
        <input type="hidden" name={csrfFieldName} value={props.ctx.csrf} />
        <div class="field">
          <label for="import-file">CSV file</label>
          <input id="import-file" name="file" type="file" accept=".csv,text/csv" required />
        </div>
        <SubmitButton>Upload and preview</SubmitButton>
      </form>
    </ImportLayout>
  );
}

/** A mapping as the form fields that carry it: each attendee field's and each question's column. */
function mappingValues(mapping: ImportMapping, questions: readonly Question[]): Record<string, string> {
  return Object.fromEntries([
    ...importFields.map((f) => [`map_${f}`, mapping[f]?.toString() ?? ""]),
    ...questions.map((q) => [answerMapField(q.id), mapping.answers?.[q.id]?.toString() ?? ""]),
  ]);
}

function MappingForm(props: {
  base: string;
  headers: string[];
  mapping: ImportMapping;
  questions: readonly Question[];
}) {
  const options = props.headers.map((header, index) => ({
    value: String(index),
    label: header || `Column ${index + 1}`,
  }));
  const values = mappingValues(props.mapping, props.questions);
  return (
    <form method="get" action={props.base} class="form mapping-form" aria-label="Column mapping">
      <div class="mapping-grid">
        {importFields.map((field) => (
          <SelectField
            name={`map_${field}`}
            label={importFieldLabels[field]}
            state={formState(values)}
            options={options}
            required={!optionalImportFields.has(field)}
            placeholder={optionalImportFields.has(field) ? "(none)" : "Choose a column"}
          />
        ))}
        {props.questions.map((question) => (
          <SelectField
            name={answerMapField(question.id)}
            label={`Answer: ${question.label}`}
            state={formState(values)}
            options={options}
            placeholder="(none)"
          />
        ))}
      </div>
      <button type="submit" class="button button-secondary">
        Check again with this mapping
      </button>
    </form>
  );
}

function OutcomeSummary(props: { outcome: ImportOutcome }) {
  const { outcome } = props;
  const counts = new Map<string, number>();
  for (const p of outcome.problems) counts.set(p.kind, (counts.get(p.kind) ?? 0) + 1);
  return (
    <section aria-labelledby="check-heading">
      <h3 id="check-heading">Check</h3>
      <Facts
        items={[
          ["Rows", outcome.total],
          ["Ready to import", outcome.imported],
          ...Object.entries(problemTitles).map(([kind, title]) => [title, counts.get(kind) ?? 0] as const),
        ]}
      />
      {outcome.problems.length > 0 ? (
        <DataTable
          caption={
            <>
              Rows that will be skipped
              {outcome.problems.length > shownProblems
                ? ` (first ${shownProblems} of ${outcome.problems.length})`
                : ""}
            </>
          }
          showCaption
          columns={["Line", "Email", "Problem"]}
        >
          {outcome.problems.slice(0, shownProblems).map((p) => (
            <tr>
              <td>{p.line}</td>
              <td>{p.email}</td>
              <td>
                <strong>{problemTitles[p.kind]}:</strong> {p.message}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}

function PreviewPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  upload: AttendeeImport;
  headers: string[];
  sample: string[][];
  mapping: ImportMapping;
  questions: readonly Question[];
  outcome: ImportOutcome | undefined;
  mappingError?: string;
  mailDelivers: boolean;
}) {
  const base = `/b/${props.data.project.id}/attendees/import/${props.upload.id}`;
  const { outcome } = props;
  return (
    <ImportLayout ctx={props.ctx} data={props.data} title={`Import ${props.upload.fileName}`}>
      <p>
        {props.upload.rowCount} rows. Map the file's columns to the attendee's fields; the check below shows
        what importing would do.
      </p>
      <DataTable caption="First rows of the file" showCaption columns={props.headers}>
        {props.sample.map((cells) => (
          <tr>
            {props.headers.map((_, i) => (
              <td>{cells[i] ?? ""}</td>
            ))}
          </tr>
        ))}
      </DataTable>
      <MappingForm base={base} headers={props.headers} mapping={props.mapping} questions={props.questions} />
      {props.mappingError ? <Notice kind="error">{props.mappingError}</Notice> : null}
      {outcome ? <OutcomeSummary outcome={outcome} /> : null}
      {outcome && outcome.imported > 0 ? (
        <Form action={`${base}/run`} csrf={props.ctx.csrf} label="Run import">
          {Object.entries(mappingValues(props.mapping, props.questions)).map(([name, value]) => (
            <input type="hidden" name={name} value={value} />
          ))}
          <SendTicketField state={formState()} delivers={props.mailDelivers} />
          <SubmitButton>
            Import {outcome.imported} {outcome.imported === 1 ? "attendee" : "attendees"}
          </SubmitButton>
        </Form>
      ) : outcome ? (
        <Notice kind="info">No row can be imported.</Notice>
      ) : null}
    </ImportLayout>
  );
}

function ProgressPage(props: { ctx: PageContext; data: ProjectPageData; upload: AttendeeImport }) {
  const { upload } = props;
  const running = upload.status === "RUNNING";
  return (
    <ImportLayout ctx={props.ctx} data={props.data} title={running ? "Importing…" : "Import finished"}>
      {/* A refresh, not a script: the bar moves on without JavaScript too. */}
      {running ? <meta http-equiv="refresh" content="1" /> : null}
      <label for="import-progress">
        {upload.processedRows} of {upload.rowCount} rows processed
      </label>
      <progress id="import-progress" max={upload.rowCount} value={upload.processedRows}>
        {upload.processedRows} of {upload.rowCount}
      </progress>
      {running ? null : (
        <Notice kind="success">
          {upload.importedRows} imported, {upload.skippedRows} skipped (invalid, sold out or already
          registered).
        </Notice>
      )}
      {running ? null : (
        <p>
          <a class="button button-primary" href={`/b/${props.data.project.id}/attendees`}>
            See the attendees
          </a>
        </p>
      )}
    </ImportLayout>
  );
}

/** Import CSV: upload, preview with column mapping and per-row problems, run with a progress bar. */
export function registerAttendeeImportPages(app: FastifyInstance): void {
  const { services } = app;
  const importPath = (data: ProjectPageData, id = "") =>
    `/b/${data.project.id}/attendees/import${id ? `/${id}` : ""}`;

  pageRoute(app, "/b/:projectId/attendees/import", (request, reply, data) => (
    <UploadPage ctx={pageContext(request, reply)} data={data} />
  ));

  csvUploadRoutes(app, (upload) => {
    upload.post("/b/:projectId/attendees/import", async (request: FormRequest, reply) => {
      const data = await loadProjectPage(app, request);
      const file = uploadedFile(request);
      const created = await services.attendeeFiles.upload(
        data.actor,
        data.project.id,
        file.fileName,
        file.content,
      );
      return redirectTo(request, reply, importPath(data, created.id));
    });
  });

  app.get("/b/:projectId/attendees/import/:importId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const importId = request.params.importId ?? "";
    const current = await services.attendeeFiles.get(data.actor, data.project.id, importId);
    const ctx = pageContext(request, reply);
    if (current.status !== "READY")
      return sendPage(reply, <ProgressPage ctx={ctx} data={data} upload={current} />);
    const chosen = Object.keys(request.query).some((k) => k.startsWith("map_"));
    const delivers = services.ticketMails.delivers;
    try {
      const preview = await services.attendeeFiles.preview(
        data.actor,
        data.project.id,
        importId,
        chosen ? request.query : undefined,
      );
      const page = (
        <PreviewPage ctx={ctx} data={data} {...preview} upload={preview.import} mailDelivers={delivers} />
      );
      return sendPage(reply, page);
    } catch (error) {
      if (!chosen || !isUserError(error)) throw error;
      // A mapping that cannot work (a required field without a column): the guessed one, and why.
      const guessed = await services.attendeeFiles.preview(data.actor, data.project.id, importId);
      const page = (
        <PreviewPage
          ctx={ctx}
          data={data}
          {...guessed}
          upload={guessed.import}
          outcome={undefined}
          mappingError={fieldErrorText(error)}
          mailDelivers={delivers}
        />
      );
      return sendPage(reply, page, 400);
    }
  });

  app.post("/b/:projectId/attendees/import/:importId/run", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const importId = request.params.importId ?? "";
    const fields = formValues(request.body);
    const { done } = await services.attendeeFiles.start(data.actor, data.project.id, importId, fields, {
      sendTickets: fields.sendTickets === "yes",
    });
    // The import goes on after this answer; its page shows the progress kept in the database.
    done.catch((error: unknown) => request.log.error({ err: error }, "Attendee import failed"));
    return redirectTo(request, reply, importPath(data, importId));
  });
}
