import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { MIN_POPULATION } from "../../src/modules/score/percentiles.js";
import { ARTIFACTS, browserSuite, launchChromium, RUN_BROWSER_SUITES, watchPage } from "../support/browser.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { signIn } from "../support/http.js";
import { storeScore } from "../support/population.js";

/**
 * The share page's "Among N scored sites" section, served by the real `/r/{id}`
 * route over a real population: the reason below 30 sites, then the total's rank
 * and the best and weakest dimensions; at 1440 px and 390 px, under the page's
 * style-only CSP, with no request leaving the service.
 */
describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("share page percentiles in a real browser"), () => {
  let service: TestApp;
  let browser: Browser;
  let lonely: string;
  let ranked: string;

  beforeAll(async () => {
    service = await startTestApp({ LOG_LEVEL: "silent" });
    const dataSource = service.app.database.dataSource;
    // A version of its own, so it stays below 30 sites.
    lonely = await storeScore(dataSource, { url: "https://lonely.example/", total: 50, frameworkVersion: "9.0.0" });
    for (let i = 0; i < MIN_POPULATION + 11; i += 1)
      await storeScore(dataSource, {
        url: `https://crowd${i}.example/`,
        total: (i * 29) % 101,
        dimensions: Array.from({ length: 27 }, (_, d) => (i * 7 + d * 11) % 101),
      });
    // An account's result: final, so its page is cached and revalidates by ETag.
    const owner = await signIn(service, "owner@percentiles.test");
    ranked = await storeScore(dataSource, {
      accountId: owner.accountId,
      url: "https://acme.example/",
      total: 81,
      dimensions: Array.from({ length: 27 }, (_, d) => (d * 37) % 101),
    });
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const width of [1440, 390]) {
    it(`shows the total's rank and the best and weakest dimensions at ${width} px`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const { requests, errors, violations } = await watchPage(page);
      const response = await page.goto(`${service.url}/r/${ranked}`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      const section = page.locator("#percentiles");
      expect(await section.isVisible()).toBe(true);
      expect(await section.locator("h2").innerText()).toBe(`Among ${MIN_POPULATION + 12} scored sites`);
      expect(await section.locator(".pct-total").innerText()).toMatch(/^Total: top \d+(\.\d)?%/);
      expect(await section.locator("li").count()).toBe(6);
      expect(await section.locator("li").first().innerText()).toMatch(/top \d+(\.\d)?%/);
      // The section's own style applied (allowed by hash like the page's).
      expect(
        await section
          .locator("h3")
          .first()
          .evaluate((node) => getComputedStyle(node).textTransform),
      ).toBe("uppercase");
      expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(width);
      mkdirSync(ARTIFACTS, { recursive: true });
      await section.screenshot({ path: path.join(ARTIFACTS, `share-percentiles-${width}.png`) });
      const host = new URL(service.url).host;
      expect(requests.filter((url) => !url.startsWith("data:") && new URL(url).host !== host)).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it("says why there are no percentiles below 30 sites", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await context.newPage();
    const { errors, violations } = await watchPage(page);
    await page.goto(`${service.url}/r/${lonely}`, { waitUntil: "load" });
    const section = page.locator("#percentiles");
    expect(await section.locator("h2").innerText()).toBe("Among 1 scored site");
    expect(await section.innerText()).toContain(
      `Percentiles need ${MIN_POPULATION} distinct sites scored with the maturity framework 9.0.0; 1 so far.`,
    );
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("revalidates by a tag that follows the population: 304 while it stands, 200 once it moved", async () => {
    const first = await fetch(`${service.url}/r/${ranked}`);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"r-[\w-]+-\d+-p\d+\.\d+"$/);
    const again = await fetch(`${service.url}/r/${ranked}`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    await storeScore(service.app.database.dataSource, { url: "https://newcomer.example/", total: 12 });
    const moved = await fetch(`${service.url}/r/${ranked}`, { headers: { "if-none-match": etag } });
    expect(moved.status).toBe(200);
    expect(moved.headers.get("etag")).not.toBe(etag);
    expect(await moved.text()).toContain(`Among ${MIN_POPULATION + 13} scored sites`);
  });
});
