// Heuristic scoring cost for a 25-page crawl (issue 4 budget: under 50 ms of CPU),
// beside a floor measured in the same run: one full regex pass over the same
// pages' scored text. Two corpora: the generated marketing pages (~52k characters
// of text each, rubric words everywhere: a worst case) and the same pages cut to
// 6k characters (a typical product page's text).
//
//   npm run bench:score

import type { CrawlResult } from "../src/modules/crawl/crawl.types.js";
import { extractPage } from "../src/modules/crawl/extract.js";
import { HeuristicScorer } from "../src/modules/scoring/heuristic-scorer.js";
import { SCORED_TEXT_PER_PAGE } from "../src/modules/scoring/site-facts.js";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";
import { productPage } from "./pages.js";

const PAGES = 25;
const RUNS = 60;
const paths = ["/", "/pricing", "/docs", "/docs/api", "/changelog", "/security", "/privacy", "/careers", "/customers", "/integrations", "/blog", "/about"];
const fullPages = Array.from({ length: PAGES }, (_, i) =>
  extractPage({ url: `https://bench.example${paths[i] ?? `/page-${i}`}`, status: 200, body: productPage(i), kind: "html", headers: {} }),
);
const crawlOf = (pages: typeof fullPages): CrawlResult => ({
  url: "https://bench.example/",
  crawledAt: "2026-11-01T00:00:00.000Z",
  companyName: "Bench",
  pages,
  crawledPages: pages.map((page) => page.url),
  outboundLinks: [],
  crawlStats: { pagesAnalyzed: PAGES, contentLength: 0, failures: [], durationMs: 0, partial: false, pagesPlanned: PAGES, robotsTxt: "found", sitemapUrls: 0, securityTxt: true, skippedByRobots: 0 },
});

const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)]!;

function measure(work: () => unknown): number[] {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.cpuUsage();
    work();
    samples.push(cpuMs(start));
  }
  return samples.slice(5); // first runs warm the JIT
}

// A realistic site: the calibration leader's pages, each padded with ordinary prose to
// about 6k characters, so rubric words appear where a real site would put them.
const FILLER = [
  "The team met on Tuesday to go through the plan for the next quarter.",
  "Most of the work happens in small groups that own a part of the product.",
  "We write things down, keep meetings short and prefer clear decisions.",
  "Customers tell us what they need, and we try to answer within a day.",
  "Our office is near the station, and many of us work from home on Fridays.",
];
const leader = calibrationSites.find((site) => site.host === "leader.test")!;
const realisticPages = Object.entries(leader.pages)
  .filter(([, route]) => typeof route === "string" || (route.body !== undefined && !route.headers?.["content-type"]?.startsWith("text/plain")))
  .slice(0, PAGES)
  .map(([path, route]) => {
    const html = typeof route === "string" ? route : String(route.body);
    const page = extractPage({ url: `https://leader.example${path}`, status: 200, body: html, kind: "html", headers: {} });
    let text = page.text;
    for (let i = 0; text.length < 6_000; i += 1) text += `\n${FILLER[i % FILLER.length]}`;
    return { ...page, text };
  });

const scorer = new HeuristicScorer();
const NO_MATCH = /\bzq(?:xv|wk)\b/i; // never matches: the regex engine reads every character

console.log("corpus                          target                              CPU ms median     p95");
for (const [name, pages] of [
  ["25 × ~52k chars (worst case)", fullPages],
  ["25 × 6k chars of rubric words", fullPages.map((page) => ({ ...page, text: page.text.slice(0, 6_000) }))],
  [`${realisticPages.length} × ~6k chars, realistic`, realisticPages],
] as const) {
  const crawl = crawlOf(pages);
  const floor = measure(() => pages.filter((page) => NO_MATCH.test(page.text.slice(0, SCORED_TEXT_PER_PAGE))).length);
  const scoring = measure(() => scorer.scoreSync({ crawl, framework: "maturity", mode: "full" }));
  console.log(`${name.padEnd(31)} one regex pass over the text (floor) ${median(floor).toFixed(3).padStart(10)} ${p95(floor).toFixed(3).padStart(7)}`);
  console.log(`${"".padEnd(31)} heuristic scorer, 27 dimensions     ${median(scoring).toFixed(3).padStart(10)} ${p95(scoring).toFixed(3).padStart(7)}   budget < 50 ms: ${median(scoring) < 50 ? "MET" : "MISSED"}`);
}
