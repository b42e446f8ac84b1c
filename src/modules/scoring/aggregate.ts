import { dimensionById, dimensions, evidenceCostWeight } from "./framework/dimensions.js";
import type { Framework } from "./framework/frameworks.js";
import { roundHalfUp, stageBelow, stageFor } from "./framework/stages.js";
import {
  pillarIds,
  type Confidence,
  type DimensionId,
  type DimensionResult,
  type PillarId,
  type StageName,
} from "./scoring.types.js";

/** How much a dimension counts in the total, by confidence: one nobody could observe counts less (docs/api.md §1). */
export const confidenceWeight: Readonly<Record<Confidence, number>> = { high: 1, medium: 0.7, low: 0.25 };
/** Framework 2.0: a dimension that does not apply to what the site sells barely counts (a fifth of an unobserved one). */
export const notApplicableWeight = 0.05;

export interface Aggregate {
  readonly totalScore: number;
  readonly stageName: StageName;
  readonly pillarScores: Readonly<Record<PillarId, number>>;
  readonly strengths: readonly DimensionId[];
  readonly gaps: readonly DimensionId[];
  /** Gates that capped the stage, in words, for crossDimensionNotes. */
  readonly gateNotes: readonly string[];
  readonly lifecycleStageId?: string;
}

type Scored = Pick<DimensionResult, "dimensionId" | "score" | "confidence" | "applicable" | "evidenceCost">;

/**
 * A dimension's weight in its pillar: what its evidence costs to show (the dimension's own cost, or "costly" when
 * the evidence found says so: framework 2.8.0), times how sure the reading is (or the not-applicable weight).
 */
const weightOf = (result: Scored): number =>
  evidenceCostWeight[result.evidenceCost ?? dimensionById.get(result.dimensionId)!.evidenceCost] *
  (result.applicable === false ? notApplicableWeight : confidenceWeight[result.confidence]);

/**
 * Total, stage, pillar scores, strengths and gaps from the 27 dimension results.
 * Pure: the same results and framework always give the same aggregate.
 */
export function aggregate(results: readonly Scored[], framework: Framework): Aggregate {
  let total = 0;
  let weights = 0;
  const pillarSums = new Map<PillarId, { sum: number; weight: number }>();
  for (const result of results) {
    const pillar = dimensionById.get(result.dimensionId)!.pillar;
    const weight = framework.pillarWeights[pillar] * weightOf(result);
    total += weight * result.score;
    weights += weight;
    const entry = pillarSums.get(pillar) ?? { sum: 0, weight: 0 };
    entry.sum += weightOf(result) * result.score;
    entry.weight += weightOf(result);
    pillarSums.set(pillar, entry);
  }
  const totalScore = weights > 0 ? roundHalfUp(total / weights) : 0;
  const pillarScores = Object.fromEntries(
    pillarIds.map((pillar) => {
      const entry = pillarSums.get(pillar);
      return [pillar, entry && entry.weight > 0 ? roundHalfUp(entry.sum / entry.weight) : 0];
    }),
  ) as Record<PillarId, number>;

  let stageName = stageFor(totalScore);
  const gateNotes: string[] = [];
  for (const gate of framework.gates) {
    if (stageName !== gate.stage) continue;
    const low = pillarIds.filter((pillar) => pillarScores[pillar] < gate.minPillarScore);
    if (low.length === 0) continue;
    const capped = stageBelow(stageName);
    gateNotes.push(
      `Stage capped at ${capped}: ${gate.description}, and ${low.map((pillar) => `${pillar} scores ${pillarScores[pillar]}`).join(", ")}.`,
    );
    stageName = capped;
  }

  const lifecycleStageId = framework.lifecycle?.filter((band) => totalScore >= band.fromScore).at(-1)?.stageId;
  return {
    totalScore,
    stageName,
    pillarScores,
    ...strengthsAndGaps(results, framework),
    gateNotes,
    ...(lifecycleStageId ? { lifecycleStageId } : {}),
  };
}

/** A strength is a dimension the site shows at least at the median of real product sites (the curve's 50). */
export const STRENGTH_MIN_SCORE = 50;

/**
 * Strengths: the 3 highest dimensions with high or medium confidence that score at
 * least STRENGTH_MIN_SCORE, so a thin site may have fewer, or none; gaps: the 3
 * lowest of the others. No dimension is both. A dimension that does not apply is
 * neither. Ties go to the higher pillar weight, then the dimension id.
 */
export function strengthsAndGaps(
  results: readonly Scored[],
  framework: Framework,
): { strengths: DimensionId[]; gaps: DimensionId[] } {
  const pillarWeight = (id: DimensionId) => framework.pillarWeights[dimensionById.get(id)!.pillar];
  const applicable = results.filter((result) => result.applicable !== false);
  const byId = (a: Scored, b: Scored) => (a.dimensionId < b.dimensionId ? -1 : a.dimensionId > b.dimensionId ? 1 : 0);
  const strengths = applicable
    .filter((result) => result.confidence !== "low" && result.score >= STRENGTH_MIN_SCORE)
    .sort((a, b) => b.score - a.score || pillarWeight(b.dimensionId) - pillarWeight(a.dimensionId) || byId(a, b))
    .slice(0, 3)
    .map((result) => result.dimensionId);
  const gaps = applicable
    .filter((result) => !strengths.includes(result.dimensionId))
    .sort((a, b) => a.score - b.score || pillarWeight(b.dimensionId) - pillarWeight(a.dimensionId) || byId(a, b))
    .slice(0, 3)
    .map((result) => result.dimensionId);
  return { strengths, gaps };
}

/** Every dimension exactly once, in the framework's order. */
export function inDimensionOrder<T extends { dimensionId: DimensionId }>(results: readonly T[]): T[] {
  const order = new Map(dimensions.map((definition, index) => [definition.id, index]));
  return [...results].sort((a, b) => order.get(a.dimensionId)! - order.get(b.dimensionId)!);
}
