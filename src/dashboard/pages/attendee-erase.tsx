import type { Attendee } from "../../modules/attendees/attendees.service.js";
import type { PageContext } from "../context.js";
import { Notice } from "../ui/components.js";
import { Form } from "../ui/forms.js";
import { PageHeading, ProjectLayout } from "../ui/layout.js";
import type { ProjectPageData } from "./project-page.js";

/**
 * "Erase <name>'s personal data?": the confirmation step of an erasure (works without script). The
 * erasure cannot be undone, so it is a page of its own that names the person and says what stays.
 */
export function EraseAttendeePage(props: { ctx: PageContext; data: ProjectPageData; attendee: Attendee }) {
  const { project } = props.data;
  const { attendee } = props;
  const back = `/b/${project.id}/attendees/${attendee.id}`;
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="attendees" title="Erase personal data">
      <PageHeading title={`Erase ${attendee.name}'s personal data?`} level={2} />
      <Notice kind="info">
        Their name, email and company are replaced everywhere Eventgraph stored them: the registration, the
        audit log's recorded values, webhook deliveries, imported files and orders they bought. This cannot be
        undone. The registration, its ticket and check-ins stay (as "Erased attendee"), so the counts still
        add up; the audit log keeps that you erased them, and connected apps are told.
      </Notice>
      <p>
        <strong>{attendee.name}</strong> <span class="muted">{attendee.email}</span>
      </p>
      <Form action={`${back}/erase`} csrf={props.ctx.csrf} label="Confirm erasure" class="button-row">
        <button type="submit" class="button button-danger">
          Erase personal data
        </button>
        <a class="button button-secondary" href={back}>
          Keep them
        </a>
      </Form>
    </ProjectLayout>
  );
}

/** The edit page's way to the erasure, unless it happened already. */
export function ErasurePanel(props: { base: string; attendee: Attendee; erased: boolean }) {
  return (
    <section class="narrow-panel panel" aria-labelledby="erasure-heading">
      <h2 id="erasure-heading">Personal data</h2>
      {props.erased ? (
        <p class="muted">This attendee's personal data was erased.</p>
      ) : (
        <>
          <p class="description">
            When this person asks to have their data erased (GDPR Art. 17), erase it here. Cancelling keeps
            it.
          </p>
          <a class="button button-danger" href={`${props.base}/${props.attendee.id}/erase`}>
            Erase personal data…
          </a>
        </>
      )}
    </section>
  );
}
