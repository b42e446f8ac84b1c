import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSuite, launchChromium, RUN_BROWSER_SUITES, watchPage } from "../support/browser.js";
import { startScoringApp, type ScoringTestApp } from "../support/scoring-app.js";

/** Screenshots for people to look at (not assertions). */
const SHOTS = "/tmp/badge-shots";

describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("the share page's badge section in a real browser"), () => {
  let browser: Browser;
  let service: ScoringTestApp;
  let resultId: string;

  beforeAll(async () => {
    service = await startScoringApp({ env: { PUBLIC_BASE_URL: "https://score.example.com" } });
    browser = await launchChromium();
    const scored = await fetch(`${service.url}/api/score`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: service.siteUrl("scaleup.test") }),
    });
    expect(scored.status).toBe(200);
    resultId = ((await scored.json()) as { id: string }).id;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  for (const width of [1440, 390]) {
    it(`shows the badge image and its snippets at ${width} px, loading nothing from elsewhere`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const { requests, errors, violations } = await watchPage(page);
      const response = await page.goto(`${service.url}/r/${resultId}`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      expect(response?.headers()["content-security-policy"]).toContain("img-src 'self' data:");

      const image = page.locator(".badge-card img.badge-image");
      await image.scrollIntoViewIfNeeded();
      // Decoded and drawn: a blocked or broken image has no natural width.
      await expect.poll(() => image.evaluate((element: HTMLImageElement) => element.naturalWidth)).toBeGreaterThan(0);
      const box = await image.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(100);
      expect(await image.getAttribute("alt")).toMatch(/^maturity: \d+ · \w+$/);

      // Snippets name the public base URL, read-only, each with its label.
      const markdown = page.getByLabel("Markdown");
      expect(await markdown.getAttribute("readonly")).not.toBeNull();
      expect(await markdown.inputValue()).toBe(
        `[![${await image.getAttribute("alt")}](https://score.example.com/r/${resultId}/badge.svg)](https://score.example.com/r/${resultId})`,
      );
      expect(await page.getByLabel("HTML").inputValue()).toContain(
        `<img src="https://score.example.com/r/${resultId}/badge.svg"`,
      );

      expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(width);
      const host = new URL(service.url).host;
      expect(requests).toContain(`${service.url}/r/${resultId}/badge.svg`);
      expect(requests.filter((url) => !url.startsWith("data:") && new URL(url).host !== host)).toEqual([]);
      expect(await violations()).toEqual([]);
      expect(errors).toEqual([]);

      mkdirSync(SHOTS, { recursive: true });
      const shot = path.join(SHOTS, `share-badge-${width}.png`);
      await page.locator(".badge-card").screenshot({ path: shot });
      await page.screenshot({ path: path.join(SHOTS, `share-page-${width}.png`), fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(2_000);
      await context.close();
    }, 60_000);
  }

  it("draws the badge alone, as an image client would open it", async () => {
    const context = await browser.newContext({ viewport: { width: 400, height: 100 } });
    const page = await context.newPage();
    const { requests, violations } = await watchPage(page);
    const response = await page.goto(`${service.url}/r/${resultId}/badge.svg`);
    expect(response?.headers()["content-type"]).toBe("image/svg+xml");
    const svg = page.locator("svg");
    const box = await svg.boundingBox();
    expect(box?.height).toBe(20);
    expect(box?.width ?? 0).toBeGreaterThan(100);
    // Each text fits inside the badge: textLength pins it to the measured width.
    const texts = await page
      .locator("text")
      .evaluateAll((nodes) =>
        nodes.map((node) => (node as SVGTextElement).getBBox()).map((b) => ({ x: b.x, width: b.width })),
      );
    for (const text of texts) {
      expect(text.x).toBeGreaterThanOrEqual(0);
      expect(text.x + text.width).toBeLessThanOrEqual(box!.width + 0.5);
    }
    mkdirSync(SHOTS, { recursive: true });
    await svg.screenshot({ path: path.join(SHOTS, "badge.png") });
    expect(requests).toEqual([`${service.url}/r/${resultId}/badge.svg`]);
    expect(await violations()).toEqual([]);
    await context.close();
  }, 60_000);
});
