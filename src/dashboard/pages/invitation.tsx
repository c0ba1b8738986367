import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, ErrorCode } from "../../errors.js";
import {
  type InvitationPreview,
  invalidInvitationMessage,
} from "../../modules/projects/invitations.service.js";
import { actorOf, type PageContext, pageContext, redirectTo, requireUser } from "../context.js";
import { formValues } from "../form-data.js";
import { Notice } from "../ui/components.js";
import { Form, SubmitButton } from "../ui/forms.js";
import { Layout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";

type InviteRequest = FastifyRequest<{ Querystring: { token?: string } }>;

const article = (role: string) => (role === "MEMBER" ? "a member" : `an ${role.toLowerCase()}`);

function InvitationPage(props: {
  ctx: PageContext;
  token: string;
  preview: InvitationPreview;
  problem?: string;
}) {
  const { ctx, preview } = props;
  const here = `/invite?token=${encodeURIComponent(props.token)}`;
  const user = ctx.user;
  const otherAccount = user && user.email.toLowerCase() !== preview.email.toLowerCase();
  return (
    <Layout ctx={ctx} title={`Join ${preview.projectName}`} narrow>
      <div class="auth-card">
        <p class="muted">{preview.invitedBy ?? "The operator"} invited you</p>
        <h1>Join {preview.projectName}</h1>
        <p class="lead">
          as {article(preview.role)}. The invitation was sent to <strong>{preview.email}</strong>.
        </p>
        {props.problem ? <Notice kind="error">{props.problem}</Notice> : null}
        {!user ? (
          <div class="form-actions">
            <a class="button button-primary" href={`/login?next=${encodeURIComponent(here)}`}>
              Log in to accept
            </a>
            <a class="button button-secondary" href={`/signup?next=${encodeURIComponent(here)}`}>
              Sign up
            </a>
          </div>
        ) : otherAccount ? (
          <Notice kind="error">
            You are logged in as {user.email}. Log out and log in (or sign up) with {preview.email} to accept.
          </Notice>
        ) : (
          <Form action="/invite" csrf={ctx.csrf} label="Accept invitation">
            <input type="hidden" name="token" value={props.token} />
            <div class="form-actions">
              <SubmitButton>Accept invitation</SubmitButton>
              <a class="button button-secondary" href="/">
                Not now
              </a>
            </div>
          </Form>
        )}
      </div>
    </Layout>
  );
}

function InvalidInvitationPage(props: { ctx: PageContext }) {
  return (
    <Layout ctx={props.ctx} title="Invitation not valid" narrow>
      <div class="auth-card">
        <h1>Invitation not valid</h1>
        <Notice kind="error">{invalidInvitationMessage} Ask the project's owners for a new one.</Notice>
      </div>
    </Layout>
  );
}

/** The page behind an emailed invitation link, and its Accept form: membership only by consent. */
export function registerInvitationPages(app: FastifyInstance): void {
  const { services } = app;
  const token = (value: unknown) => (typeof value === "string" ? value : "");

  app.get("/invite", async (request: InviteRequest, reply) => {
    const secret = token(request.query.token);
    const preview = await services.invitations.preview(secret);
    const ctx = pageContext(request, reply);
    if (!preview) return sendPage(reply, <InvalidInvitationPage ctx={ctx} />, 400);
    return sendPage(reply, <InvitationPage ctx={ctx} token={secret} preview={preview} />);
  });

  app.post("/invite", async (request, reply) => {
    const user = requireUser(request);
    const secret = token(formValues(request.body).token);
    try {
      const projectId = await services.invitations.accept(user.id, secret, actorOf(request));
      const project = await services.projects.get({ kind: "user", userId: user.id }, projectId);
      return redirectTo(request, reply, `/b/${projectId}`, {
        kind: "success",
        text: `Welcome to ${project.name}.`,
      });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const preview = await services.invitations.preview(secret);
      const ctx = pageContext(request, reply);
      if (!preview) return sendPage(reply, <InvalidInvitationPage ctx={ctx} />, 400);
      const status = error.code === ErrorCode.FORBIDDEN ? 403 : 400;
      return sendPage(
        reply,
        <InvitationPage ctx={ctx} token={secret} preview={preview} problem={error.message} />,
        status,
      );
    }
  });
}
