import { existsSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";

/** Debian's Chromium (installed by .ci/run), or the one CHROMIUM_PATH names. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || "/usr/bin/chromium"; // empty means unset, as for the service
export const HAS_CHROMIUM = existsSync(CHROMIUM_PATH);
/**
 * REQUIRE_BROWSER=1 (CI): a missing Chromium fails the browser suites instead of
 * skipping them. Any value other than empty, "0" or "false" counts as set, so a
 * CI that writes `true` is not silently skipped either.
 */
export const REQUIRE_BROWSER = !["", "0", "false"].includes((process.env.REQUIRE_BROWSER ?? "").trim().toLowerCase());
/** Whether browser suites run (else they are skipped, saying why in their name). */
export const RUN_BROWSER_SUITES = HAS_CHROMIUM || REQUIRE_BROWSER;
/** Screenshots and PDFs the tests save for people to look at. */
export const ARTIFACTS = path.resolve("test-artifacts");

/** A suite's name, or the reason it is skipped. */
export function browserSuite(name: string): string {
  return RUN_BROWSER_SUITES
    ? name
    : `${name}: SKIPPED, no Chromium binary at ${CHROMIUM_PATH} (set CHROMIUM_PATH; REQUIRE_BROWSER=1 makes this fail)`;
}

/** Headless Chromium with nothing that talks to the internet by itself. */
export async function launchChromium(): Promise<Browser> {
  if (!HAS_CHROMIUM) {
    throw new Error(
      `REQUIRE_BROWSER is set but there is no Chromium binary at ${CHROMIUM_PATH}: ` +
        "install chromium (Debian: apt-get install chromium) or point CHROMIUM_PATH at one.",
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Every request, console error, uncaught exception, dialog and CSP violation of a page. */
export async function watchPage(
  page: Page,
): Promise<{ requests: string[]; errors: string[]; violations: () => Promise<string[]> }> {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      errors.push(`console.${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("dialog", (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  // Init scripts come from DevTools, not the page, so the page's CSP does not block them.
  await page.addInitScript({
    content:
      "window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => " +
      "window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')), true);",
  });
  return { requests, errors, violations: async () => (await page.evaluate("window.__violations")) as string[] };
}
