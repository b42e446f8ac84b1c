import { pillarAverage, pillarIds, type PillarDimension, type PillarId } from "../scale/pillars.js";

export { pillarIds, pillarNames, type PillarId } from "../scale/pillars.js";

/**
 * Each pillar's score in a result, as its share page shows it: the rounded mean
 * of the pillar's dimensions that apply (`applicable`), null for a pillar the
 * result has no applicable dimension of. The share page calls the same function.
 */
export function pillarScores(result: {
  readonly dimensions: readonly PillarDimension[];
}): Record<PillarId, number | null> {
  return Object.fromEntries(pillarIds.map((pillar) => [pillar, pillarAverage(result.dimensions, pillar)])) as Record<
    PillarId,
    number | null
  >;
}
