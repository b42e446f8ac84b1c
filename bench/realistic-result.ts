import type { CrawlResult } from "../src/modules/crawl/crawl.types.js";
import { extractPage } from "../src/modules/crawl/extract.js";
import { HeuristicScorer } from "../src/modules/scoring/heuristic-scorer.js";
import type { ScoreResult } from "../src/modules/scoring/scoring.types.js";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";

/**
 * The heuristic scorer's answer for a calibration site's pages (up to 25): a
 * realistic stored result for the benchmarks that read results.
 */
export function scored(host: string): ScoreResult {
  const site = calibrationSites.find((candidate) => candidate.host === host)!;
  const origin = "https://stackform.example";
  const pages = Object.entries(site.pages)
    .filter(
      ([, route]) =>
        typeof route === "string" ||
        (route.body !== undefined && !route.headers?.["content-type"]?.startsWith("text/plain")),
    )
    .slice(0, 25)
    .map(([path, route]) =>
      extractPage({
        url: `${origin}${path}`,
        status: 200,
        body: typeof route === "string" ? route : String(route.body),
        kind: "html",
        headers: {},
      }),
    );
  const crawl: CrawlResult = {
    url: `${origin}/`,
    crawledAt: new Date().toISOString(),
    companyName: "Stackform",
    pages,
    crawledPages: pages.map((page) => page.url),
    outboundLinks: [],
    crawlStats: {
      pagesAnalyzed: pages.length,
      contentLength: pages.reduce((n, page) => n + page.text.length, 0),
      failures: [],
      durationMs: 1_840,
      partial: false,
      pagesPlanned: pages.length,
      robotsTxt: "found",
      sitemapUrls: 0,
      securityTxt: true,
      skippedByRobots: 0,
    },
  };
  return new HeuristicScorer().scoreSync({ crawl, framework: "maturity", mode: "full" });
}
