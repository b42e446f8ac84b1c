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
 * The share page of a monitored product's latest result with everything beyond one
 * score at once: the change since the product's previous score, its trend, its
 * standing among 30+ sites and its badge with the embed snippets. At 1440 px and
 * 390 px: every section drawn, nothing wider than the screen, no request leaving
 * the service, no CSP violation.
 */
describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("share page beyond one score in a real browser"), () => {
  let service: TestApp;
  let browser: Browser;
  let latest: string;
  let previous: string;

  beforeAll(async () => {
    service = await startTestApp({ LOG_LEVEL: "silent" });
    const dataSource = service.app.database.dataSource;
    for (let i = 0; i < MIN_POPULATION + 4; i += 1)
      await storeScore(dataSource, {
        url: `https://crowd${i}.example/`,
        total: (i * 31) % 101,
        dimensions: Array.from({ length: 27 }, (_, d) => (i * 13 + d * 7) % 101),
      });
    const owner = await signIn(service, "owner@beyond.test");
    const [product] = (await dataSource.query(
      `INSERT INTO "products" ("account_id", "name", "url", "monitor_interval", "monitor_next_run_at", "public_badge")
       VALUES ($1, 'Climber', 'https://climber.example', 'weekly', now() + interval '7 days', true) RETURNING "id"`,
      [owner.accountId],
    )) as Array<{ id: string }>;
    const day = 86_400_000;
    const scores = [34, 41, 48, 63];
    const ids: string[] = [];
    for (const [index, total] of scores.entries())
      ids.push(
        await storeScore(dataSource, {
          accountId: owner.accountId,
          productId: product!.id,
          url: "https://climber.example/",
          total,
          dimensions: Array.from({ length: 27 }, (_, d) => Math.min(100, total + ((d * 17) % 23) - 11 + index * 3)),
          createdAt: new Date(Date.now() - (scores.length - index) * 7 * day),
        }),
      );
    previous = ids.at(-2)!;
    latest = ids.at(-1)!;
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const width of [1440, 390]) {
    it(`shows the change, the trend, the standing and the badge together at ${width} px`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const { requests, errors, violations } = await watchPage(page);
      const response = await page.goto(`${service.url}/r/${latest}`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);

      const since = page.locator(".since");
      expect(await since.isVisible()).toBe(true);
      expect(await since.innerText()).toContain("+15");
      expect(await since.locator(`a[href$="/r/${previous}"]`).count()).toBeGreaterThan(0);

      const trend = page.locator('svg[aria-labelledby~="trend-title"]');
      expect(await trend.isVisible()).toBe(true);
      expect((await trend.boundingBox())!.width).toBeGreaterThan(100);

      const standing = page.locator("#percentiles");
      expect(await standing.locator("h2").innerText()).toBe(`Among ${MIN_POPULATION + 5} scored sites`);
      expect(await standing.locator(".pct-total").innerText()).toMatch(/^Total: top \d+(\.\d)?%/);

      const badge = page.locator(".badge-card img");
      expect(await badge.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0)).toBe(true);
      const snippets = await page
        .locator(".badge-card textarea")
        .evaluateAll((areas) => areas.map((area) => (area as HTMLTextAreaElement).value));
      expect(snippets.join("\n")).toContain(`/r/${latest}/badge.svg`);

      expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(width);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `share-beyond-${width}.png`), fullPage: true });
      const host = new URL(service.url).host;
      expect(requests.filter((url) => !url.startsWith("data:") && new URL(url).host !== host)).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }
});
