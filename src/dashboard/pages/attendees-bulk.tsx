import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { PageContext } from "../context.js";
import { Notice } from "../ui/components.js";
import { Form } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import type { ProjectPageData } from "./project-page.js";

/** "Cancel these N registrations?": the confirmation step of a bulk cancel (works without script). */
export function BulkCancelPage(props: { ctx: PageContext; data: ProjectPageData; attendees: Attendee[] }) {
  const { project } = props.data;
  const base = `/b/${project.id}/attendees`;
  const count = props.attendees.length;
  const what = count === 1 ? "1 registration" : `${count} registrations`;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="attendees" title="Cancel registrations">
      <PageHeading title={`Cancel ${what}?`} level={2} />
      <Notice kind="info">
        Their seats go back on sale and their check-ins are undone. The registrations stay in the list as
        cancelled.
      </Notice>
      <ul class="plain-list" aria-label="Registrations to cancel">
        {props.attendees.map((a) => (
          <li>
            <strong>{a.name}</strong> <span class="muted">{a.email}</span>
          </li>
        ))}
      </ul>
      <Form
        action={`${base}/bulk-cancel`}
        csrf={props.ctx.csrf}
        label="Confirm cancellation"
        class="button-row"
      >
        {props.attendees.map((a) => (
          <input type="hidden" name="id" value={a.id} />
        ))}
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" class="button button-danger">
          Cancel {what}
        </button>
        <a class="button button-secondary" href={base}>
          Keep them
        </a>
      </Form>
    </ProjectLayout>
  );
}
