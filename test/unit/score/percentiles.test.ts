import { describe, expect, it } from "vitest";
import { percentilesSection } from "../../../src/http/share-sections/percentiles.js";
import { MIN_POPULATION, percentilesOf, rankIn, type RankedResult } from "../../../src/modules/score/percentiles.js";
import type { Histogram } from "../../../src/modules/score/score-population.repository.js";
import { scoreResultFixture } from "../../fixtures/score-result.js";

const histogram = (metric: string, scores: readonly number[], revision = 3): Histogram => {
  const counts = Array.from({ length: 101 }, () => 0);
  for (const score of scores) counts[score]! += 1;
  return { metric, counts, sites: scores.length, revision };
};

const result = (overrides: Partial<RankedResult> = {}): RankedResult => ({
  id: "r1",
  framework: "maturity",
  frameworkVersion: "2.2.0",
  mode: "full",
  totalScore: 50,
  dimensions: [
    { dimensionId: "b_dim", score: 10 },
    { dimensionId: "a_dim", score: 90 },
  ],
  ...overrides,
});

describe("rankIn: the mid-rank percentile and the top share", () => {
  it("counts the sites strictly below, half of those equal, and the share at or above", () => {
    const counts = histogram("total", [10, 20, 20, 30]).counts;
    expect(rankIn(counts, 20)).toEqual({ percentile: 50, topPercent: 75 });
    expect(rankIn(counts, 30)).toEqual({ percentile: 87.5, topPercent: 25 });
    expect(rankIn(counts, 10)).toEqual({ percentile: 12.5, topPercent: 100 });
    // A value no site has: everything below it, nothing equal.
    expect(rankIn(counts, 25)).toEqual({ percentile: 75, topPercent: 25 });
    expect(rankIn(counts, 100)).toEqual({ percentile: 100, topPercent: 0 });
  });

  it("puts everyone at 50 in a population of equal scores, and rounds to one decimal", () => {
    expect(rankIn(histogram("total", [40, 40, 40]).counts, 40)).toEqual({ percentile: 50, topPercent: 100 });
    expect(rankIn(histogram("total", [1, 2, 3]).counts, 2)).toEqual({ percentile: 50, topPercent: 66.7 });
  });
});

describe("percentilesOf", () => {
  const crowd = Array.from({ length: MIN_POPULATION }, (_, i) => i * 3);
  const full = [histogram("total", crowd), histogram("a_dim", crowd), histogram("b_dim", crowd)];

  it("answers the total and each dimension, in the result's order, once 30 sites exist", () => {
    const answer = percentilesOf(result(), full);
    expect(answer).toMatchObject({ available: true, reason: null, population: MIN_POPULATION, revision: 3 });
    expect(answer.total).toEqual(rankIn(full[0]!.counts, 50));
    expect(answer.dimensions.map((dimension) => dimension.dimensionId)).toEqual(["b_dim", "a_dim"]);
  });

  it("says how many sites exist below 30, and that quick scores are not benchmarked", () => {
    const few = [histogram("total", crowd.slice(1))];
    expect(percentilesOf(result(), few)).toEqual({
      available: false,
      reason: `Percentiles need ${MIN_POPULATION} distinct sites scored with the maturity framework 2.2.0; ${MIN_POPULATION - 1} so far.`,
      population: MIN_POPULATION - 1,
      total: null,
      dimensions: [],
      revision: 3,
    });
    expect(percentilesOf(result(), []).reason).toContain("; 0 so far.");
    expect(percentilesOf(result({ mode: "quick" }), full)).toMatchObject({
      available: false,
      population: MIN_POPULATION,
      reason: expect.stringMatching(/^Quick scores are not benchmarked/),
    });
  });
});

describe("the share page's section", () => {
  const dims = scoreResultFixture().dimensions;

  it("names the best three and the weakest three, top and bottom shares, and escapes names", () => {
    const ranks = dims.map((dim, i) => ({
      dimensionId: dim.dimensionId,
      percentile: i * 3.5,
      topPercent: 100 - i * 3.5,
    }));
    const html = percentilesSection(
      {
        available: true,
        reason: null,
        population: 1234,
        total: { percentile: 90, topPercent: 12.5 },
        dimensions: ranks,
        revision: 1,
      },
      dims.map((dim, i) => (i === 26 ? { ...dim, dimensionName: "<b>Momentum</b>" } : dim)),
    );
    expect(html).toContain("<h2>Among 1,234 scored sites</h2>");
    expect(html).toContain("Total: <b>top 12.5%</b>");
    expect(html).toContain("&lt;b&gt;Momentum&lt;/b&gt;");
    expect(html.match(/<li>/g)).toHaveLength(6);
    // The lowest rank of all: 0 below, itself equal → percentile 0, at-or-below share 0.
    expect(html).toContain(`<li><span>${dims[0]!.dimensionName}</span><b>bottom 0%</b></li>`);
  });

  it("shows the reason when there are no percentiles", () => {
    const html = percentilesSection(
      {
        available: false,
        reason: "Percentiles need 30 <sites>.",
        population: 1,
        total: null,
        dimensions: [],
        revision: 0,
      },
      dims,
    );
    expect(html).toContain("Among 1 scored site</h2>");
    expect(html).toContain("Percentiles need 30 &lt;sites&gt;.");
  });
});
