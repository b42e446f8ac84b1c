import { mkdirSync } from "node:fs";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { browserSuite, launchChromium, RUN_BROWSER_SUITES, watchPage } from "../support/browser.js";
import { page as htmlPage } from "../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../support/scoring-app.js";

/** Screenshots of the pages for people to look at. */
const SHOTS = "/tmp/pages-shots";

/**
 * The home page in Chromium against the real service: the anonymous quick score
 * from its form, live progress over graphql-ws, the share page at the end, and
 * the errors a visitor can meet, each read from its envelope. Every visitor comes
 * through the local proxy (TRUST_PROXY) with an address of its own, so each has
 * the hour's one anonymous score.
 */

/** Holds the site's linked pages until the test has seen the crawl begin: progress is then seen live, not guessed. */
class Gate {
  private held: Array<() => void> = [];
  private open = false;
  hold(respond: () => void): void {
    if (this.open) respond();
    else this.held.push(respond);
  }
  release(): void {
    this.open = true;
    for (const respond of this.held.splice(0)) respond();
  }
}

const gate = new Gate();
const gated = (body: string) => ({
  handle: (_request: unknown, response: ServerResponse) =>
    gate.hold(() => response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body)),
});

const SITES = {
  "gated.test": {
    "/": htmlPage(
      "Gatekeep — access reviews for SaaS",
      `<h1>Gatekeep</h1><p>Access reviews for growing SaaS teams. Connect Okta, Google Workspace and GitHub, review access quarterly and export evidence for SOC 2 auditors.</p>
       <a href="/pricing">Pricing</a> <a href="/docs">Docs</a> <a href="/security">Security</a>`,
    ),
    "/pricing": gated(
      htmlPage("Pricing", "<h1>Pricing</h1><p>Team $8 per user per month. Business $14 per user per month.</p>"),
    ),
    "/docs": gated(htmlPage("Docs", "<h1>Docs</h1><p>REST API with webhooks and an OpenAPI document.</p>")),
    "/security": gated(
      htmlPage("Security", "<h1>Security</h1><p>SOC 2 Type II. SSO with SAML. Encryption at rest.</p>"),
    ),
  },
  "broken.test": { "/": { status: 500, body: "upstream exploded" } },
};

describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("home page in a real browser"), () => {
  let browser: Browser;
  let service: ScoringTestApp;
  let nextAddress = 60;

  beforeAll(async () => {
    service = await startScoringApp({ env: { TRUST_PROXY: "127.0.0.1" }, extraSites: SITES });
    browser = await launchChromium();
    mkdirSync(SHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    gate.release();
    await browser?.close();
    await service?.close();
  });

  /** A visitor of its own (its own address through the proxy) on the home page. */
  async function visit(
    width: number,
  ): Promise<
    { context: BrowserContext; page: Page; sockets: string[]; stepsOverSocket: string[] } & Awaited<
      ReturnType<typeof watchPage>
    >
  > {
    const context = await browser.newContext({
      viewport: { width, height: 900 },
      extraHTTPHeaders: { "x-forwarded-for": `203.0.113.${nextAddress++}` },
    });
    const page = await context.newPage();
    const watched = await watchPage(page);
    // WebSockets are not requests to Playwright: their addresses and the steps they carried are kept apart.
    const sockets: string[] = [];
    const stepsOverSocket: string[] = [];
    page.on("websocket", (socket) => {
      sockets.push(socket.url());
      socket.on("framereceived", ({ payload }) => {
        const status = /"scoreProgress":\{"status":"(\w+)"/.exec(String(payload))?.[1];
        if (status) stepsOverSocket.push(status);
      });
    });
    const response = await page.goto(`${service.url}/`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toMatch(/script-src 'self';/);
    return { context, page, sockets, stepsOverSocket, ...watched };
  }

  async function submit(page: Page, url: string): Promise<void> {
    await page.fill("#url", url);
    await page.click("#submit");
  }

  function expectLocalOnly(requests: readonly string[]): void {
    const host = new URL(service.url).host;
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => !url.startsWith("data:") && new URL(url).host !== host)).toEqual([]);
  }

  const noOverflow = async (page: Page, width: number) =>
    expect(Number(await page.evaluate("document.documentElement.scrollWidth"))).toBeLessThanOrEqual(width);

  it("scores a site from the form with live progress, and ends on its share page", async () => {
    const { context, page, requests, sockets, stepsOverSocket, errors, violations } = await visit(1440);
    expect(await page.locator("h1").innerText()).toContain("How mature is a product?");
    for (const href of ["/docs", "/graphiql", "/api/health"])
      expect(await page.locator(`a[href="${href}"]`).count()).toBe(1);
    // The hashed <style> applied.
    expect(await page.evaluate("getComputedStyle(document.body).backgroundColor")).toBe("rgb(241, 245, 249)");
    await page.screenshot({ path: path.join(SHOTS, "home-1440.png"), fullPage: true });

    // Every text the crawling step shows, as it changes: a page that subscribes after the home page was read
    // (a loaded machine) first sees "crawling" without its page, then each page after the gate opens.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { crawlTexts: string[] }).crawlTexts = seen;
      new MutationObserver(() => {
        for (const li of document.querySelectorAll('#steps li[data-status="crawling"]'))
          seen.push(li.textContent ?? "");
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await submit(page, service.siteUrl("gated.test"));
    // The home page was read and the rest is held: the crawl's progress shows while it runs.
    await page.locator('#steps li[data-status="crawling"]').waitFor();
    await page.screenshot({ path: path.join(SHOTS, "home-progress-1440.png"), fullPage: true });
    gate.release();
    await page.locator("body[data-state=done]").waitFor({ timeout: 30_000 });
    const crawlTexts = await page.evaluate(() => (window as unknown as { crawlTexts: string[] }).crawlTexts);
    expect(crawlTexts.some((text) => /page \d+ of \d+/.test(text))).toBe(true);

    const steps = await page
      .locator("#steps li")
      .evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.status));
    expect(steps).toContain("crawling");
    expect(steps).toContain("scoring");
    expect(steps.at(-1)).toBe("completed");
    expect(await page.locator('#steps li[data-status="scoring"]').innerText()).toBe("Scoring: dimension 27 of 27");
    expect(await page.locator("#outcome").innerText()).toMatch(
      /scores \d{1,3}\/100, (Foundation|Developing|Scaling|Compounding|Leading)\./,
    );
    expect(await page.locator("#outcome code").innerText()).toMatch(/^clm_/);
    expect(await page.locator("#outcome").innerText()).toContain("unless claimed");
    await page.screenshot({ path: path.join(SHOTS, "home-done-1440.png"), fullPage: true });

    const total = (await page.locator("#outcome .score").innerText()).replace("/100", "");
    await Promise.all([page.waitForURL(/\/r\/[0-9a-f-]{36}$/), page.click("#report")]);
    await expect.poll(() => page.locator(".total-num").innerText()).toMatch(new RegExp(`^${total}\\s*out of 100$`));
    expect(await page.locator(".held").innerText()).toMatch(/^Kept until .+ unless claimed/);

    expectLocalOnly(requests);
    // The steps came over graphql-ws on the service's own /graphql, not from the polling fallback.
    expect(sockets).toEqual([`${service.url.replace("http", "ws")}/graphql`]);
    expect(stepsOverSocket).toContain("crawling");
    expect(stepsOverSocket).toContain("scoring");
    expect(stepsOverSocket.at(-1)).toBe("completed");
    expect(requests.filter((url) => url === `${service.url}/graphql`)).toHaveLength(2); // startScore, then the result
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);

    // The visitor's one score this hour is spent: the next is refused, with the wait, in words.
    await page.goBack();
    await submit(page, service.siteUrl("gated.test"));
    await page.locator("#problem[data-code=ANON_RATE_LIMIT]").waitFor();
    // The wait, from the refusal's extensions.retryAfter, in words.
    expect(await page.locator("#problem").innerText()).toMatch(/Try again in \d+ minutes\./);
    await context.close();
  }, 90_000);

  it("shows a refused address and a failed crawl as readable messages", async () => {
    const { context, page, errors, violations } = await visit(390);
    await submit(page, "ftp://gated.test/");
    await page.locator("#problem[data-code=INVALID_URL]").waitFor();
    const invalid = await page.locator("#problem").innerText();
    expect(invalid.length).toBeGreaterThan(20);
    expect(invalid).not.toMatch(/INVALID_URL|\{|stack/i);

    // Refused before anything was charged: the same visitor can still score, and this crawl fails.
    await submit(page, service.siteUrl("broken.test"));
    await page.locator("#problem[data-code=CRAWL_FAILED]").waitFor({ timeout: 30_000 });
    expect(await page.locator('#steps li[data-status="failed"]').count()).toBe(1);
    expect(await page.locator("#problem").innerText()).toMatch(/500/);
    await noOverflow(page, 390);
    await page.screenshot({ path: path.join(SHOTS, "home-error-390.png"), fullPage: true });
    expect(await violations()).toEqual([]);
    expect(errors.filter((error) => !error.includes("status of 4"))).toEqual([]);
    await context.close();
  }, 90_000);

  it("fits a 390px phone", async () => {
    const { context, page, errors, violations } = await visit(390);
    await noOverflow(page, 390);
    const input = await page.locator("#url").boundingBox();
    expect(input?.width ?? 0).toBeGreaterThan(200);
    await page.screenshot({ path: path.join(SHOTS, "home-390.png"), fullPage: true });
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it("shows misses outside /api as pages in the share page's style", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    const { requests, errors, violations } = await watchPage(page);
    for (const [path, title] of [
      ["/r/00000000-0000-4000-8000-000000000000", "Result not found"],
      ["/no/such/page", "Page not found"],
    ] as const) {
      const response = await page.goto(`${service.url}${path}`, { waitUntil: "load" });
      expect(response?.status()).toBe(404);
      expect(await page.locator("h1").innerText()).toBe(title);
      expect(await page.evaluate("getComputedStyle(document.querySelector('.hero')).backgroundColor")).toBe(
        "rgb(15, 23, 42)",
      );
      await noOverflow(page, 390);
      await page.screenshot({
        path: path.replace(/\W+/g, "-").replace(/^-/, `${SHOTS}/404-`) + ".png",
        fullPage: true,
      });
      await Promise.all([page.waitForURL(`${service.url}/`), page.click('main a[href="/"]')]);
    }
    // An /api miss stays JSON, even for a browser.
    const api = await page.goto(`${service.url}/api/nothing`);
    expect(api?.status()).toBe(404);
    expect(api?.headers()["content-type"]).toMatch(/^application\/json/);
    expectLocalOnly(requests);
    expect(await violations()).toEqual([]);
    expect(errors.filter((error) => !error.includes("404"))).toEqual([]);
    await context.close();
  }, 60_000);
});
