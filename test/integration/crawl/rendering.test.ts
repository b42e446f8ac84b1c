import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../../src/errors.js";
import type { CrawlResult, ExtractedPage } from "../../../src/modules/crawl/crawl.types.js";
import { createCrawler, createRenderer } from "../../../src/modules/crawl/crawler.factory.js";
import { NO_BROWSER_ACTION } from "../../../src/modules/crawl/crawler.js";
import { readPage } from "../../../src/modules/crawl/extract.js";
import {
  BROWSER_WENT_AWAY,
  PAST_MEMORY_CEILING,
  type BrowserRenderer,
} from "../../../src/modules/crawl/render/renderer.js";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import { acmeSite } from "../../fixtures/crawl-sites.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { appSite, matureApp, staticTwin, type AppStyle } from "../../fixtures/spa-sites.js";
import { browserSuite, CHROMIUM_PATH, RUN_BROWSER_SUITES } from "../../support/browser.js";
import { FixtureSites, fixtureResolver } from "../../support/fixture-sites.js";

/**
 * Client-rendered sites read as a browser reads them (docs/api.md §12), against local
 * apps in every routing style and their static twin: the same words in HTML.
 */
const STYLES: AppStyle[] = ["history", "static-host", "hash", "json", "lazy"];
const config = (browser = true) => ({
  version: "test",
  crawl: {
    maxPages: 25,
    ssrfAllowlist: ["127.0.0.1/32", "*.test"],
    ...(browser ? { browser: { path: CHROMIUM_PATH, source: "CHROMIUM_PATH" as const } } : {}),
  },
});
const silent = pino({ level: "silent" });

let sites: FixtureSites;
let renderer: BrowserRenderer;
const crawlers = () => createCrawler(config(), { resolver: fixtureResolver(), renderer, budgetMs: 60_000 });

beforeAll(async () => {
  sites = await new FixtureSites({
    "twin.test": staticTwin(matureApp),
    ...Object.fromEntries(STYLES.map((style) => [`${style}.test`, appSite(matureApp, style)])),
  }).start();
  // acme.test's pages name their own origin, port included: added once the port is known.
  Object.assign(
    (sites as unknown as { sites: Record<string, unknown> }).sites,
    acmeSite(`http://acme.test:${sites.port}`),
  );
  renderer = createRenderer(config(), silent, { resolver: fixtureResolver() }) as BrowserRenderer;
});
afterAll(async () => {
  await renderer?.close();
  await sites?.stop();
});

/** "/pricing" for "http://history.test:1234/pricing" and "http://hash.test:1234/#/pricing". */
const routeOf = (url: string) => {
  const { pathname, hash } = new URL(url);
  return hash.startsWith("#/") ? hash.slice(1) : pathname;
};
const byRoute = (crawl: CrawlResult) => new Map(crawl.pages.map((page) => [routeOf(page.url), page]));
/** What the scorer reads of a page, without its address (the twin lives on another host). */
const facts = (page: ExtractedPage) => ({
  title: page.title,
  text: page.text,
  headings: page.headings,
  metaDescription: page.metaDescription,
  dates: page.dates,
  prices: page.prices,
  links: page.internalLinks.map((link) => routeOf(link.url)).sort(),
});

describe.runIf(RUN_BROWSER_SUITES)(browserSuite("reading client-rendered sites"), () => {
  it.each(STYLES)(
    "reads the %s app after its scripts run: every route, with the words only its script writes, as its static twin reads",
    async (style) => {
      const twin = await crawlers().crawl(sites.url("twin.test"));
      const app = await crawlers().crawl(sites.url(`${style}.test`));
      expect(twin.crawlStats.pagesRendered).toBe(0);
      expect(app.crawlStats).toMatchObject({ pagesAnalyzed: 11, pagesRendered: 11, failures: [] });
      expect(app.pages.every((page) => page.rendered)).toBe(true);
      // The shell itself says nothing: every word below was written by the bundle.
      const shell = readPage({
        url: sites.url(`${style}.test`),
        status: 200,
        body: String(appSite(matureApp, style)["/"]),
        kind: "html",
        headers: {},
      }).page;
      expect(shell.text).not.toContain("SOC 2");
      const twinPages = byRoute(twin);
      expect([...byRoute(app).keys()].sort()).toEqual([...twinPages.keys()].sort());
      for (const [route, page] of byRoute(app)) expect(facts(page), route).toEqual(facts(twinPages.get(route)!));
      if (style === "hash") expect(app.crawledPages.some((url) => url.endsWith("/#/pricing"))).toBe(true);
    },
  );

  it("scores the app as it scores the static twin (within 10 points), quoting words its script wrote", async () => {
    const scorer = new HeuristicScorer();
    const asOf = (crawl: CrawlResult) => ({ ...crawl, crawledAt: "2026-11-25T00:00:00.000Z" });
    const twin = scorer.scoreSync({
      crawl: asOf(await crawlers().crawl(sites.url("twin.test"))),
      framework: "maturity",
      mode: "full",
    });
    const app = scorer.scoreSync({
      crawl: asOf(await crawlers().crawl(sites.url("history.test"))),
      framework: "maturity",
      mode: "full",
    });
    expect(Math.abs(app.totalScore - twin.totalScore)).toBeLessThanOrEqual(10);
    expect(app.totalScore).toBeGreaterThanOrEqual(40);
    const compliance = app.dimensions.find((dimension) => dimension.dimensionId === "compliance_certifications")!;
    expect(
      compliance.evidenceItems.some((item) => /SOC 2 Type II/.test(item.text) && item.url?.endsWith("/security")),
    ).toBe(true);
    expect(app.crossDimensionNotes).toContain("Read 11 pages, all rendered in headless Chromium");
    expect(app.strengths.filter((id) => app.gaps.includes(id))).toEqual([]);
  });

  it("follows client-side routes inside the app, but never a missing file the app links to (a logo, a PDF)", async () => {
    const site = appSite(matureApp, "static-host");
    // The brand kit links files the host does not have: each is a 404, not a route to render.
    const shell = String(site["/"]).replace(
      '<div id="root"></div>',
      '<div id="root"></div><a href="/img/logo.png">Logo</a> <a href="/download/whitepaper.pdf">Whitepaper</a>',
    );
    Object.assign((sites as unknown as { sites: Record<string, unknown> }).sites, {
      "files.test": { ...site, "/": shell, "/index.html": shell },
    });
    const crawl = await crawlers().crawl(sites.url("files.test"));
    expect(crawl.crawlStats.pagesRendered).toBe(11);
    const failed = new Map(crawl.crawlStats.failures.map((failure) => [new URL(failure.url).pathname, failure.reason]));
    expect(failed.get("/img/logo.png")).toMatch(/HTTP 404|not HTML/);
    expect(failed.get("/download/whitepaper.pdf")).toMatch(/HTTP 404|not HTML/);
    expect(crawl.crawledPages.some((url) => /\.(png|pdf)$/.test(url))).toBe(false);
  });

  it("never starts a browser for a site whose HTML carries its words", async () => {
    const own = createRenderer(config(), silent, { resolver: fixtureResolver() }) as BrowserRenderer;
    try {
      const crawler = createCrawler(config(), { resolver: fixtureResolver(), renderer: own });
      const twin = await crawler.crawl(sites.url("twin.test"));
      const mature = await crawler.crawl(sites.url("acme.test"));
      expect(twin.crawlStats.pagesRendered).toBe(0);
      expect(mature.crawlStats.pagesAnalyzed).toBeGreaterThan(10);
      expect(mature.crawlStats.pagesRendered).toBe(0);
      expect(own.launches).toBe(0);
    } finally {
      await own.close();
    }
  });

  it(
    "restarts a browser that grew past its memory ceiling once its crawl ends, and one that crashed at the next page",
    { timeout: 90_000 },
    async () => {
      // A ceiling every browser is over: the watchdog marks it, and it is restarted when no crawl uses it.
      const own = createRenderer(config(), silent, {
        resolver: fixtureResolver(),
        limits: { browserMemoryMb: 1 },
      }) as BrowserRenderer;
      try {
        const crawler = createCrawler(config(), { resolver: fixtureResolver(), renderer: own });
        const first = await crawler.crawl(sites.url("history.test"));
        expect(first.crawlStats.pagesRendered).toBeGreaterThan(0);
        await expect.poll(() => own.processes().length, { timeout: 10_000 }).toBe(0);
        expect(own.restarts).toEqual([PAST_MEMORY_CEILING]);
        const second = await crawler.crawl(sites.url("history.test"));
        expect(second.pages.length).toBe(first.pages.length);
        expect(own.launches).toBe(2);
        await expect.poll(() => own.restarts.length, { timeout: 10_000 }).toBe(2);

        // A browser killed from outside (the OOM killer, an operator) is noticed, and the next crawl starts another.
        const session = own.openSession("ProductMaturityBot/test");
        try {
          await session.render(sites.url("hash.test"));
          for (const process of own.processes()) globalThis.process.kill(process.pid, "SIGKILL");
          await expect.poll(() => own.restarts.at(-1), { timeout: 10_000 }).toBe(BROWSER_WENT_AWAY);
        } finally {
          await session.close().catch(() => undefined);
        }
        const third = await crawler.crawl(sites.url("hash.test"));
        expect(third.crawlStats.pagesRendered).toBeGreaterThan(0);
        expect(own.launches).toBe(4);
      } finally {
        await own.close();
      }
      // Closing waits for every browser being stopped, the one stopped for its ceiling a moment before included.
      expect(own.processes()).toEqual([]);
    },
  );

  it(
    "extracts the same facts from a page read as HTML and read in the browser (the existing fixtures)",
    { timeout: 120_000 },
    async () => {
      const pages = new Map<string, string>();
      for (const site of calibrationSites) {
        for (const [path, route] of Object.entries(site.pages)) {
          const body = typeof route === "string" ? route : route.body;
          if (typeof body === "string" && body.startsWith("<!doctype html>")) pages.set(`${site.host}${path}`, body);
        }
      }
      const fixtures = await new FixtureSites(
        Object.fromEntries(calibrationSites.map((site) => [site.host, site.pages])),
      ).start();
      // One session reads them all: its budget is raised past the crawl's 25 pages.
      const wide = createRenderer(config(), silent, {
        resolver: fixtureResolver(),
        limits: { crawlPages: 1_000, crawlSeconds: 1_000 },
      });
      const session = (wide as BrowserRenderer).openSession("ProductMaturityBot/test");
      try {
        const compare = async ([key, html]: [string, string]) => {
          const [host, path] = [key.slice(0, key.indexOf("/")), key.slice(key.indexOf("/"))];
          const url = fixtures.url(host, path);
          const asHtml = readPage({ url, status: 200, body: html, kind: "html", headers: {} }).page;
          const drawn = await session.render(url);
          const rendered = readPage({
            url: drawn.url,
            status: drawn.status,
            body: drawn.html,
            kind: "html",
            headers: {},
            rendered: true,
          }).page;
          expect({ ...facts(rendered), jsonLd: rendered.jsonLd, external: rendered.externalLinks }, key).toEqual({
            ...facts(asHtml),
            jsonLd: asHtml.jsonLd,
            external: asHtml.externalLinks,
          });
        };
        // Three at a time, as a crawl renders.
        const queue = [...pages];
        await Promise.all(
          [0, 1, 2].map(async () => {
            for (let next = queue.shift(); next; next = queue.shift()) await compare(next);
          }),
        );
        expect(pages.size).toBeGreaterThan(60);
      } finally {
        await session.close();
        await wide.close();
        await fixtures.stop();
      }
    },
  );
});

describe("a client-rendered site without a browser", () => {
  it("fails with CRAWL_FAILED, saying the site builds its pages in the browser and how to add one", async () => {
    const crawler = createCrawler(config(false), { resolver: fixtureResolver() });
    const error = await crawler.crawl(sites.url("history.test")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: "CRAWL_FAILED",
      message: expect.stringContaining(
        "builds its pages in the browser with JavaScript (its HTML is an empty shell), and this service has no browser",
      ),
      action: NO_BROWSER_ACTION,
    });
  });
});
