import { ok } from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before } from "node:test";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from "playwright-core";
import { sqliteEngine, type TestEngine } from "./engines.js";
import { createUser, testPassword } from "./factories.js";
import { Mailbox } from "./mailbox.js";
import { chromiumMissing, chromiumPath, describeNeeding } from "./requirements.js";
import { startTestServer, type TestServer } from "./test-server.js";

/** The two widths every dashboard page is tested at: a phone's and a desktop's. */
const phoneWidth = 390;
export const desktopWidth = 1280;
export const widths = [phoneWidth, desktopWidth] as const;

/**
 * Launches Debian's Chromium (or CHROMIUM_PATH) headless; never a downloaded browser build.
 * `extraArgs` adds switches (the door test's fake camera).
 */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...extraArgs,
    ],
  });
}

// One Chromium per process, shared by every browser file it runs (scripts/test-worker.mjs runs many
// files in one process): launching one and opening its first page costs seconds of Chromium's own
// CPU, which 35 files paid once each. Files stay apart as before: each test gets new contexts (own
// cookies, storage and cache), closed after it. A file that ends leaves the browser to the next
// one; when none takes it within `idleCloseMs` (the worker moved on to other files, or has no more),
// it is closed, so the process can exit.
let shared: Promise<Browser> | undefined;
/** How many suites hold the shared browser now: it is closed only once none does. */
let holders = 0;
let idleTimer: NodeJS.Timeout | undefined;
const idleCloseMs = 2_000;

/** The process's shared Chromium, launched on first use (again after a crash or an idle close). */
async function holdSharedBrowser(): Promise<Browser> {
  clearTimeout(idleTimer);
  holders++;
  try {
    const current = shared && (await shared.catch(() => undefined));
    if (current?.isConnected()) return current;
    const launched = launchBrowser();
    shared = launched;
    return await launched;
  } catch (error) {
    holders--;
    shared = undefined;
    throw error;
  }
}

/** Lets the shared browser go: closed unless another suite takes it within idleCloseMs. */
function releaseSharedBrowser(): void {
  holders--;
  if (holders > 0) return;
  clearTimeout(idleTimer);
  // Unref'd: the browser's own pipes keep the process alive until it is closed, not this timer.
  idleTimer = setTimeout(() => {
    const closing = shared;
    shared = undefined;
    void closing?.then((browser) => browser.close()).catch(() => {});
  }, idleCloseMs).unref();
}

/**
 * A fresh browser context (own cookies) and page, at a desktop size for readable screenshots.
 * Suites use describeInBrowser's pages; this stays for a browser a test launches itself.
 * @public
 */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: desktopWidth, height: 860 } });
  return context.newPage();
}

/** Logs `page` in through the login form as `email` (password: the factories' testPassword). */
async function logIn(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(testPassword);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Projects" }).waitFor();
}

// Every run takes the screenshots; only `SCREENSHOTS=update` writes them over the committed ones
// in docs/screenshots/, so an ordinary test run leaves the work tree clean.
const screenshotDir =
  process.env.SCREENSHOTS === "update" ? "docs/screenshots" : join(tmpdir(), "eventgraph-screenshots");

/** Fails when the page is wider than its window: nothing may scroll sideways at 390 px. */
export async function assertFits(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  ok(overflow <= 0, `${what} is ${overflow} px wider than the window`);
}

/** Saves a full-page screenshot (docs/screenshots/ with SCREENSHOTS=update, else a temp folder). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

type User = Awaited<ReturnType<typeof createUser>>;

/**
 * What a browser suite's tests share: one server, the process's Chromium (shared with other files:
 * open contexts on it, never close it) and two logged-in-ready people.
 */
export interface BrowserFixture {
  readonly server: TestServer;
  readonly browser: Browser;
  /** The mailbox the server sends to (SMTP_URL), when the suite asked for one. */
  readonly mailbox: Mailbox;
  /** A verified organizer and a verified developer, created once for the file. */
  readonly organizer: User;
  readonly developer: User;
  /** A new context (own cookies) `width` px wide; closed after the test. */
  context(width: number, options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page in a new context `width` px wide, logged in as `user` when one is given. */
  page(width: number, user?: { email: string }, options?: BrowserContextOptions): Promise<Page>;
  /** `page` at 390 px and at 1280 px. */
  phone(user?: { email: string }, options?: BrowserContextOptions): Promise<Page>;
  desktop(user?: { email: string }, options?: BrowserContextOptions): Promise<Page>;
  /** Logs an open page in through the form. */
  logIn(page: Page, user: { email: string }): Promise<void>;
}

export interface BrowserSuiteOptions {
  /** SQLite unless told otherwise: a page's behaviour does not depend on the engine. */
  engine?: TestEngine;
  /** The server's environment (e.g. WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  env?: Record<string, string>;
  /** Starts a mailbox and points the server's SMTP_URL at it. */
  mailbox?: boolean;
}

/**
 * A suite of Chromium tests over one server for the whole file and the process's shared Chromium
 * (each test's contexts are its own and closed after it): `body` registers
 * the tests with the fixture, whose fields are ready inside them (not while registering). Without
 * Chromium the suite is one named, counted skip (in CI, a failure).
 */
export function describeInBrowser(
  name: string,
  options: BrowserSuiteOptions,
  body: (fixture: BrowserFixture) => void,
): void {
  describeNeeding(chromiumMissing(), name, () => {
    let state:
      | { server: TestServer; browser: Browser; mailbox?: Mailbox; organizer: User; developer: User }
      | undefined;
    const open: BrowserContext[] = [];
    const ready = () => state ?? assert(`${name}: the browser fixture is used before its suite started`);

    before(async () => {
      const mailbox = options.mailbox ? await new Mailbox().start() : undefined;
      const env = { ...options.env, ...(mailbox ? { SMTP_URL: mailbox.url } : {}) };
      const [started, launched] = await Promise.allSettled([
        startTestServer(options.engine ?? sqliteEngine, env),
        holdSharedBrowser(),
      ]);
      if (started.status === "rejected" || launched.status === "rejected") {
        // Whichever did start is closed or released, so the file fails at once instead of hanging on it.
        if (started.status === "fulfilled") await started.value.close();
        if (launched.status === "fulfilled") releaseSharedBrowser();
        await mailbox?.close();
        throw started.status === "rejected" ? started.reason : (launched as PromiseRejectedResult).reason;
      }
      const server = started.value;
      const browser = launched.value;
      state = {
        server,
        browser,
        ...(mailbox ? { mailbox } : {}),
        organizer: await createUser(server.services, { name: "Ada Organizer" }),
        developer: await createUser(server.services, { name: "Dana Developer" }),
      };
    });
    afterEach(async () => {
      await Promise.all(open.splice(0).map((context) => context.close()));
    });
    after(async () => {
      if (state) releaseSharedBrowser();
      await state?.server.close();
      await state?.mailbox?.close();
    });

    const fixture: BrowserFixture = {
      get server() {
        return ready().server;
      },
      get browser() {
        return ready().browser;
      },
      get mailbox() {
        return ready().mailbox ?? assert(`${name}: the suite was started without { mailbox: true }`);
      },
      get organizer() {
        return ready().organizer;
      },
      get developer() {
        return ready().developer;
      },
      async context(width, contextOptions = {}) {
        const context = await ready().browser.newContext({
          viewport: { width, height: 800 },
          ...contextOptions,
        });
        open.push(context);
        return context;
      },
      async page(width, user, contextOptions) {
        const page = await (await fixture.context(width, contextOptions)).newPage();
        if (user) await fixture.logIn(page, user);
        return page;
      },
      phone: (user, contextOptions) => fixture.page(phoneWidth, user, contextOptions),
      desktop: (user, contextOptions) => fixture.page(desktopWidth, user, contextOptions),
      logIn: (page, user) => logIn(page, ready().server.url, user.email),
    };
    body(fixture);
  });
}

function assert(message: string): never {
  throw new Error(message);
}
