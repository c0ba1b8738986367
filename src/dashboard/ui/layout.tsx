import type { ComponentChildren } from "preact";
import { assetPath } from "../assets.js";
import type { PageContext } from "../context.js";
import { Badge, CountBadge, Notice } from "./components.js";
import { HtmlDocument } from "./document.js";
import { Form } from "./forms.js";

/** The frame of every dashboard page: header, flash message, main landmark, footer. */
export function Layout(props: {
  ctx: PageContext;
  title: string;
  narrow?: boolean;
  children: ComponentChildren;
}) {
  const { ctx } = props;
  return (
    <HtmlDocument
      title={`${props.title} · Eventgraph`}
      head={
        <>
          <link rel="icon" type="image/svg+xml" href={assetPath("favicon.svg")} />
          <link rel="stylesheet" href={assetPath("dashboard.css")} />
          <script src={assetPath("dashboard.js")} defer />
        </>
      }
    >
      <header class="site-header">
        <div class="container header-inner">
          <a class="brand" href="/">
            <span class="brand-mark" aria-hidden="true">
              eg
            </span>
            Eventgraph
          </a>
          {ctx.user ? (
            <nav aria-label="Account" class="account-nav">
              <a href="/">Projects</a>
              <a href="/graphql/reference/">API docs</a>
              <a class="account-name" href="/account" title="Your account">
                {ctx.user.name}
              </a>
              {/* On a phone the name gives way (see the CSS); the account page stays one tap away. */}
              <a class="account-short" href="/account">
                Account
              </a>
              <Form action="/logout" csrf={ctx.csrf} class="inline-form">
                <button type="submit" class="button button-link">
                  Log out
                </button>
              </Form>
            </nav>
          ) : (
            <nav aria-label="Account" class="account-nav">
              <a href="/graphql/reference/">API docs</a>
              <a href="/login">Log in</a>
              <a class="button button-secondary button-small" href="/signup">
                Sign up
              </a>
            </nav>
          )}
        </div>
      </header>
      {ctx.user && !ctx.user.emailVerified ? (
        <div class="verify-banner">
          <div class="container verify-inner">
            <span>
              Please verify your email address (<strong>{ctx.user.email}</strong>).{" "}
              {ctx.sendsEmail ? (
                "We sent you a link."
              ) : (
                <>
                  This server sends no email (no SMTP configured):{" "}
                  {ctx.mailLinksInLog ? "the link is in the server log, or " : ""}the operator can run{" "}
                  <code>eventgraph users verify --email {ctx.user.email}</code>.
                </>
              )}{" "}
              Until then your projects are unverified: other organizers cannot connect your apps to their
              projects.
            </span>
            <Form action="/verify-email/resend" csrf={ctx.csrf} class="inline-form">
              <button type="submit" class="button button-link">
                Resend verification email
              </button>
            </Form>
          </div>
        </div>
      ) : null}
      <main id="main" class={props.narrow ? "container container-narrow" : "container"}>
        {ctx.flash ? <Notice kind={ctx.flash.kind}>{ctx.flash.text}</Notice> : null}
        {props.children}
      </main>
      <footer class="site-footer">
        <div class="container">Eventgraph · self-hosted event management</div>
      </footer>
    </HtmlDocument>
  );
}

/** A project's section, for the project navigation. */
export type ProjectSection =
  | "overview"
  | "agenda"
  | "speakers"
  | "tickets"
  | "attendees"
  | "orders"
  | "checkin"
  | "settings";

const sections: { id: ProjectSection; label: string; path: string }[] = [
  { id: "overview", label: "Overview", path: "" },
  { id: "agenda", label: "Agenda", path: "/agenda" },
  { id: "speakers", label: "Speakers", path: "/speakers" },
  { id: "tickets", label: "Tickets", path: "/tickets" },
  { id: "attendees", label: "Attendees", path: "/attendees" },
  { id: "orders", label: "Orders", path: "/orders" },
  { id: "checkin", label: "Check-in", path: "/check-in" },
  { id: "settings", label: "Settings", path: "/settings" },
];

const statusTone = { DRAFT: "neutral", PUBLISHED: "success", ARCHIVED: "warning" } as const;

/** The frame of a project's pages: its name, status and section navigation. */
export function ProjectLayout(props: {
  ctx: PageContext;
  project: { id: string; name: string; status: "DRAFT" | "PUBLISHED" | "ARCHIVED"; isTest?: boolean };
  section: ProjectSection;
  title: string;
  children: ComponentChildren;
}) {
  const { project } = props;
  return (
    <Layout ctx={props.ctx} title={`${props.title} · ${project.name}`}>
      <div class="project-header">
        <p class="breadcrumb">
          <a href="/">Projects</a> <span aria-hidden="true">/</span> <span>{project.id}</span>
        </p>
        <div class="project-title">
          <h1>{project.name}</h1>
          <Badge tone={statusTone[project.status]}>{project.status.toLowerCase()}</Badge>
          {project.isTest ? <Badge tone="warning">TEST</Badge> : null}
        </div>
        {project.isTest ? (
          <p class="test-banner" role="note">
            <strong>Test project.</strong> Demo data to build and try apps against: it is never published and
            never counted. Reset it to its demo data from the <a href={`/b/${project.id}`}>Overview</a>.
          </p>
        ) : null}
        <nav class="project-nav" aria-label="Project">
          {sections.map((s) => (
            <a
              href={`/b/${project.id}${s.path}`}
              aria-current={s.id === props.section ? "page" : undefined}
              class={s.id === props.section ? "current" : undefined}
            >
              {s.label}
              {s.id === "settings" && props.ctx.pendingApprovals ? (
                <CountBadge count={props.ctx.pendingApprovals} />
              ) : null}
            </a>
          ))}
        </nav>
      </div>
      {props.children}
    </Layout>
  );
}

/** A page heading with optional actions on the right. */
export function PageHeading(props: { title: string; children?: ComponentChildren; level?: 1 | 2 }) {
  const Heading = props.level === 2 ? "h2" : "h1";
  return (
    <div class="page-heading">
      <Heading>{props.title}</Heading>
      {props.children ? <div class="page-actions">{props.children}</div> : null}
    </div>
  );
}
