import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ComponentChildren } from "preact";
import type { MemberRole } from "../../db/schema.js";
import { AppError, ErrorCode, httpStatusOf } from "../../errors.js";
import type { ProjectOverview } from "../../modules/overview/overview.service.js";
import type { Project } from "../../modules/projects/projects.service.js";
import { TokenDialog } from "../apps/app-ui.js";
import { actorOf, type PageContext, pageContext, redirectTo, requireUser } from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import { formatDateTime } from "../time.js";
import { Badge, EmptyState, Facts } from "../ui/components.js";
import { EditForm, type FormState, formState } from "../ui/forms.js";
import { Layout, PageHeading, ProjectLayout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { OverviewFigures, StatusButtons } from "./overview-figures.js";
import { ProjectFields, projectInputFromForm } from "./project-form.js";
import { NewTestProjectButton, ResetTestProjectPanel } from "./test-projects.js";

const statusTone = { DRAFT: "neutral", PUBLISHED: "success", ARCHIVED: "warning" } as const;

function venueLine(project: Project): string {
  return [project.venue.name, project.venue.city, project.venue.country].filter(Boolean).join(", ");
}

/** The projects list; `children` (a dialog over it) follow the list. */
function ProjectsPage(props: {
  ctx: PageContext;
  projects: (Project & { role: MemberRole })[];
  children?: ComponentChildren;
}) {
  return (
    <Layout ctx={props.ctx} title="Projects">
      <PageHeading title="Projects">
        <NewTestProjectButton csrf={props.ctx.csrf} />
        <a class="button button-primary" href="/projects/new">
          New project
        </a>
      </PageHeading>
      {props.projects.length === 0 ? (
        <EmptyState title="No projects yet">
          <p>
            A project is one event: its agenda, speakers, tickets, attendees and the apps connected to it.
          </p>
          <a class="button button-primary" href="/projects/new">
            Create your first project
          </a>
        </EmptyState>
      ) : (
        <ul class="card-list" aria-label="Your projects">
          {props.projects.map((project) => (
            <li class="card project-card">
              <div class="card-main">
                <a class="card-title" href={`/b/${project.id}`}>
                  {project.name}
                </a>
                <p class="muted">
                  {formatDateTime(project.startsAt, project.timezone)}
                  {venueLine(project) ? ` · ${venueLine(project)}` : ""}
                </p>
              </div>
              <div class="card-meta">
                <Badge tone={statusTone[project.status]}>{project.status.toLowerCase()}</Badge>
                {project.isTest ? <Badge tone="warning">TEST</Badge> : null}
                <span class="muted">{project.role.toLowerCase()}</span>
                <code class="project-id">{project.id}</code>
              </div>
            </li>
          ))}
        </ul>
      )}
      {props.children}
    </Layout>
  );
}

function NewProjectPage(props: { ctx: PageContext; state: FormState }) {
  return (
    <Layout ctx={props.ctx} title="New project" narrow>
      <PageHeading title="New project" />
      <EditForm
        action="/projects"
        csrf={props.ctx.csrf}
        label="New project"
        // A blank form takes the browser's time zone (dashboard.js); one sent back with errors keeps the choice.
        enhance={props.state.formError ? undefined : "browser-zone"}
        state={props.state}
        submit="Create project"
        cancel="/"
      >
        <ProjectFields state={props.state} />
      </EditForm>
    </Layout>
  );
}

function OverviewPage(props: {
  ctx: PageContext;
  project: Project;
  overview: ProjectOverview | undefined;
  canPublish: boolean;
  /** Whether the organizer may check in, and so follow the door counts live. */
  canCheckIn: boolean;
  /** Whether the public event page is switched on (it shows only while the project is published). */
  pageEnabled: boolean;
}) {
  const { project } = props;
  const base = `/b/${project.id}`;
  const links = [
    { href: `${base}/agenda`, title: "Agenda", text: "Sessions, tracks and rooms." },
    { href: `${base}/speakers`, title: "Speakers", text: "Who speaks, with bio and company." },
    { href: `${base}/tickets`, title: "Tickets", text: "Ticket types, prices, sold and remaining." },
    { href: `${base}/attendees`, title: "Attendees", text: "Register, search and cancel." },
    { href: `${base}/check-in`, title: "Check-in", text: "Find an attendee and check them in." },
    { href: `${base}/settings`, title: "Settings", text: "Details, status, apps and integrations." },
  ];
  return (
    <ProjectLayout ctx={props.ctx} project={project} section="overview" title="Overview">
      <Facts
        items={[
          ["Starts", formatDateTime(project.startsAt, project.timezone)],
          ["Ends", formatDateTime(project.endsAt, project.timezone)],
          ["Time zone", project.timezone],
          ["Venue", venueLine(project) || "—"],
          ["Project ID", <code>{project.id}</code>],
        ]}
      />
      {project.description ? <p class="description">{project.description}</p> : null}
      {props.canPublish && project.isTest ? (
        <ResetTestProjectPanel projectId={project.id} csrf={props.ctx.csrf} />
      ) : null}
      {/* A test project is never published: it has no status buttons. */}
      {props.canPublish && !project.isTest ? (
        <StatusButtons
          projectId={project.id}
          status={project.status}
          csrf={props.ctx.csrf}
          pageEnabled={props.pageEnabled}
        />
      ) : null}
      {props.overview ? (
        <OverviewFigures
          overview={props.overview}
          timezone={project.timezone}
          ticketsPath={`${base}/tickets`}
          liveUrl={props.canCheckIn ? `${base}/check-in/live` : undefined}
        />
      ) : null}
      <ul class="tiles" aria-label="Sections">
        {links.map((link) => (
          <li>
            <a class="tile" href={link.href}>
              <span class="tile-title">{link.title}</span>
              <span class="muted">{link.text}</span>
            </a>
          </li>
        ))}
      </ul>
    </ProjectLayout>
  );
}

/** The projects list, "New project" and a project's overview page. */
export function registerProjectPages(app: FastifyInstance): void {
  const { services } = app;

  const list = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = requireUser(request);
    const projects = await services.projects.listForUser(user.id);
    return sendPage(reply, <ProjectsPage ctx={pageContext(request, reply)} projects={projects} />);
  };
  app.get("/", list);
  app.get("/projects", list);

  app.get("/projects/new", async (request, reply) => {
    requireUser(request);
    return sendPage(
      reply,
      <NewProjectPage ctx={pageContext(request, reply)} state={formState({ timezone: "UTC" })} />,
    );
  });

  app.post("/projects", async (request, reply) => {
    const user = requireUser(request);
    const values = formValues(request.body);
    try {
      // Each project holds a whole event's data and pages: an account nobody can reach by email
      // (a script's) does not get to make them. The CLI (the operator) and the demo are not asked.
      if (!user.emailVerified) {
        throw new AppError(
          ErrorCode.FORBIDDEN,
          "Confirm your email address before creating a project: open the link we sent you, or send it again from your account page.",
        );
      }
      const project = await services.projects.create(
        user.id,
        { ...projectInputFromForm(values), name: values.name ?? "" },
        actorOf(request),
      );
      return redirectTo(request, reply, `/b/${project.id}`, {
        kind: "success",
        text: `Project “${project.name}” created.`,
      });
    } catch (error) {
      return sendPage(
        reply,
        <NewProjectPage ctx={pageContext(request, reply)} state={stateFromError(error, values)} />,
        httpStatusOf(error),
      );
    }
  });

  // A test project in one step (modules/demo/test-projects.ts); its token is shown once, in a
  // dialog over the projects list, whose OK leads to the new project.
  app.post("/projects/test", async (request, reply) => {
    const user = requireUser(request);
    // As for any project: an account nobody can reach by email does not get to make them.
    if (!user.emailVerified) {
      throw new AppError(ErrorCode.FORBIDDEN, "Confirm your email address before creating a project.");
    }
    const created = await services.testProjects.create(user.id, actorOf(request));
    const projects = await services.projects.listForUser(user.id);
    return sendPage(
      reply,
      <ProjectsPage ctx={pageContext(request, reply)} projects={projects}>
        <TokenDialog
          token={created.token}
          appName={`Test app of ${created.project.name}`}
          closeTo={`/b/${created.project.id}`}
          pageUrl="/projects"
        />
      </ProjectsPage>,
      201,
    );
  });

  app.get<{ Params: { projectId: string } }>("/b/:projectId", async (request, reply) => {
    const actor = actorOf(request);
    const access = await services.access.require(actor, request.params.projectId);
    const project = await services.projects.get(actor, access.projectId);
    // Members whose role cannot read tickets and attendees see the project without the figures.
    const canRead = access.permissions.has("tickets:read") && access.permissions.has("attendees:read");
    const overview = canRead ? await services.overview.overview(access, project) : undefined;
    const page = (
      <OverviewPage
        ctx={pageContext(request, reply)}
        project={project}
        overview={overview}
        canPublish={access.permissions.has("project:write")}
        canCheckIn={access.permissions.has("checkins:write")}
        pageEnabled={(await services.eventPage.settings(actor, access.projectId)).pageEnabled}
      />
    );
    return sendPage(reply, page);
  });
}
