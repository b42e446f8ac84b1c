import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { ARTIFACTS, browserSuite, launchChromium, RUN_BROWSER_SUITES, watchPage } from "../support/browser.js";
import { renderSharePage, sharePageCsp } from "../../src/http/share-page.js";
import { scoreResultFixture } from "../fixtures/score-result.js";

/**
 * The share page of a product result with its trend (docs/api.md §13): an inline SVG
 * line, described for screen readers, under the page's strict CSP, at desktop and
 * phone widths, with no request leaving the page's host.
 */
const TREND = [52, 55, 54, 61, 66].map((total, i) => ({
  total,
  createdAt: new Date(Date.UTC(2026, 8, 1 + 7 * i)),
}));

async function startServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const trend = req.url === "/r/trend" ? TREND : req.url === "/r/single" ? TREND.slice(0, 1) : undefined;
    if (!trend) return void res.writeHead(404).end();
    const html = renderSharePage(scoreResultFixture({ companyName: "Trendy" }), {
      publicBaseUrl: "https://score.example.com",
      trend,
    });
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8", "content-security-policy": sharePageCsp(html) })
      .end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("share page trend in a real browser"), () => {
  let browser: Browser;
  let server: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    server = await startServer();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const width of [1440, 390]) {
    it(`draws the trend at ${width}px, labelled, inside the viewport, with no external request`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const { requests, errors, violations } = await watchPage(page);
      expect((await page.goto(`${server.url}/r/trend`))?.status()).toBe(200);
      const chart = page.locator('svg[role="img"][aria-labelledby="trend-title trend-desc"]');
      expect(await chart.isVisible()).toBe(true);
      const box = await chart.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(width === 390 ? 250 : 500);
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(width);
      expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(width);
      expect(await page.locator("#trend-title").textContent()).toBe("Total score trend");
      expect(await page.locator("#trend-desc").textContent()).toBe(
        "Total score over 5 results, from 52 on Sep 1, 2026 to 66 on Sep 29, 2026: up 14 points.",
      );
      expect(await chart.locator("circle").count()).toBe(5);
      expect(await chart.locator("text").allTextContents()).toEqual(["52", "66"]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.locator("#h-trend").scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(ARTIFACTS, `share-trend-${width}.png`) });
      const host = new URL(server.url).host;
      expect(requests.filter((url) => !url.startsWith("data:") && new URL(url).host !== host)).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it("shows no trend for a single result", async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/r/single`);
    expect(await page.locator("#h-trend").count()).toBe(0);
    await page.close();
  });
});
