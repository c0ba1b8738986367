import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import type { Page } from "playwright-core";
import { ErrorCode } from "../../src/errors.js";
import { issueEmailToken } from "../../src/modules/accounts/email-links.js";
import { type BrowserFixture, describeInBrowser, desktopWidth, widths } from "../helpers/browser.js";
import { testEngines } from "../helpers/engines.js";
import { createUser, testPassword, uniqueEmail } from "../helpers/factories.js";
import { type ProviderAccount, TestOidcProvider } from "../helpers/oidc-provider.js";

const providerName = "Test University";
let accounts = 0;

/** A new person at the provider, with a verified email unless told otherwise. */
function person(idp: TestOidcProvider, overrides: Partial<ProviderAccount> = {}): ProviderAccount {
  accounts += 1;
  return idp.addAccount({
    login: `person-${accounts}`,
    email: uniqueEmail("sso"),
    emailVerified: true,
    name: `Sam Person ${accounts}`,
    ...overrides,
  });
}

/**
 * Clicks "Log in with …" on the log-in page and signs in at the provider (unless its session
 * remembers the person), then waits for the answer of Eventgraph's callback and returns its status.
 */
async function signOn(page: Page, fx: BrowserFixture, login: string): Promise<number> {
  const callback = page.waitForResponse((response) => response.url().includes("/login/oidc/callback"));
  await startAndSignIn(page, fx, login, callback);
  return (await callback).status();
}

/** Goes to the provider from the log-in page and signs in there when it asks (its session may remember). */
async function startAndSignIn(
  page: Page,
  fx: BrowserFixture,
  login: string,
  back: Promise<unknown>,
): Promise<void> {
  await page.goto(`${fx.server.url}/login`);
  await page.getByRole("link", { name: `Log in with ${providerName}` }).click();
  const username = page.getByLabel("Username");
  const first = await Promise.race([
    back.then(() => "back" as const),
    username.waitFor().then(
      () => "provider" as const,
      () => "back" as const,
    ),
  ]);
  if (first === "back") return;
  await username.fill(login);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function logOut(page: Page, fx: BrowserFixture): Promise<void> {
  await page.goto(`${fx.server.url}/logout`);
  await page.getByRole("form", { name: "Log out" }).getByRole("button", { name: "Log out" }).click();
  await page.getByRole("heading", { name: "Log in" }).waitFor();
}

async function activeSessions(fx: BrowserFixture, userId: string): Promise<number> {
  const row = await fx.server.services.database.db
    .selectFrom("auth_sessions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

for (const engine of testEngines()) {
  const idp = await new TestOidcProvider().listen();
  after(() => idp.close());

  describeInBrowser(
    `single sign-on through a real OpenID Connect provider (${engine.name})`,
    { engine, env: idp.env({ OIDC_NAME: providerName }) },
    (fx) => {
      before(() => idp.allow(fx.server.url));
      afterEach(() => {
        idp.onCallbackRedirect = undefined;
      });
      // The page's look does not depend on the engine: both widths on SQLite, the desktop on PostgreSQL.
      const sizes = engine.name === "sqlite" ? widths : [desktopWidth];

      test("an unverified email at the provider is refused, and no account is made", async () => {
        const unverified = person(idp, { emailVerified: false });
        const page = await fx.desktop();
        assert.equal(await signOn(page, fx, unverified.login), 403);
        await page.getByRole("heading", { name: "Log-in failed" }).waitFor();
        assert.ok(await page.getByText("has not confirmed that this email address is yours").isVisible());
        assert.equal(await fx.server.services.users.findByEmail(unverified.email), undefined);
      });

      test("a callback whose state was changed is refused, even with the provider's real code", async () => {
        const someone = person(idp);
        const page = await fx.desktop();
        idp.onCallbackRedirect = (location) => {
          location.searchParams.set("state", "forged-state");
          return location.href;
        };
        assert.equal(await signOn(page, fx, someone.login), 400);
        await page.getByRole("heading", { name: "Log-in failed" }).waitFor();
        assert.equal(await fx.server.services.users.findByEmail(someone.email), undefined);
      });

      test("a callback opened in another browser (a planted log-in) is refused", async () => {
        const attacker = person(idp);
        const page = await fx.desktop();
        // The attacker's own round trip, stopped before it reaches Eventgraph.
        let planted = "";
        idp.onCallbackRedirect = (location) => {
          planted = location.href;
          return idp.stoppedUrl;
        };
        const stopped = page.waitForURL(idp.stoppedUrl);
        await startAndSignIn(page, fx, attacker.login, stopped);
        await stopped;
        assert.ok(planted.includes("code="), "the provider answered with a code");
        const victim = await fx.desktop();
        const answer = await victim.goto(planted);
        assert.equal(answer?.status(), 400);
        assert.ok(await victim.getByText("started elsewhere").isVisible());
        assert.equal(await fx.server.services.users.findByEmail(attacker.email), undefined);
      });

      for (const width of sizes) {
        test(`the first log-in creates the account, the second finds it (${width} px)`, async () => {
          const someone = person(idp);
          const page = await fx.page(width);
          assert.equal(await signOn(page, fx, someone.login), 303);
          await page.getByRole("heading", { name: "Projects" }).waitFor();
          const created = await fx.server.services.users.findByEmail(someone.email);
          assert.ok(created, "the account exists");
          assert.equal(created.name, someone.name);
          assert.equal(created.emailVerified, true, "the provider verified the address");
          const overflow = await page.evaluate(
            () => document.documentElement.scrollWidth - window.innerWidth,
          );
          assert.ok(overflow <= 0, `no sideways scrolling at ${width} px`);

          await logOut(page, fx);
          assert.equal(await activeSessions(fx, created.id), 0);
          assert.equal(await signOn(page, fx, someone.login), 303);
          await page.getByRole("heading", { name: "Projects" }).waitFor();
          assert.equal((await fx.server.services.users.findByEmail(someone.email))?.id, created.id);
          assert.equal(await activeSessions(fx, created.id), 1, "the session is the dashboard's own");
        });
      }

      test("an existing password account with the verified email is the one that logs in, password kept", async () => {
        const existing = await createUser(fx.server.services, { name: "Pat Password" });
        // The provider's spelling of the address may differ in case.
        const same = person(idp, { email: existing.email.toUpperCase() });
        const page = await fx.desktop();
        assert.equal(await signOn(page, fx, same.login), 303);
        await page.getByRole("heading", { name: "Projects" }).waitFor();
        assert.equal(await activeSessions(fx, existing.id), 1);
        await fx.server.services.auth.logIn({ email: existing.email, password: testPassword }, "127.0.0.9");
      });

      test("an unverified password account is claimed: the squatter's password, sessions and pending email change stop working", async () => {
        const squatted = await createUser(fx.server.services, { name: "Squatter", verified: false });
        const { cookieValue } = await fx.server.services.sessions.start(squatted.id);
        // The squatter's move: an email change to an address of their own, its link in their mailbox.
        const db = fx.server.services.database.db;
        const moveAway = await issueEmailToken(db, squatted.id, "change_email", uniqueEmail("squatter"));
        const owner = person(idp, { email: squatted.email });
        const page = await fx.desktop();
        assert.equal(await signOn(page, fx, owner.login), 303);
        await page.getByRole("heading", { name: "Projects" }).waitFor();
        assert.equal(await fx.server.services.sessions.resume(cookieValue), undefined);
        await assert.rejects(
          fx.server.services.auth.logIn({ email: squatted.email, password: testPassword }, "127.0.0.10"),
          (error: { code?: string }) => error.code === ErrorCode.UNAUTHENTICATED,
        );
        assert.equal((await fx.server.services.users.findByEmail(squatted.email))?.emailVerified, true);
        await assert.rejects(fx.server.services.account.confirmEmailChange(moveAway));
        assert.equal((await fx.server.services.users.getById(squatted.id)).email, squatted.email);
      });
    },
  );
}

const onlyIdp = await new TestOidcProvider().listen();
after(() => onlyIdp.close());

describeInBrowser(
  "OIDC_ONLY=true: passwords are refused, the provider is the way in",
  { env: onlyIdp.env({ OIDC_NAME: providerName, OIDC_ONLY: "true" }) },
  (fx) => {
    before(() => onlyIdp.allow(fx.server.url));

    test("sign-up, log-in and password reset are refused by the services with one clear sentence", async () => {
      const { auth } = fx.server.services;
      const refused = (error: { code?: string; message?: string }) =>
        error.code === ErrorCode.FORBIDDEN &&
        /Passwords are turned off.*Test University/.test(error.message ?? "");
      await assert.rejects(
        auth.logIn({ email: fx.organizer.email, password: testPassword }, "127.0.0.11"),
        refused,
      );
      await assert.rejects(
        auth.signUp({ email: uniqueEmail(), name: "N", password: testPassword }, "127.0.0.11"),
        refused,
      );
      await assert.rejects(auth.requestPasswordReset(fx.organizer.email, "127.0.0.11"), refused);
      await assert.rejects(auth.resetPassword("any-token", "a long new password", undefined), refused);
      for (const path of ["/signup", "/forgot-password", "/reset-password?token=x"]) {
        const response = await fetch(`${fx.server.url}${path}`);
        assert.equal(response.status, 403, path);
        assert.match(await response.text(), /Passwords are turned off on this server/, path);
      }
    });

    for (const width of widths) {
      test(`the log-in page offers only the provider, and logging in through it works (${width} px)`, async () => {
        const someone = person(onlyIdp);
        const page = await fx.page(width);
        await page.goto(`${fx.server.url}/login`);
        assert.equal(await page.getByLabel("Password").count(), 0);
        assert.equal(await page.getByRole("link", { name: "Create an account" }).count(), 0);
        assert.equal(await signOn(page, fx, someone.login), 303);
        await page.getByRole("heading", { name: "Projects" }).waitFor();
      });
    }
  },
);
