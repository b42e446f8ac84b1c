import DataLoader from "dataloader";
import { percentilesOf, type PercentileAnswer, type RankedResult } from "./percentiles.js";
import type { Histogram, ScorePopulationRepository } from "./score-population.repository.js";

const versionKey = (framework: string, frameworkVersion: string) => `${framework}\u0000${frameworkVersion}`;

/**
 * Benchmarks results against the population of their framework version
 * (docs/api.md §13). A read is one indexed lookup of the version's histogram rows
 * (28 rows, 101 buckets each); a list of results asks once per version.
 */
export class PercentilesService {
  constructor(private readonly population: ScorePopulationRepository) {}

  /** One result's percentiles. */
  async of(result: RankedResult): Promise<PercentileAnswer> {
    const histograms = await this.population.histograms([result]);
    return percentilesOf(result, histograms);
  }

  /** Per-request loader: the results of a request cost one statement for all their versions. */
  loader(): DataLoader<RankedResult, PercentileAnswer, string> {
    return new DataLoader(
      async (results) => {
        const versions = new Map<string, { framework: string; frameworkVersion: string }>();
        for (const result of results)
          versions.set(versionKey(result.framework, result.frameworkVersion), {
            framework: result.framework,
            frameworkVersion: result.frameworkVersion,
          });
        const rows = await this.population.histograms([...versions.values()]);
        const byVersion = new Map<string, Histogram[]>();
        for (const row of rows) {
          const key = versionKey(row.framework, row.frameworkVersion);
          byVersion.set(key, [...(byVersion.get(key) ?? []), row]);
        }
        return results.map((result) =>
          percentilesOf(result, byVersion.get(versionKey(result.framework, result.frameworkVersion)) ?? []),
        );
      },
      // A result asked twice in a request is one answer; different results share their version's statement.
      { cacheKeyFn: (result) => result.id },
    );
  }
}
