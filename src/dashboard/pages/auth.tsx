import type { FastifyInstance } from "fastify";
import type { ComponentChildren } from "preact";
import type { OidcConfig } from "../../config.js";
import { AppError, ErrorCode, httpStatusOf } from "../../errors.js";
import {
  clearSessionCookie,
  type PageContext,
  pageContext,
  redirectTo,
  safeReturnPath,
  sessionClient,
  sessionCookie,
  setSessionCookie,
} from "../context.js";
import { formValues, stateFromError } from "../form-data.js";
import { mailSetup, verificationSentence } from "../mail-words.js";
import { Notice } from "../ui/components.js";
import {
  EmailField,
  Form,
  FormError,
  type FormState,
  formState,
  PasswordField,
  SubmitButton,
  TextField,
} from "../ui/forms.js";
import { Layout } from "../ui/layout.js";
import { sendPage } from "../ui/render.js";
import { SsoButton, sendPasswordsOffPage } from "./single-sign-on.js";

function AuthCard(props: { ctx: PageContext; title: string; lead?: string; children: ComponentChildren }) {
  return (
    <Layout ctx={props.ctx} title={props.title} narrow>
      <div class="auth-card">
        <h1>{props.title}</h1>
        {props.lead ? <p class="lead">{props.lead}</p> : null}
        {props.children}
      </div>
    </Layout>
  );
}

function SignupPage(props: { ctx: PageContext; state: FormState; next: string }) {
  return (
    <AuthCard ctx={props.ctx} title="Create your account" lead="Run your events and connect apps to them.">
      <Form action={withNext("/signup", props.next)} csrf={props.ctx.csrf} label="Sign up">
        <FormError state={props.state} />
        <TextField name="name" label="Your name" state={props.state} required autocomplete="name" />
        <EmailField state={props.state} />
        <PasswordField state={props.state} choose />
        <SubmitButton>Sign up</SubmitButton>
      </Form>
      <p class="auth-alt">
        Already have an account? <a href={withNext("/login", props.next)}>Log in</a>
      </p>
    </AuthCard>
  );
}

function LoginPage(props: { ctx: PageContext; state: FormState; next: string; sso: OidcConfig | undefined }) {
  const { sso } = props;
  if (sso?.only) {
    return (
      <AuthCard ctx={props.ctx} title="Log in">
        <SsoButton sso={sso} next={props.next} primary />
      </AuthCard>
    );
  }
  return (
    <AuthCard ctx={props.ctx} title="Log in">
      {sso ? <SsoButton sso={sso} next={props.next} /> : null}
      <Form action={`/login?next=${encodeURIComponent(props.next)}`} csrf={props.ctx.csrf} label="Log in">
        <FormError state={props.state} />
        <EmailField state={props.state} autocomplete="username" />
        <PasswordField state={props.state} />
        <SubmitButton>Log in</SubmitButton>
      </Form>
      <p class="auth-alt">
        <a href="/forgot-password">Forgot your password?</a> · New here?{" "}
        <a href={withNext("/signup", props.next)}>Create an account</a>
      </p>
    </AuthCard>
  );
}

function LogoutPage(props: { ctx: PageContext }) {
  return (
    <AuthCard ctx={props.ctx} title="Log out" lead="End your session on this device?">
      <Form action="/logout" csrf={props.ctx.csrf} label="Log out">
        <SubmitButton>Log out</SubmitButton>
      </Form>
    </AuthCard>
  );
}

function ForgotPasswordPage(props: { ctx: PageContext; state: FormState; sentTo?: string }) {
  return (
    <AuthCard
      ctx={props.ctx}
      title="Reset your password"
      lead="Enter the email of your account and we will send you a link to choose a new password."
    >
      {props.sentTo ? (
        <Notice kind="success">
          If an account exists for {props.sentTo}, a reset link is on its way. It works for one hour.
        </Notice>
      ) : null}
      <Form action="/forgot-password" csrf={props.ctx.csrf} label="Reset password">
        <FormError state={props.state} />
        <EmailField state={props.state} />
        <SubmitButton>Send reset link</SubmitButton>
      </Form>
      <p class="auth-alt">
        <a href="/login">Back to log in</a>
      </p>
    </AuthCard>
  );
}

function ResetPasswordPage(props: { ctx: PageContext; state: FormState; token: string }) {
  return (
    <AuthCard ctx={props.ctx} title="Choose a new password" lead="Other devices will be logged out.">
      <Form action="/reset-password" csrf={props.ctx.csrf} label="Choose a new password">
        <FormError state={props.state} />
        <input type="hidden" name="token" value={props.token} />
        <PasswordField label="New password" state={props.state} choose />
        <SubmitButton>Change password</SubmitButton>
      </Form>
    </AuthCard>
  );
}

function LinkProblemPage(props: { ctx: PageContext; title: string; message: string }) {
  return (
    <AuthCard ctx={props.ctx} title={props.title}>
      <Notice kind="error">{props.message}</Notice>
      {props.ctx.user && !props.ctx.user.emailVerified ? (
        <Form action="/verify-email/resend" csrf={props.ctx.csrf} label="Resend verification email">
          <SubmitButton>Resend verification email</SubmitButton>
        </Form>
      ) : (
        <p>
          <a href={props.ctx.user ? "/" : "/login"}>
            {props.ctx.user ? "Back to your projects" : "Go to log in"}
          </a>
        </p>
      )}
    </AuthCard>
  );
}

function VerifiedPage(props: { ctx: PageContext }) {
  return (
    <AuthCard ctx={props.ctx} title="Email verified">
      <Notice kind="success">Thank you: your email address is verified.</Notice>
      <p>
        <a class="button button-primary" href="/login">
          Log in
        </a>
      </p>
    </AuthCard>
  );
}

const query = (value: unknown) => (typeof value === "string" ? value : "");

// Sign-up and log-in pass the page to return to between them (e.g. an app's connect page).
/** The form state for a throttled request (its message above the form); undefined for any other error. */
function throttled(error: unknown, values: Record<string, string>): FormState | undefined {
  if (!(error instanceof AppError) || error.code !== ErrorCode.RATE_LIMITED) return undefined;
  return { values, errors: {}, formError: error.message };
}

function withNext(path: string, next: string): string {
  return next === "/" ? path : `${path}?next=${encodeURIComponent(next)}`;
}

/** Sign up, log in/out, email verification and password reset. */
export function registerAuthPages(app: FastifyInstance): void {
  const { services } = app;
  // OIDC_ONLY: the provider, when passwords are off. The refused POSTs answer from the services
  // (FORBIDDEN, the same sentence), whatever sends them.
  const passwordsOff = services.sso?.config.only ? services.sso.config : undefined;

  app.get<{ Querystring: { next?: string } }>("/signup", async (request, reply) => {
    const next = safeReturnPath(request.query.next);
    if (request.dashboard.session) return redirectTo(request, reply, next);
    if (passwordsOff) return sendPasswordsOffPage(request, reply, passwordsOff, "Create your account", next);
    return sendPage(reply, <SignupPage ctx={pageContext(request, reply)} state={formState()} next={next} />);
  });

  app.post<{ Querystring: { next?: string } }>(
    "/signup",
    { config: { csrf: "public" } },
    async (request, reply) => {
      const values = formValues(request.body);
      const next = safeReturnPath(request.query.next);
      try {
        const user = await services.auth.signUp(
          { name: values.name ?? "", email: values.email ?? "", password: values.password ?? "" },
          request.ip,
        );
        const { cookieValue } = await services.sessions.start(user.id, sessionClient(request));
        setSessionCookie(request, reply, cookieValue);
        return redirectTo(request, reply, next, {
          kind: "success",
          text: `Welcome to Eventgraph, ${user.name}! ${verificationSentence(mailSetup(request), user.email)}`,
        });
      } catch (error) {
        const limited = throttled(error, { name: values.name ?? "", email: values.email ?? "" });
        const state = limited ?? stateFromError(error, values);
        return sendPage(
          reply,
          <SignupPage ctx={pageContext(request, reply)} state={state} next={next} />,
          httpStatusOf(error),
        );
      }
    },
  );

  app.get<{ Querystring: { next?: string } }>("/login", async (request, reply) => {
    const next = safeReturnPath(request.query.next);
    if (request.dashboard.session) return redirectTo(request, reply, next);
    return sendPage(
      reply,
      <LoginPage
        ctx={pageContext(request, reply)}
        state={formState()}
        next={next}
        sso={services.sso?.config}
      />,
    );
  });

  app.post<{ Querystring: { next?: string } }>(
    "/login",
    { config: { csrf: "public" } },
    async (request, reply) => {
      const values = formValues(request.body);
      const next = safeReturnPath(request.query.next);
      try {
        const { cookieValue } = await services.auth.logIn(
          { email: values.email ?? "", password: values.password ?? "" },
          request.ip,
          request.headers["user-agent"],
        );
        // The previous session of this browser (if any) ends: a login always starts a fresh one.
        const previous = request.cookies[sessionCookie];
        if (previous) await services.sessions.end(previous);
        setSessionCookie(request, reply, cookieValue);
        return redirectTo(request, reply, next);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const state: FormState = {
          values: { email: values.email ?? "" },
          errors: {},
          formError: error.message,
        };
        return sendPage(
          reply,
          <LoginPage
            ctx={pageContext(request, reply)}
            state={state}
            next={next}
            sso={services.sso?.config}
          />,
          httpStatusOf(error),
        );
      }
    },
  );

  app.get("/logout", async (request, reply) => {
    if (!request.dashboard.session) return redirectTo(request, reply, "/login");
    return sendPage(reply, <LogoutPage ctx={pageContext(request, reply)} />);
  });

  app.post("/logout", async (request, reply) => {
    const value = request.cookies[sessionCookie];
    if (value) await services.sessions.end(value);
    clearSessionCookie(request, reply);
    request.dashboard.session = undefined;
    return redirectTo(request, reply, "/login", { kind: "success", text: "You are logged out." });
  });

  app.get<{ Querystring: { token?: string } }>("/verify-email", async (request, reply) => {
    try {
      await services.auth.verifyEmail(query(request.query.token));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== ErrorCode.BAD_USER_INPUT) throw error;
      return sendPage(
        reply,
        <LinkProblemPage
          ctx={pageContext(request, reply)}
          title="Verification link not valid"
          message={error.message}
        />,
        httpStatusOf(error),
      );
    }
    if (request.dashboard.session) {
      return redirectTo(request, reply, "/", {
        kind: "success",
        text: "Thank you: your email address is verified.",
      });
    }
    return sendPage(reply, <VerifiedPage ctx={pageContext(request, reply)} />);
  });

  app.post("/verify-email/resend", async (request, reply) => {
    const session = request.dashboard.session;
    if (!session) return redirectTo(request, reply, "/login");
    await services.auth.resendVerification(session.user.id, request.ip);
    const mail = mailSetup(request);
    return redirectTo(request, reply, "/", {
      kind: mail.sendsEmail ? "success" : "info",
      text: verificationSentence(mail, session.user.email).replace("a verification", "a new verification"),
    });
  });

  app.get("/forgot-password", async (request, reply) => {
    if (passwordsOff) return sendPasswordsOffPage(request, reply, passwordsOff, "Reset your password", "/");
    return sendPage(reply, <ForgotPasswordPage ctx={pageContext(request, reply)} state={formState()} />);
  });

  app.post("/forgot-password", { config: { csrf: "public" } }, async (request, reply) => {
    const values = formValues(request.body);
    const email = values.email?.trim() ?? "";
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      const state: FormState = { values, errors: { email: "Must be a valid email address" } };
      return sendPage(reply, <ForgotPasswordPage ctx={pageContext(request, reply)} state={state} />, 400);
    }
    try {
      await services.auth.requestPasswordReset(email, request.ip);
    } catch (error) {
      const state = throttled(error, { email });
      if (!state) throw error;
      return sendPage(reply, <ForgotPasswordPage ctx={pageContext(request, reply)} state={state} />, 429);
    }
    // The same answer whether or not the account exists.
    return sendPage(
      reply,
      <ForgotPasswordPage ctx={pageContext(request, reply)} state={formState()} sentTo={email} />,
    );
  });

  app.get<{ Querystring: { token?: string } }>("/reset-password", async (request, reply) => {
    if (passwordsOff) return sendPasswordsOffPage(request, reply, passwordsOff, "Choose a new password", "/");
    const token = query(request.query.token);
    const ctx = pageContext(request, reply);
    if (!(await services.auth.isResetTokenUsable(token))) {
      return sendPage(
        reply,
        <LinkProblemPage
          ctx={ctx}
          title="Reset link not valid"
          message="This link is invalid, has expired or was already used. Ask for a new one on the log-in page."
        />,
        400,
      );
    }
    return sendPage(reply, <ResetPasswordPage ctx={ctx} state={formState()} token={token} />);
  });

  app.post("/reset-password", { config: { csrf: "public" } }, async (request, reply) => {
    const values = formValues(request.body);
    const token = values.token ?? "";
    try {
      const { cookieValue } = await services.auth.resetPassword(
        token,
        values.password ?? "",
        sessionClient(request),
      );
      setSessionCookie(request, reply, cookieValue);
      return redirectTo(request, reply, "/", {
        kind: "success",
        text: "Your password was changed. Every other session of your account was logged out.",
      });
    } catch (error) {
      const state = stateFromError(error, {});
      return sendPage(
        reply,
        <ResetPasswordPage ctx={pageContext(request, reply)} state={state} token={token} />,
        httpStatusOf(error),
      );
    }
  });
}
