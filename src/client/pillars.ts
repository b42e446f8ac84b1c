import { pillarAverage, pillarIds, type PillarId } from "../scale/pillars.js";

export { pillarIds, pillarNames, type PillarId } from "../scale/pillars.js";

/**
 * Each pillar's score in a result, as its share page shows it: the rounded mean
 * of the pillar's dimensions (null for a pillar the result has no dimension of).
 */
export function pillarScores(result: {
  readonly dimensions: readonly { readonly pillar: string; readonly score: number }[];
}): Record<PillarId, number | null> {
  return Object.fromEntries(pillarIds.map((pillar) => [pillar, pillarAverage(result.dimensions, pillar)])) as Record<
    PillarId,
    number | null
  >;
}
