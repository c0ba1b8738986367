import type { FastifyInstance, FastifyReply } from "fastify";
import type { Speaker } from "../../modules/agenda/agenda.service.js";
import { type PageContext, pageContext } from "../context.js";
import { optional } from "../form-data.js";
import {
  type FormRequest,
  formRoute,
  loadRow,
  pageRoute,
  type RowLookup,
  rowFormRoute,
} from "../form-route.js";
import { DataTable, EmptyState } from "../ui/components.js";
import {
  EditForm,
  Form,
  FormError,
  type FormState,
  formState,
  SubmitButton,
  TextAreaField,
  TextField,
} from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { listWindow, loadProjectPage, type ProjectPageData } from "./project-page.js";

function SpeakerFields(props: { state: FormState }) {
  return (
    <>
      <TextField name="name" label="Name" state={props.state} required />
      <div class="field-row">
        <TextField name="jobTitle" label="Job title" state={props.state} />
        <TextField name="company" label="Company" state={props.state} />
      </div>
      <TextAreaField name="bio" label="Bio" state={props.state} rows={3} />
      <TextField name="photoUrl" label="Photo URL" type="url" state={props.state} />
    </>
  );
}

function SpeakersPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  speakers: Speaker[];
  nextCursor: string | null;
  state: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/speakers`;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="speakers" title="Speakers">
      <div class="grid-2">
        <section aria-labelledby="speakers-heading">
          <PageHeading title="Speakers" level={2} />
          {props.speakers.length === 0 ? (
            <EmptyState title="No speakers yet">
              <p>Add the people who speak at your event, then assign them to sessions in the agenda.</p>
            </EmptyState>
          ) : (
            <DataTable caption="Speakers" columns={["Name", "Role", { label: "Actions", hidden: true }]}>
              {props.speakers.map((speaker) => (
                <tr>
                  <td>
                    <strong>{speaker.name}</strong>
                  </td>
                  <td class="muted">
                    {[speaker.jobTitle, speaker.company].filter(Boolean).join(", ") || "—"}
                  </td>
                  <td>
                    <div class="row-actions">
                      <a href={`${base}/${speaker.id}`} aria-label={`Edit ${speaker.name}`}>
                        Edit
                      </a>
                    </div>
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          {props.nextCursor ? (
            <p>
              <a href={`${base}?after=${encodeURIComponent(props.nextCursor)}`}>More speakers</a>
            </p>
          ) : null}
        </section>
        <section class="panel" aria-labelledby="add-speaker-heading">
          <h2 id="add-speaker-heading">Add speaker</h2>
          <Form action={base} csrf={props.ctx.csrf} label="Add speaker">
            <FormError state={props.state} />
            <SpeakerFields state={props.state} />
            <SubmitButton>Add speaker</SubmitButton>
          </Form>
        </section>
      </div>
    </ProjectLayout>
  );
}

function EditSpeakerPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  speaker: Speaker;
  state: FormState;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/speakers`;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="speakers" title="Edit speaker">
      <div class="narrow-panel panel">
        <PageHeading title="Edit speaker" level={2} />
        <EditForm
          action={`${base}/${props.speaker.id}`}
          csrf={props.ctx.csrf}
          label="Edit speaker"
          state={props.state}
          submit="Save speaker"
          cancel={base}
        >
          <SpeakerFields state={props.state} />
        </EditForm>
        <Form
          action={`${base}/${props.speaker.id}/delete`}
          csrf={props.ctx.csrf}
          class="danger-zone"
          confirm={`Delete the speaker “${props.speaker.name}”? They are removed from their sessions.`}
        >
          <SubmitButton variant="danger">Delete speaker</SubmitButton>
        </Form>
      </div>
    </ProjectLayout>
  );
}

function speakerInput(values: Record<string, string>) {
  return {
    name: values.name ?? "",
    jobTitle: values.jobTitle ?? "",
    company: values.company ?? "",
    bio: values.bio ?? "",
    photoUrl: optional(values.photoUrl) ?? null,
  };
}

/** Speakers: the list, "Add speaker", edit and delete. */
export function registerSpeakerPages(app: FastifyInstance): void {
  const { services } = app;
  const speakerRow: RowLookup<Speaker> = {
    param: "speakerId",
    what: "Speaker",
    find: (actor, id) => services.agenda.findSpeaker(actor, id),
  };
  const speakersPath = (data: ProjectPageData) => `/b/${data.project.id}/speakers`;

  async function listPage(
    request: FormRequest,
    reply: FastifyReply,
    data: ProjectPageData,
    state: FormState,
  ) {
    const page = await services.agenda.listSpeakers(
      data.access,
      { includeUnpublished: true },
      listWindow(request.query.after),
    );
    return (
      <SpeakersPage
        ctx={pageContext(request, reply)}
        data={data}
        speakers={page.items}
        nextCursor={page.hasNextPage ? page.endCursor : null}
        state={state}
      />
    );
  }

  pageRoute(app, "/b/:projectId/speakers", (request, reply, data) =>
    listPage(request, reply, data, formState()),
  );

  formRoute(app, "/b/:projectId/speakers", {
    async submit({ data, values }) {
      const speaker = await services.agenda.createSpeaker(data.actor, {
        projectId: data.project.id,
        ...speakerInput(values),
      });
      return { to: speakersPath(data), flash: { kind: "success", text: `Speaker “${speaker.name}” added.` } };
    },
    invalid: ({ request, reply, data }, state) => listPage(request, reply, data, state),
  });

  app.get("/b/:projectId/speakers/:speakerId", async (request: FormRequest, reply) => {
    const data = await loadProjectPage(app, request);
    const speaker = await loadRow(data, speakerRow, request.params);
    const values = {
      name: speaker.name,
      jobTitle: speaker.jobTitle ?? "",
      company: speaker.company ?? "",
      bio: speaker.bio ?? "",
      photoUrl: speaker.photoUrl ?? "",
    };
    return sendPage(
      reply,
      <EditSpeakerPage
        ctx={pageContext(request, reply)}
        data={data}
        speaker={speaker}
        state={formState(values)}
      />,
    );
  });

  rowFormRoute(app, "/b/:projectId/speakers/:speakerId", speakerRow, {
    async submit({ data, row, values }) {
      const updated = await services.agenda.updateSpeaker(data.actor, {
        id: row.id,
        ...speakerInput(values),
      });
      return { to: speakersPath(data), flash: { kind: "success", text: `Speaker “${updated.name}” saved.` } };
    },
    invalid: ({ request, reply, data, row }, state) => (
      <EditSpeakerPage ctx={pageContext(request, reply)} data={data} speaker={row} state={state} />
    ),
  });

  rowFormRoute(app, "/b/:projectId/speakers/:speakerId/delete", speakerRow, {
    async submit({ data, row }) {
      await services.agenda.deleteSpeaker(data.actor, { id: row.id });
      return { to: speakersPath(data), flash: { kind: "success", text: `Speaker “${row.name}” deleted.` } };
    },
  });
}
