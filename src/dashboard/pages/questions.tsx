import type { FastifyInstance, FastifyReply } from "fastify";
import type { Question } from "../../modules/questions/questions.model.js";
import type { TicketType } from "../../modules/tickets/tickets.service.js";
import type { Language } from "../../shared/i18n/languages.js";
import { type PageContext, pageContext } from "../context.js";
import { formValues } from "../form-data.js";
import { type FormRequest, formRoute, loadRow, type RowLookup, rowFormRoute } from "../form-route.js";
import { DataTable, EmptyState } from "../ui/components.js";
import { EditForm, Form, FormError, type FormState, formState, SubmitButton } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";
import {
  kindLabels,
  QuestionFormFields,
  QuestionTranslationFields,
  questionInput,
  questionValues,
  withCheckedTypes,
} from "./question-form.js";

/** A small form button that posts one action on a question (move, delete). */
function RowAction(props: {
  ctx: PageContext;
  action: string;
  label: string;
  text: string;
  name?: string;
  value?: string;
  confirm?: string;
}) {
  return (
    <Form action={props.action} csrf={props.ctx.csrf} class="inline-form" confirm={props.confirm}>
      <button
        type="submit"
        class="button button-link"
        name={props.name}
        value={props.value}
        aria-label={props.label}
      >
        {props.text}
      </button>
    </Form>
  );
}

function QuestionsPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  questions: Question[];
  ticketTypes: TicketType[];
  state: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/questions`;
  const names = new Map(props.ticketTypes.map((t) => [t.id, t.name]));
  const last = props.questions.length - 1;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="tickets" title="Registration questions">
      <PageHeading title="Registration questions" level={2} />
      <p class="muted">
        Asked in this order on the event page, in the checkout and on the dashboard's register form. The
        answers are on each attendee's page and in the attendee CSV.
      </p>
      {props.questions.length === 0 ? (
        <EmptyState title="No questions yet">
          <p>Add a question below, e.g. “Dietary requirements” or “T-shirt size”.</p>
        </EmptyState>
      ) : (
        <DataTable
          caption="Registration questions"
          columns={["Question", "Kind", "Asked for", { label: "Actions", hidden: true }]}
        >
          {props.questions.map((q, i) => (
            <tr>
              <th scope="row">
                <a href={`${base}/${q.id}`}>{q.label}</a>
                {q.required ? <span class="muted"> · required</span> : null}
              </th>
              <td>
                {kindLabels[q.kind]}
                {q.options.length > 0 ? <span class="muted"> ({q.options.join(", ")})</span> : null}
              </td>
              <td class="muted">
                {q.ticketTypeIds
                  ? q.ticketTypeIds.map((id) => names.get(id) ?? "(deleted)").join(", ")
                  : "All"}
              </td>
              <td class="row-actions">
                {i > 0 ? (
                  <RowAction
                    ctx={props.ctx}
                    action={`${base}/${q.id}/move`}
                    name="direction"
                    value="up"
                    label={`Move ${q.label} up`}
                    text="Up"
                  />
                ) : null}
                {i < last ? (
                  <RowAction
                    ctx={props.ctx}
                    action={`${base}/${q.id}/move`}
                    name="direction"
                    value="down"
                    label={`Move ${q.label} down`}
                    text="Down"
                  />
                ) : null}
                <RowAction
                  ctx={props.ctx}
                  action={`${base}/${q.id}/delete`}
                  label={`Delete ${q.label}`}
                  text="Delete"
                  confirm={`Delete the question “${q.label}” and every answer to it?`}
                />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <section class="panel spaced" aria-labelledby="add-question-heading">
        <h2 id="add-question-heading">Add question</h2>
        <Form action={base} csrf={props.ctx.csrf} label="Add question">
          <FormError state={props.state} />
          <QuestionFormFields state={props.state} ticketTypes={props.ticketTypes} />
          <div class="form-actions">
            <SubmitButton>Add question</SubmitButton>
          </div>
        </Form>
      </section>
    </ProjectLayout>
  );
}

function EditQuestionPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  question: Question;
  ticketTypes: TicketType[];
  state: FormState;
  /** The event's languages after its first: the question's texts in each. */
  otherLanguages: readonly Language[];
}) {
  const base = `/b/${props.data.project.id}/questions`;
  return (
    <ProjectLayout ctx={props.ctx} project={props.data.project} section="tickets" title="Edit question">
      <div class="narrow-panel panel">
        <PageHeading title="Edit question" level={2} />
        <EditForm
          action={`${base}/${props.question.id}`}
          csrf={props.ctx.csrf}
          label="Edit question"
          state={props.state}
          submit="Save question"
          cancel={base}
        >
          <QuestionFormFields
            state={props.state}
            ticketTypes={props.ticketTypes}
            fixedKind={props.question.kind}
          />
          <QuestionTranslationFields
            state={props.state}
            question={props.question}
            languages={props.otherLanguages}
          />
        </EditForm>
      </div>
    </ProjectLayout>
  );
}

/** Registration questions: list in order, add, edit, move, delete (tickets:write; audited by the service). */
export function registerQuestionPages(app: FastifyInstance): void {
  const { services } = app;
  const questionRow: RowLookup<Question> = {
    param: "questionId",
    what: "Question",
    find: (actor, id) => services.questions.findQuestion(actor, id),
  };
  const questionsPath = (data: ProjectPageData) => `/b/${data.project.id}/questions`;

  async function ticketTypesOf(data: ProjectPageData) {
    return (await services.tickets.listTicketTypes(data.access, { onSaleOnly: false }, listWindow())).items;
  }

  async function listPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
  ) {
    const [questions, ticketTypes] = await Promise.all([
      services.questions.listQuestions(data.access),
      ticketTypesOf(data),
    ]);
    return (
      <QuestionsPage
        ctx={pageContext(request, reply)}
        data={data}
        questions={questions}
        ticketTypes={ticketTypes}
        state={state}
      />
    );
  }

  async function editPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    question: Question,
    state: FormState,
  ) {
    return (
      <EditQuestionPage
        ctx={pageContext(request, reply)}
        data={data}
        question={question}
        ticketTypes={await ticketTypesOf(data)}
        state={state}
        otherLanguages={await otherLanguagesOf(data)}
      />
    );
  }

  /** The event's languages after its first, in which a question's texts can be given. */
  async function otherLanguagesOf(data: ProjectPageData) {
    return (await services.eventLanguages.read(data.actor, data.project.id)).languages.slice(1);
  }

  app.get("/b/:projectId/questions", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    return sendPage(reply, await listPage(request, reply, data, formState()));
  });

  formRoute(app, "/b/:projectId/questions", {
    async submit({ data, values, request }) {
      const question = await services.questions.createQuestion(data.actor, {
        projectId: data.project.id,
        kind: values.kind ?? "",
        ...questionInput(values, request.body),
      });
      return { to: questionsPath(data), flash: { kind: "success", text: `“${question.label}” added.` } };
    },
    invalid: ({ request, reply, data, values }, state) =>
      listPage(request, reply, data, { ...state, values: withCheckedTypes(values, request.body) }),
  });

  app.get("/b/:projectId/questions/:questionId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const question = await loadRow(data, questionRow, request.params);
    const translations = await services.questions.translationsByQuestionIds([question.id]);
    const values = questionValues(question, translations.get(question.id));
    return sendPage(reply, await editPage(request, reply, data, question, formState(values)));
  });

  rowFormRoute(app, "/b/:projectId/questions/:questionId", questionRow, {
    async submit({ data, row, values, request }) {
      const input = questionInput({ ...values, kind: row.kind }, request.body, {
        languages: await otherLanguagesOf(data),
        options: row.options,
      });
      const saved = await services.questions.updateQuestion(data.actor, { id: row.id, ...input });
      return { to: questionsPath(data), flash: { kind: "success", text: `“${saved.label}” saved.` } };
    },
    invalid: ({ request, reply, data, row, values }, state) =>
      editPage(request, reply, data, row, { ...state, values: withCheckedTypes(values, request.body) }),
  });

  rowFormRoute(app, "/b/:projectId/questions/:questionId/move", questionRow, {
    async submit({ data, row, request }) {
      const order = (await services.questions.listQuestions(data.access)).map((q) => q.id);
      const from = order.indexOf(row.id);
      const to = formValues(request.body).direction === "up" ? from - 1 : from + 1;
      if (from >= 0 && to >= 0 && to < order.length) {
        [order[from], order[to]] = [order[to] ?? row.id, row.id];
        await services.questions.reorderQuestions(data.actor, {
          projectId: data.project.id,
          questionIds: order,
        });
      }
      return { to: questionsPath(data), flash: { kind: "success", text: `“${row.label}” moved.` } };
    },
  });

  rowFormRoute(app, "/b/:projectId/questions/:questionId/delete", questionRow, {
    async submit({ data, row }) {
      await services.questions.deleteQuestion(data.actor, { id: row.id });
      return { to: questionsPath(data), flash: { kind: "info", text: `“${row.label}” deleted.` } };
    },
  });
}
