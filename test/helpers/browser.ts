import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { chromiumPath } from "./requirements.js";

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

/** A fresh browser context (own cookies) and page, at a desktop size for readable screenshots. */
export async function newPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  return context.newPage();
}

// Every run takes the screenshots; only `SCREENSHOTS=update` writes them over the committed ones
// in docs/screenshots/, so an ordinary test run leaves the work tree clean.
const screenshotDir =
  process.env.SCREENSHOTS === "update" ? "docs/screenshots" : join(tmpdir(), "eventgraph-screenshots");

/** Saves a full-page screenshot (docs/screenshots/ with SCREENSHOTS=update, else a temp folder). */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}
