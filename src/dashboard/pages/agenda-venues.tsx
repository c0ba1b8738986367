import type { ComponentChildren } from "preact";
import type { PageContext } from "../context.js";
import { EditForm, type FormState, TextField } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import type { ProjectPageData } from "./project-page.js";

/** The edit page of a track or a room: one form, its fields given by the caller. */
export function EditItemPage(props: {
  ctx: PageContext;
  data: ProjectPageData;
  kind: "track" | "room";
  itemId: string;
  state: FormState;
  children: ComponentChildren;
}) {
  const base = `/b/${props.data.project.id}/agenda`;
  const title = `Edit ${props.kind}`;
  return (
    <ProjectLayout ctx={props.ctx} project={props.data.project} section="agenda" title={title}>
      <div class="narrow-panel panel">
        <PageHeading title={title} level={2} />
        <EditForm
          action={`${base}/${props.kind}s/${props.itemId}`}
          csrf={props.ctx.csrf}
          label={title}
          state={props.state}
          submit={`Save ${props.kind}`}
          cancel={base}
        >
          {props.children}
        </EditForm>
      </div>
    </ProjectLayout>
  );
}

/** The inputs of a track's edit page. */
export function TrackFields(props: { state: FormState }) {
  return (
    <>
      <TextField name="name" label="Track name" state={props.state} required />
      <TextField name="color" label="Color" state={props.state} hint="As #RRGGBB, e.g. #1A73E8." />
    </>
  );
}

/** The inputs of a room's edit page. */
export function RoomFields(props: { state: FormState }) {
  return (
    <>
      <TextField name="name" label="Room name" state={props.state} required />
      <TextField name="capacity" label="Capacity" type="number" min="0" state={props.state} />
    </>
  );
}
