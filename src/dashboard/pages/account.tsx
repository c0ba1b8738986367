import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, ErrorCode, httpStatusOf } from "../../errors.js";
import type { SessionInfo } from "../../modules/accounts/sessions.service.js";
import {
  actorOf,
  clearSessionCookie,
  type PageContext,
  pageContext,
  redirectTo,
  requireUser,
  sessionCookie,
} from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import { formatDateTime } from "../time.js";
import { Badge, DataTable, Notice } from "../ui/components.js";
import {
  EmailField,
  Form,
  FormError,
  type FormState,
  formState,
  PasswordConfirmedForm,
  PasswordField,
  SubmitButton,
  TextField,
} from "../ui/forms.js";
import { Layout, PageHeading } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { describeUserAgent } from "./user-agent.js";

/** The forms of the account page; a failed POST re-renders the page with its state in one of them. */
type Section = "name" | "email" | "password" | "delete";

interface AccountData {
  pendingEmail: string | null;
  sessions: SessionInfo[];
}

const utc = (iso: string) => formatDateTime(iso, "UTC");

function SessionsTable(props: { ctx: PageContext; sessions: SessionInfo[] }) {
  return (
    <DataTable
      caption="Active sessions"
      columns={["Device", "IP address", "Last seen", { label: "Action", hidden: true }]}
    >
      {props.sessions.map((session) => (
        <tr>
          <th scope="row" title={session.userAgent ?? undefined}>
            {describeUserAgent(session.userAgent)}
            {session.current ? (
              <>
                {" "}
                <Badge tone="success">this device</Badge>
              </>
            ) : null}
            <div class="muted small">Signed in {utc(session.createdAt)}</div>
          </th>
          <td>
            <code>{session.ip ?? "unknown"}</code>
          </td>
          <td class="muted">{utc(session.lastSeenAt)}</td>
          <td>
            {session.current ? (
              <span class="muted small">Use Log out</span>
            ) : (
              <Form
                action="/account/sessions/end"
                csrf={props.ctx.csrf}
                class="inline-form"
                label={`End session on ${describeUserAgent(session.userAgent)}`}
              >
                <input type="hidden" name="session" value={session.id} />
                <button type="submit" class="button button-secondary button-small">
                  End session
                </button>
              </Form>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function AccountPage(props: { ctx: PageContext; data: AccountData; section?: Section; state?: FormState }) {
  const { ctx, data } = props;
  const user = ctx.user;
  if (!user) return null;
  const stateFor = (section: Section, values: Record<string, string> = {}) =>
    props.section === section && props.state ? props.state : formState(values);
  const others = data.sessions.filter((s) => !s.current).length;
  return (
    <Layout ctx={ctx} title="Your account" narrow>
      <PageHeading title="Your account" />
      <section class="panel spaced" aria-labelledby="profile-heading">
        <h2 id="profile-heading">Profile</h2>
        <Form action="/account/name" csrf={ctx.csrf} label="Change name">
          <FormError state={stateFor("name")} />
          <TextField
            name="name"
            label="Your name"
            idPrefix="name"
            state={stateFor("name", { name: user.name })}
            required
            autocomplete="name"
          />
          <SubmitButton>Save name</SubmitButton>
        </Form>
      </section>

      <section class="panel spaced" aria-labelledby="email-heading">
        <h2 id="email-heading">Email</h2>
        <p>
          <strong class="break-all">{user.email}</strong>{" "}
          {user.emailVerified ? (
            <Badge tone="success">verified</Badge>
          ) : (
            <Badge tone="warning">not verified</Badge>
          )}
        </p>
        {data.pendingEmail ? (
          <Notice kind="info">
            {ctx.sendsEmail
              ? "We sent a confirmation link to "
              : "No email was sent (this server has no SMTP_URL) to "}
            <strong class="break-all">{data.pendingEmail}</strong>.{" "}
            {ctx.sendsEmail
              ? "Your email changes once you open it (within 24 hours)."
              : ctx.mailLinksInLog
                ? "The confirmation link is in the server log (within 24 hours)."
                : "Your email cannot change until the server's operator sets up SMTP."}
          </Notice>
        ) : null}
        <PasswordConfirmedForm
          action="/account/email"
          csrf={ctx.csrf}
          label="Change email"
          idPrefix="email"
          state={stateFor("email")}
          submit="Send confirmation link"
        >
          <EmailField
            name="newEmail"
            label="New email"
            idPrefix="email"
            state={stateFor("email")}
            hint="We send a link to the new address; your email stays as it is until you open it."
          />
        </PasswordConfirmedForm>
      </section>

      <section class="panel spaced" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <PasswordConfirmedForm
          action="/account/password"
          csrf={ctx.csrf}
          label="Change password"
          idPrefix="password"
          state={stateFor("password")}
          submit="Change password"
        >
          <PasswordField
            name="newPassword"
            label="New password"
            idPrefix="password"
            state={stateFor("password")}
            choose
            hint="At least 10 characters. Your other sessions are logged out."
          />
        </PasswordConfirmedForm>
      </section>

      <section class="panel spaced" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Sessions</h2>
        <p class="hint">Where your account is logged in. End any session you do not recognise.</p>
        <SessionsTable ctx={ctx} sessions={data.sessions} />
        {others > 0 ? (
          <Form action="/account/sessions/end-others" csrf={ctx.csrf} label="Log out other sessions">
            <SubmitButton variant="secondary">Log out all other sessions</SubmitButton>
          </Form>
        ) : null}
      </section>

      <section class="panel spaced danger-zone" aria-labelledby="delete-heading">
        <h2 id="delete-heading">Delete account</h2>
        <p>
          Deleting your account erases your name and email everywhere Eventgraph stored them: you leave every
          project, your sessions end, test projects only you own are deleted, and the audit log keeps what you
          did under "Erased user". Projects where you are the only owner must get another owner (or be
          deleted) first. Apps you created stay with their projects.
        </p>
        <PasswordConfirmedForm
          action="/account/delete"
          csrf={ctx.csrf}
          label="Delete account"
          idPrefix="delete"
          state={stateFor("delete")}
          submit="Delete my account"
          variant="danger"
          confirm="Delete your account? This cannot be undone."
        />
      </section>
    </Layout>
  );
}

function EmailChangedPage(props: { ctx: PageContext; problem?: string }) {
  return (
    <Layout ctx={props.ctx} title="Email change" narrow>
      <div class="auth-card">
        <h1>{props.problem ? "Email not changed" : "Email changed"}</h1>
        {props.problem ? (
          <Notice kind="error">{props.problem}</Notice>
        ) : (
          <Notice kind="success">Your account now uses its new email address.</Notice>
        )}
        <p>
          <a href={props.ctx.user ? "/account" : "/login"}>
            {props.ctx.user ? "Back to your account" : "Go to log in"}
          </a>
        </p>
      </div>
    </Layout>
  );
}

/** Throttled requests show their message above the form; other failures as stateFromError does. */
function failureState(error: unknown, values: Record<string, string>): FormState {
  if (error instanceof AppError && error.code === ErrorCode.RATE_LIMITED) {
    return { values, errors: {}, formError: error.message };
  }
  return stateFromError(error, values);
}

/** The account page (/account): name, email, password, sessions, deletion. */
export function registerAccountPages(app: FastifyInstance): void {
  const { services } = app;

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    failed?: { section: Section; error: unknown; values: Record<string, string> },
  ) {
    const user = requireUser(request);
    const session = request.dashboard.session;
    const data: AccountData = {
      pendingEmail: await services.account.pendingEmail(user.id),
      sessions: await services.sessions.listForUser(user.id, session?.id ?? ""),
    };
    const state = failed ? failureState(failed.error, failed.values) : undefined;
    return sendPage(
      reply,
      <AccountPage ctx={pageContext(request, reply)} data={data} section={failed?.section} state={state} />,
      failed ? httpStatusOf(failed.error) : 200,
    );
  }

  // One shape for every form: run the change, then back to the page with a flash, or the page with the error.
  function formPost(
    path: string,
    section: Section,
    action: (request: FastifyRequest, values: Record<string, string>) => Promise<string>,
    keep: (values: Record<string, string>) => Record<string, string> = () => ({}),
  ) {
    app.post(path, async (request, reply) => {
      requireUser(request);
      const values = formValues(request.body);
      try {
        const text = await action(request, values);
        return redirectTo(request, reply, "/account", { kind: "success", text });
      } catch (error) {
        return render(request, reply, { section, error, values: keep(values) });
      }
    });
  }

  app.get("/account", (request, reply) => render(request, reply));

  formPost(
    "/account/name",
    "name",
    async (request, values) => {
      await services.account.updateName(requireUser(request).id, { name: values.name ?? "" });
      return "Your name was saved.";
    },
    (values) => ({ name: values.name ?? "" }),
  );

  formPost(
    "/account/email",
    "email",
    async (request, values) => {
      const newEmail = values.newEmail?.trim() ?? "";
      await services.account.requestEmailChange(
        requireUser(request).id,
        { newEmail, currentPassword: values.currentPassword ?? "" },
        request.ip,
      );
      return `If no other account uses ${newEmail}, a confirmation link is on its way there. Your email changes once you open it.`;
    },
    (values) => ({ newEmail: values.newEmail ?? "" }),
  );

  formPost("/account/password", "password", async (request, values) => {
    const session = request.dashboard.session;
    await services.account.changePassword(
      requireUser(request).id,
      { currentPassword: values.currentPassword ?? "", newPassword: values.newPassword ?? "" },
      session?.id ?? "",
    );
    return "Your password was changed. Your other sessions were logged out.";
  });

  app.post("/account/sessions/end", async (request, reply) => {
    const user = requireUser(request);
    const id = formValues(request.body).session ?? "";
    // The current session ends through Log out, which also clears this browser's cookie.
    const ended = id !== request.dashboard.session?.id && (await services.sessions.endOne(user.id, id));
    return redirectTo(request, reply, "/account", {
      kind: ended ? "success" : "info",
      text: ended ? "The session was ended." : "That session had already ended.",
    });
  });

  app.post("/account/sessions/end-others", async (request, reply) => {
    const user = requireUser(request);
    await services.sessions.endAllForUser(user.id, request.dashboard.session?.id ?? "");
    return redirectTo(request, reply, "/account", {
      kind: "success",
      text: "Every other session was logged out.",
    });
  });

  app.post("/account/delete", async (request, reply) => {
    const user = requireUser(request);
    const values = formValues(request.body);
    try {
      await services.account.deleteAccount(
        user.id,
        { currentPassword: values.currentPassword ?? "" },
        actorOf(request),
      );
    } catch (error) {
      // A sole owner's refusal names the projects that need another owner first.
      return render(request, reply, { section: "delete", error, values: {} });
    }
    if (request.cookies[sessionCookie]) clearSessionCookie(request, reply);
    request.dashboard.session = undefined;
    return redirectTo(request, reply, "/login", {
      kind: "success",
      text: "Your account was deleted and your personal data erased.",
    });
  });

  // Opened from the email: works whether or not this browser is logged in.
  app.get<{ Querystring: { token?: string } }>("/account/email/confirm", async (request, reply) => {
    const token = typeof request.query.token === "string" ? request.query.token : "";
    try {
      // This browser stays logged in only when its session is the account's own.
      await services.account.confirmEmailChange(token, request.dashboard.session?.id);
    } catch (error) {
      if (!(error instanceof AppError) || !isUserFacing(error)) throw error;
      return sendPage(
        reply,
        <EmailChangedPage ctx={pageContext(request, reply)} problem={error.message} />,
        httpStatusOf(error),
      );
    }
    if (request.dashboard.session) {
      return redirectTo(request, reply, "/account", {
        kind: "success",
        text: "Your email address was changed.",
      });
    }
    return sendPage(reply, <EmailChangedPage ctx={pageContext(request, reply)} />);
  });
}

function isUserFacing(error: AppError): boolean {
  return error.code === ErrorCode.BAD_USER_INPUT || error.code === ErrorCode.CONFLICT;
}
