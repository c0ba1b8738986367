import type { Session, SessionStatus } from "../../modules/agenda/agenda.service.js";
import type { PageContext } from "../context.js";
import { FormReader, formList, formValues } from "../form-data.js";
import { toLocalInput } from "../time.js";
import {
  CheckboxGroup,
  EditForm,
  Form,
  type FormState,
  SelectField,
  SubmitButton,
  TextAreaField,
  TextField,
} from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import { type AgendaLookups, sessionStatuses } from "./agenda-list.js";
import type { ProjectPageData } from "./project-page.js";

/** "New session" and a session's edit page (with its delete button). */
export function SessionFormPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  lookups: AgendaLookups;
  state: FormState;
  speakerIds: string[];
  session?: Session;
}) {
  const { project } = props.data;
  const base = `/b/${project.id}/agenda`;
  const editing = props.session;
  const title = editing ? "Edit session" : "New session";
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="agenda" title={title}>
      <div class="narrow-panel panel">
        <PageHeading title={title} level={2} />
        <EditForm
          action={editing ? `${base}/sessions/${editing.id}` : `${base}/sessions`}
          csrf={props.ctx.csrf}
          label={title}
          state={props.state}
          submit={editing ? "Save session" : "Create session"}
          cancel={base}
        >
          <TextField name="title" label="Title" state={props.state} required />
          <TextAreaField name="description" label="Description" state={props.state} />
          <div class="field-row">
            <TextField name="startsAt" label="Starts" type="datetime-local" state={props.state} required />
            <TextField name="endsAt" label="Ends" type="datetime-local" state={props.state} required />
          </div>
          <p class="hint">Times are in the event's time zone, {project.timezone}.</p>
          <div class="field-row">
            <SelectField
              name="roomId"
              label="Room"
              state={props.state}
              placeholder="No room"
              options={props.lookups.rooms.map((r) => ({ value: r.id, label: r.name }))}
            />
            <SelectField
              name="trackId"
              label="Track"
              state={props.state}
              placeholder="No track"
              options={props.lookups.tracks.map((t) => ({ value: t.id, label: t.name }))}
            />
          </div>
          {props.lookups.speakers.length > 0 ? (
            <>
              {/* Narrows the list as one types (dashboard.js); without script every speaker is listed. */}
              <input
                type="search"
                class="option-filter"
                data-filter="speakerIds"
                aria-label="Find a speaker"
                placeholder="Find a speaker"
              />
              <CheckboxGroup
                name="speakerIds"
                label="Speakers"
                state={props.state}
                options={chosenFirst(props.lookups.speakers, props.speakerIds).map((s) => ({
                  value: s.id,
                  label: s.name,
                  description: [s.jobTitle, s.company].filter(Boolean).join(", ") || undefined,
                }))}
                checked={props.speakerIds}
              />
            </>
          ) : (
            <p class="hint">
              No speakers yet: <a href={`/b/${project.id}/speakers`}>add speakers</a> to assign them here.
            </p>
          )}
          <div class="field-row">
            <TextField name="capacity" label="Capacity" type="number" min="0" state={props.state} />
            <SelectField
              name="status"
              label="Status"
              state={props.state}
              required
              options={sessionStatuses.map((s) => ({
                value: s,
                label: s.charAt(0) + s.slice(1).toLowerCase(),
              }))}
              hint="Only published sessions are public."
            />
          </div>
        </EditForm>
        {editing ? (
          <Form
            action={`${base}/sessions/${editing.id}/delete`}
            csrf={props.ctx.csrf}
            class="danger-zone"
            confirm={`Delete the session “${editing.title}”? This cannot be undone.`}
          >
            <SubmitButton variant="danger">Delete session</SubmitButton>
          </Form>
        ) : null}
      </div>
    </ProjectLayout>
  );
}

/** A stored session as the form's text values, times in the event's zone. */
export function sessionValues(session: Session, timeZone: string): Record<string, string> {
  return {
    title: session.title,
    description: session.description ?? "",
    startsAt: toLocalInput(session.startsAt, timeZone),
    endsAt: toLocalInput(session.endsAt, timeZone),
    roomId: session.roomId ?? "",
    trackId: session.trackId ?? "",
    capacity: session.capacity === null ? "" : String(session.capacity),
    status: session.status,
  };
}

/** The submitted session form as service input; conversion problems wait in `form` until `form.done()`. */
export function readSessionForm(body: unknown, timeZone: string) {
  const form = new FormReader(formValues(body), timeZone);
  const input = {
    title: form.text("title"),
    description: form.text("description"),
    startsAt: form.time("startsAt", true) ?? "",
    endsAt: form.time("endsAt", true) ?? "",
    roomId: form.text("roomId") || null,
    trackId: form.text("trackId") || null,
    capacity: form.integer("capacity", false),
    status: (form.text("status") || "DRAFT") as SessionStatus,
    speakerIds: formList(body, "speakerIds"),
  };
  return { input, form };
}

/** The session's speakers first (in their order), then everyone else by name: what was chosen shows at the top. */
function chosenFirst<T extends { id: string }>(speakers: readonly T[], chosen: readonly string[]): T[] {
  const rank = (s: T) => (chosen.includes(s.id) ? chosen.indexOf(s.id) : chosen.length);
  return [...speakers].sort((a, b) => rank(a) - rank(b));
}
