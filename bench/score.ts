// Heuristic scoring cost for a 25-page crawl (issue 4 budget: under 50 ms of CPU),
// beside a floor measured in the same run: one regex pass over the same pages' text.
//
//   npm run bench:score

import type { CrawlResult } from "../src/modules/crawl/crawl.types.js";
import { extractPage } from "../src/modules/crawl/extract.js";
import { HeuristicScorer } from "../src/modules/scoring/heuristic-scorer.js";
import { productPage } from "./pages.js";

const PAGES = 25;
const RUNS = 60;
const paths = ["/", "/pricing", "/docs", "/docs/api", "/changelog", "/security", "/privacy", "/careers", "/customers", "/integrations", "/blog", "/about"];
const pages = Array.from({ length: PAGES }, (_, i) =>
  extractPage({ url: `https://bench.example${paths[i] ?? `/page-${i}`}`, status: 200, body: productPage(i), kind: "html", headers: {} }),
);
const crawl: CrawlResult = {
  url: "https://bench.example/",
  crawledAt: "2026-11-01T00:00:00.000Z",
  companyName: "Bench",
  pages,
  crawledPages: pages.map((page) => page.url),
  outboundLinks: [],
  crawlStats: { pagesAnalyzed: PAGES, contentLength: 0, failures: [], durationMs: 0, partial: false, pagesPlanned: PAGES, robotsTxt: "found", sitemapUrls: 0, securityTxt: true, skippedByRobots: 0 },
};

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

const scorer = new HeuristicScorer();
const floor = measure(() => pages.reduce((count, page) => count + (/\b(pricing|security|api)\b/i.test(page.text) ? 1 : 0), 0));
const scoring = measure(() => scorer.scoreSync({ crawl, framework: "maturity", mode: "full" }));
const chars = pages.reduce((sum, page) => sum + page.text.length, 0);

console.log(`\n${PAGES} pages, ${(chars / 1000).toFixed(0)}k characters of text, ${RUNS - 5} runs each`);
console.log("target                              CPU ms median     p95");
console.log(`one regex over all text (floor)     ${median(floor).toFixed(3).padStart(14)} ${p95(floor).toFixed(3).padStart(7)}`);
console.log(`heuristic scorer, 27 dimensions     ${median(scoring).toFixed(3).padStart(14)} ${p95(scoring).toFixed(3).padStart(7)}`);
console.log(`\nbudget: < 50 ms → ${median(scoring).toFixed(1)} ms ${median(scoring) < 50 ? "MET" : "MISSED"}`);
