import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CrawlResult } from "../../../src/modules/crawl/crawl.types.js";
import { createCrawler } from "../../../src/modules/crawl/crawler.factory.js";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import type { ScoreResult } from "../../../src/modules/scoring/scoring.types.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { FixtureSites, fixtureResolver } from "../../support/fixture-sites.js";

/**
 * The calibration set crawled and scored for real: the heuristic scorer must
 * rank a bare landing page below a mature enterprise SaaS, with the sites in
 * between in order, each inside the band a careful analyst would expect.
 */
const sites = new FixtureSites(Object.fromEntries(calibrationSites.map((site) => [site.host, site.pages])));
const crawls = new Map<string, CrawlResult>();
const scores = new Map<string, ScoreResult>();
const scorer = new HeuristicScorer();

beforeAll(async () => {
  await sites.start();
  // The fixtures' bodies say "ORIGIN" nowhere; links are relative, so only hosts matter.
  const crawler = createCrawler(
    { version: "test", crawl: { maxPages: 25, ssrfAllowlist: ["127.0.0.1/32", "*.test"] } },
    { resolver: fixtureResolver(), budgetMs: 30_000 },
  );
  for (const site of calibrationSites) {
    const crawl = await crawler.crawl(sites.url(site.host));
    crawls.set(site.host, crawl);
    scores.set(site.host, await scorer.score({ crawl, framework: "maturity", mode: "full" }));
  }
}, 120_000);
afterAll(() => sites.stop());

describe("calibration", () => {
  it("places every site inside its expected band", () => {
    const report = calibrationSites.map((site) => ({
      host: site.host,
      band: site.band,
      total: scores.get(site.host)!.totalScore,
    }));
    console.log(
      report
        .map((row) => `${row.host.padEnd(14)} ${String(row.total).padStart(3)}  expected ${row.band[0]}–${row.band[1]}`)
        .join("\n"),
    );
    for (const row of report) {
      expect({
        host: row.host,
        inBand: row.total >= row.band[0] && row.total <= row.band[1],
        total: row.total,
      }).toEqual({
        host: row.host,
        inBand: true,
        total: row.total,
      });
    }
  });

  it("ranks the sites in order of maturity, spread over at least 50 points", () => {
    const totals = calibrationSites.map((site) => scores.get(site.host)!.totalScore);
    // Sites an analyst puts in the same band (scale-up, AI-native) are not ordered between themselves;
    // every site scores strictly above every site of a lower band.
    for (let i = 0; i < totals.length; i += 1) {
      for (let j = 0; j < i; j += 1) {
        if (calibrationSites[i]!.band.join() === calibrationSites[j]!.band.join()) continue;
        expect({
          site: calibrationSites[i]!.host,
          above: calibrationSites[j]!.host,
          ok: totals[i]! > totals[j]!,
        }).toEqual({ site: calibrationSites[i]!.host, above: calibrationSites[j]!.host, ok: true });
      }
    }
    expect(Math.max(...totals) - Math.min(...totals)).toBeGreaterThanOrEqual(50);
  });

  it("scores the same crawl to the same result, to the character", async () => {
    const crawl = crawls.get("leader.test")!;
    const again = await new HeuristicScorer().score({ crawl, framework: "maturity", mode: "full" });
    expect(JSON.stringify(again)).toBe(JSON.stringify(scores.get("leader.test")));
  });

  it("keeps the bare page at Foundation nearly everywhere, confident in nothing it shows, and names its anti-patterns", () => {
    const bare = scores.get("bare.test")!;
    expect(bare.stageName).toBe("Foundation");
    expect(bare.dimensions.filter((dimension) => dimension.score <= 10).length).toBeGreaterThanOrEqual(20);
    expect(bare.dimensions.filter((dimension) => dimension.confidence === "high")).toEqual([]);
    expect(bare.antiPatternsDetected.join(" ")).toMatch(/placeholder|lorem/i);
    expect(bare.strengths.length).toBeLessThanOrEqual(3);
  });

  it("shows the leader's evidence with page URLs and high confidence where it is rich", () => {
    const leader = scores.get("leader.test")!;
    const pricing = leader.dimensions.find((dimension) => dimension.dimensionId === "pricing_packaging")!;
    expect(pricing.confidence).toBe("high");
    expect(pricing.evidence).toMatch(/\/pricing/);
    expect(leader.dimensions).toHaveLength(27);
    expect(leader.crawlStats.pagesAnalyzed).toBeGreaterThan(15);
  });
});
