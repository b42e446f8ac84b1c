import { Field, Float, Int, ObjectType } from "type-graphql";

@ObjectType("PercentileRank", { description: "Where a score stands among the population's sites." })
export class PercentileRankType {
  @Field(() => Float, {
    description:
      "0–100, one decimal: the share of the population's sites scoring strictly lower, plus half of those scoring the same (the mid-rank percentile).",
  })
  percentile: number;

  @Field(() => Float, {
    description:
      'The share of the population\'s sites scoring the same or higher, one decimal: "top 15%" reads topPercent 15. The best site alone is in the top 100/population %.',
  })
  topPercent: number;
}

@ObjectType("DimensionPercentile", { description: "A dimension's score against the population's scores of it." })
export class DimensionPercentileType extends PercentileRankType {
  @Field(() => String, { description: "The dimension, for example documentation_quality." })
  dimensionId: string;
}

@ObjectType("Percentiles", {
  description:
    "A result against the population of its framework version: the latest full result of each distinct site (origin and path), aggregates only. Available once 30 sites are counted, and never for quick scores; otherwise `reason` says why. Computed when read: it moves as sites are scored.",
})
export class PercentilesType {
  @Field(() => Boolean, { description: "True when total and dimensions are answered." })
  available: boolean;

  @Field(() => String, {
    nullable: true,
    description: "Why not available (a quick score, or how many sites exist of the 30 needed); null when available.",
  })
  reason: string | null;

  @Field(() => Int, { description: "Distinct sites in the population of the result's framework and version." })
  population: number;

  @Field(() => PercentileRankType, { nullable: true, description: "The total score's rank; null when not available." })
  total: PercentileRankType | null;

  @Field(() => [DimensionPercentileType], {
    description: "Each dimension's rank, in the result's order; empty when not available.",
  })
  dimensions: DimensionPercentileType[];
}
