import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { ARTIFACTS, browserSuite, launchChromium, RUN_BROWSER_SUITES, watchPage } from "../support/browser.js";
import { startTestApp, type TestApp } from "../support/app.js";
import { docUrlFor, errorCatalogue, type ErrorCode } from "../../src/errors.js";

const local = (url: string, origin: string): boolean => {
  const parsed = new URL(url);
  return parsed.protocol === "data:" || parsed.protocol === "blob:" || parsed.origin === origin;
};

/** The first entry of Redoc's menu: the first section of the page. */
const firstMenuItem = (page: Page) =>
  page
    .locator(".menu-content li[data-item-id]")
    .first()
    .getAttribute("data-item-id", { timeout: 1_000 })
    .catch(() => null);

describe.skipIf(!RUN_BROWSER_SUITES)(browserSuite("/docs, the REST reference, in a real browser"), () => {
  let browser: Browser;
  let service: TestApp;
  beforeAll(async () => {
    [browser, service] = await Promise.all([launchChromium(), startTestApp()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await service?.close();
  });

  it("renders every operation of the document from same-origin assets, with no CSP violation", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const { requests, errors, violations } = await watchPage(page);

    const response = await page.goto(`${service.url}/docs`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);
    const csp = response?.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self'(;|$)/);

    // Redoc has fetched the document and drawn the menu and the operations.
    const document = (await (await fetch(`${service.url}/api/openapi.json`)).json()) as {
      info: { title: string };
      paths: Record<string, Record<string, { summary: string }>>;
    };
    const summaries = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.summary),
    );
    await page.locator("h1", { hasText: document.info.title }).waitFor({ timeout: 30_000 });
    for (const summary of summaries) {
      await expect
        .poll(() => page.locator("h2", { hasText: summary }).count(), { message: summary })
        .toBeGreaterThan(0);
    }
    // Styled: the menu is laid out beside the content.
    const menu = await page.locator(".menu-content").boundingBox();
    expect(menu?.width ?? 0).toBeGreaterThan(150);
    expect(menu?.height ?? 0).toBeGreaterThan(400);
    // The scoring routes show the Idempotency-Key header and the error codes.
    await expect.poll(() => page.content()).toContain("Idempotency-Key");
    await expect.poll(() => page.content()).toContain("CREDIT_EXHAUSTED");
    // Every code has the section an error envelope's docUrl points at.
    for (const code of Object.keys(errorCatalogue) as ErrorCode[]) {
      const anchor = docUrlFor(code).split("#")[1]!;
      await expect
        .poll(() => page.locator(`.menu-content li[data-item-id="${anchor}"]`).count(), { message: anchor })
        .toBe(1);
    }

    // The first section is Getting started, and an operation shows its code samples (curl first).
    await expect.poll(() => firstMenuItem(page)).toBe("section/Getting-started");
    await expect.poll(() => page.getByRole("heading", { name: "Getting started" }).first().isVisible()).toBe(true);
    await expect
      .poll(() => page.locator("text=curl -X POST").first().isVisible(), { message: "a curl sample" })
      .toBe(true);
    await expect.poll(() => page.content()).toContain("TypeScript client");

    await page.waitForLoadState("networkidle");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "api-docs.png") });
    await page.screenshot({ path: path.join(ARTIFACTS, "api-docs-1440-top.png") });
    await page.locator("text=curl -X POST").first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, "api-docs-1440-sample.png") });

    expect(requests).toContain(`${service.url}/api/openapi.json`);
    expect(requests.filter((url) => !local(url, service.url))).toEqual([]);
    expect(errors).toEqual([]);
    expect(await violations()).toEqual([]);
    await context.close();
  }, 90_000);

  it("lays out on a phone: Getting started first, the page no wider than the screen", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const { errors } = await watchPage(page);
    await page.goto(`${service.url}/docs`, { waitUntil: "load" });
    await expect.poll(() => firstMenuItem(page), { timeout: 30_000 }).toBe("section/Getting-started");
    await expect.poll(() => page.getByRole("heading", { name: "Getting started" }).first().isVisible()).toBe(true);
    await page.waitForLoadState("networkidle");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, "api-docs-390-top.png") });
    await page.locator("text=curl -X POST").first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, "api-docs-390-sample.png") });
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});

describe("/docs over HTTP", () => {
  let service: TestApp;
  beforeAll(async () => {
    service = await startTestApp();
  });
  afterAll(() => service?.close());

  it("serves the page with scripts held to its own origin and only its own asset URLs", async () => {
    const first = await fetch(`${service.url}/docs`);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = first.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/connect-src 'self'(;|$)/);
    const html = await first.text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "");
    for (const url of urls) expect(url).toMatch(/^(\/docs\/assets\/[\w.-]+\?v=[\w-]+|\/api\/openapi\.json|data:,)$/);
    const bundle = await fetch(`${service.url}/docs/assets/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await bundle.text()).length).toBeGreaterThan(500_000);
    expect((await fetch(`${service.url}/docs/assets/package.json`)).status).toBe(404);
  });
});
