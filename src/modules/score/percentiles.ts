import type { Histogram } from "./score-population.repository.js";

/** Percentiles are answered once this many distinct sites are in a framework version's population (docs/api.md §13). */
export const MIN_POPULATION = 30;

/** Where a value stands in a population. */
export interface Rank {
  /** 100 × (sites strictly below + half of the sites equal) / sites: the mid-rank percentile, 0–100. */
  readonly percentile: number;
  /** 100 × (sites at or above) / sites: "top X %" (the best site alone is in the top 1/N). */
  readonly topPercent: number;
}

export interface DimensionRank extends Rank {
  readonly dimensionId: string;
}

/** A result's percentiles, or why there are none. */
export interface PercentileAnswer {
  readonly available: boolean;
  /** Why not, when not available. */
  readonly reason: string | null;
  /** Distinct sites in the result's population (its framework and version). */
  readonly population: number;
  readonly total: Rank | null;
  /** In the result's order of dimensions; empty when not available. */
  readonly dimensions: readonly DimensionRank[];
  /** Changes whenever the population does (a page drawn from it revalidates by it). */
  readonly revision: number;
}

/** The result's side of the comparison. */
export interface RankedResult {
  readonly id: string;
  readonly framework: string;
  readonly frameworkVersion: string;
  readonly mode: string;
  readonly totalScore: number;
  readonly dimensions: ReadonlyArray<{ readonly dimensionId: string; readonly score: number }>;
}

const oneDecimal = (value: number): number => Math.round(value * 10) / 10;

/** The rank of `value` in a histogram of `counts` (counts[score]). */
export function rankIn(counts: readonly number[], value: number): Rank {
  const score = Math.min(counts.length - 1, Math.max(0, Math.round(value)));
  let below = 0;
  let sites = 0;
  for (let bucket = 0; bucket < counts.length; bucket += 1) {
    const count = counts[bucket] ?? 0;
    if (bucket < score) below += count;
    sites += count;
  }
  if (sites === 0) return { percentile: 0, topPercent: 100 };
  const equal = counts[score] ?? 0;
  return {
    percentile: oneDecimal((100 * (below + equal / 2)) / sites),
    topPercent: oneDecimal((100 * (sites - below)) / sites),
  };
}

/** The percentiles of a result against its version's histograms (all of them, by metric). */
export function percentilesOf(result: RankedResult, histograms: readonly Histogram[]): PercentileAnswer {
  const byMetric = new Map(histograms.map((histogram) => [histogram.metric, histogram]));
  const total = byMetric.get("total");
  const population = total?.sites ?? 0;
  const revision = total?.revision ?? 0;
  const unavailable = (reason: string): PercentileAnswer => ({
    available: false,
    reason,
    population,
    total: null,
    dimensions: [],
    revision,
  });
  if (result.mode !== "full")
    return unavailable(
      "Quick scores are not benchmarked: they read at most 5 pages, so they are not comparable with the full scores the population holds.",
    );
  if (!total || population < MIN_POPULATION)
    return unavailable(
      `Percentiles need ${MIN_POPULATION} distinct sites scored with the ${result.framework} framework ${result.frameworkVersion}; ${population} so far.`,
    );
  const dimensions: DimensionRank[] = [];
  for (const dimension of result.dimensions) {
    const histogram = byMetric.get(dimension.dimensionId);
    if (histogram && histogram.sites > 0)
      dimensions.push({ dimensionId: dimension.dimensionId, ...rankIn(histogram.counts, dimension.score) });
  }
  return {
    available: true,
    reason: null,
    population,
    total: rankIn(total.counts, result.totalScore),
    dimensions,
    revision,
  };
}
