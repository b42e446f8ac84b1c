// The three 25-page crawls `npm run bench:score` scores (also inputs of the scoring
// equivalence check): generated marketing pages (~52k characters of text each, rubric
// words everywhere: the worst case), the same cut to 6k characters, and a realistic
// site (the calibration leader's pages padded with ordinary prose to ~6k characters).

import type { CrawlResult, ExtractedPage } from "../src/modules/crawl/crawl.types.js";
import { extractPage } from "../src/modules/crawl/extract.js";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";
import { productPage } from "./pages.js";

const PAGES = 25;
const PATHS = [
  "/",
  "/pricing",
  "/docs",
  "/docs/api",
  "/changelog",
  "/security",
  "/privacy",
  "/careers",
  "/customers",
  "/integrations",
  "/blog",
  "/about",
];
const FILLER = [
  "The team met on Tuesday to go through the plan for the next quarter.",
  "Most of the work happens in small groups that own a part of the product.",
  "We write things down, keep meetings short and prefer clear decisions.",
  "Customers tell us what they need, and we try to answer within a day.",
  "Our office is near the station, and many of us work from home on Fridays.",
];

export function crawlOf(pages: ExtractedPage[]): CrawlResult {
  return {
    url: "https://bench.example/",
    crawledAt: "2026-11-01T00:00:00.000Z",
    companyName: "Bench",
    pages,
    crawledPages: pages.map((page) => page.url),
    outboundLinks: [],
    crawlStats: {
      pagesAnalyzed: pages.length,
      contentLength: 0,
      failures: [],
      durationMs: 0,
      partial: false,
      pagesPlanned: pages.length,
      robotsTxt: "found",
      sitemapUrls: 0,
      securityTxt: true,
      skippedByRobots: 0,
    },
  };
}

export function scoreBenchCorpora(): Array<{ name: string; pages: ExtractedPage[] }> {
  const full = Array.from({ length: PAGES }, (_, i) =>
    extractPage({
      url: `https://bench.example${PATHS[i] ?? `/page-${i}`}`,
      status: 200,
      body: productPage(i),
      kind: "html",
      headers: {},
    }),
  );
  const leader = calibrationSites.find((site) => site.host === "leader.test")!;
  const realistic = Object.entries(leader.pages)
    .filter(
      ([, route]) =>
        typeof route === "string" ||
        (route.body !== undefined && !route.headers?.["content-type"]?.startsWith("text/plain")),
    )
    .slice(0, PAGES)
    .map(([path, route]) => {
      const html = typeof route === "string" ? route : String(route.body);
      const page = extractPage({
        url: `https://leader.example${path}`,
        status: 200,
        body: html,
        kind: "html",
        headers: {},
      });
      let text = page.text;
      for (let i = 0; text.length < 6_000; i += 1) text += `\n${FILLER[i % FILLER.length]}`;
      return { ...page, text };
    });
  return [
    { name: "25 × ~52k chars (worst case)", pages: full },
    {
      name: "25 × 6k chars of rubric words",
      pages: full.map((page) => ({ ...page, text: page.text.slice(0, 6_000) })),
    },
    { name: `${realistic.length} × ~6k chars, realistic`, pages: realistic },
  ];
}
