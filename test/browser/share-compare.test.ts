import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { calibrationSites } from "../fixtures/calibration-sites.js";
import { keyedMember } from "../support/api-key.js";
import { ARTIFACTS, browserSuite, launchChromium, RUN_BROWSER_SUITES, watchPage } from "../support/browser.js";
import type { Site } from "../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../support/scoring-app.js";

/**
 * The share page's "Since the previous score" section (src/http/share-sections/compare.ts)
 * as the service serves it: one address scored twice by one account while its site grew,
 * the later page opened in Chromium at desktop and phone widths.
 */

const pagesOf = (host: string): Site => calibrationSites.find((site) => site.host === host)!.pages;
let current: Site = pagesOf("early.test");
const growingSite = new Proxy({} as Site, { get: (_target, route: string) => current[route] });

describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("share page: since the previous score"), () => {
  let browser: Browser;
  let service: ScoringTestApp;
  let before: string;
  let after: string;

  beforeAll(async () => {
    service = await startScoringApp({ extraSites: { "grown.test": growingSite } });
    const { apiKey } = await keyedMember(service, "since@share.test");
    const score = async () => {
      const response = await fetch(`${service.url}/api/score`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ url: service.siteUrl("grown.test") }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { id: string }).id;
    };
    before = await score();
    current = pagesOf("leader.test");
    after = await score();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const width of [1440, 390])
    it(`shows the change at ${width}px under the strict CSP, with no external request`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const { requests, errors, violations } = await watchPage(page);
      const response = await page.goto(`${service.url}/r/${after}`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      const since = page.locator("section.since");
      expect(await since.isVisible()).toBe(true);
      expect(await since.locator("h2").innerText()).toBe("Since the previous score");
      // Its own hashed <style> applied: the total's colour is the rise's green.
      expect(await since.locator(".since-total").evaluate((node) => getComputedStyle(node).color)).toBe(
        "rgb(21, 128, 61)",
      );
      expect(await since.locator(".since-total").innerText()).toMatch(/^\+\d+$/);
      const rows = since.locator(".since-list li");
      expect(await rows.count()).toBeGreaterThan(0);
      expect(await rows.count()).toBeLessThanOrEqual(5);
      expect(await since.locator(`a[href$="/r/${before}"]`).count()).toBe(1);
      expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(width);
      const host = new URL(service.url).host;
      expect(requests.filter((url) => !url.startsWith("data:") && new URL(url).host !== host)).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await since.screenshot({ path: path.join(ARTIFACTS, `share-page-since-${width}.png`) });
      await context.close();
    }, 60_000);

  it("has no such section on the first score of the series", async () => {
    const html = await (await fetch(`${service.url}/r/${before}`)).text();
    expect(html).not.toContain("Since the previous score");
  });
});
