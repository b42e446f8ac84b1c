import type { CrawlStats } from "../crawl/crawl.types.js";
import type {
  Confidence,
  DimensionId,
  Evidence,
  FrameworkId,
  PillarId,
  ScoreMode,
  ScorerInfo,
} from "../scoring/scoring.types.js";
import type { ScoreDimensionRecord, ScoreResultRecord } from "./score-result.entity.js";

export interface DimensionView {
  readonly dimensionId: DimensionId;
  readonly dimensionName: string;
  readonly pillar: PillarId;
  readonly score: number;
  readonly stageName: string;
  readonly evidence: string;
  readonly evidenceItems: readonly Evidence[];
  readonly confidence: Confidence;
  readonly reasoning: string;
  /** False when the dimension does not apply to what the site sells (known only with the result's details). */
  readonly applicable?: false;
}

/** What only the product view (and the share page) shows: read separately, when asked for. */
export const detailFields = [
  "crawledPages",
  "crossDimensionNotes",
  "antiPatternsDetected",
  "crawlStats",
  "scorer",
] as const;
export type ResultDetails = Pick<ScoreResultView, (typeof detailFields)[number]>;
/** A result without its details: what a share link's JSON needs, read in two narrow queries. */
export type ResultCore = Omit<ScoreResultView, (typeof detailFields)[number]>;

/** A stored result as both front doors and the share page show it. */
export interface ScoreResultView {
  readonly id: string;
  readonly url: string;
  readonly companyName: string;
  readonly totalScore: number;
  readonly stageName: string;
  readonly framework: FrameworkId;
  readonly frameworkVersion: string;
  readonly mode: ScoreMode;
  /** In the framework's order: pillar by pillar. */
  readonly dimensions: readonly DimensionView[];
  readonly strengths: readonly DimensionId[];
  readonly gaps: readonly DimensionId[];
  readonly createdAt: Date;
  readonly crawledPages: readonly string[];
  readonly crossDimensionNotes: string;
  readonly antiPatternsDetected: readonly string[];
  readonly crawlStats: CrawlStats;
  readonly productId: string | null;
  readonly lifecycleStageId: string | null;
  readonly scorer: ScorerInfo;
  /** An anonymous result not yet linked to an account. */
  readonly held: boolean;
  /** A held result: when it is purged unless claimed; null once it belongs to an account. */
  readonly expiresAt: Date | null;
}

/** The columns of a result that its core view reads. */
export type CoreRecord = Pick<
  ScoreResultRecord,
  | "id"
  | "accountId"
  | "productId"
  | "url"
  | "companyName"
  | "totalScore"
  | "stageName"
  | "framework"
  | "frameworkVersion"
  | "mode"
  | "strengths"
  | "gaps"
  | "lifecycleStageId"
  | "createdAt"
  | "claimExpiresAt"
>;

export function coreView(record: CoreRecord, dimensions: readonly ScoreDimensionRecord[]): ResultCore {
  return {
    id: record.id,
    url: record.url,
    companyName: record.companyName,
    totalScore: record.totalScore,
    stageName: record.stageName,
    framework: record.framework as FrameworkId,
    frameworkVersion: record.frameworkVersion,
    mode: record.mode as ScoreMode,
    dimensions: [...dimensions]
      .sort((a, b) => a.position - b.position)
      .map((dimension) => ({
        dimensionId: dimension.dimensionId as DimensionId,
        dimensionName: dimension.dimensionName,
        pillar: dimension.pillar as PillarId,
        score: dimension.score,
        stageName: dimension.stageName,
        evidence: dimension.evidence,
        evidenceItems: dimension.evidenceItems,
        confidence: dimension.confidence,
        reasoning: dimension.reasoning,
      })),
    strengths: record.strengths as DimensionId[],
    gaps: record.gaps as DimensionId[],
    createdAt: record.createdAt,
    productId: record.productId,
    lifecycleStageId: record.lifecycleStageId,
    held: record.accountId === null,
    expiresAt: record.accountId === null ? record.claimExpiresAt : null,
  };
}

export function resultView(record: ScoreResultRecord, dimensions: readonly ScoreDimensionRecord[]): ScoreResultView {
  return withDetails(coreView(record, dimensions), detailsOf(record));
}

/** A core view with its details; the dimensions that did not apply (kept in the scorer's record) are marked. */
export function withDetails(core: ResultCore, details: ResultDetails): ScoreResultView {
  const notApplicable = new Set<string>(details.scorer.notApplicable ?? []);
  const dimensions =
    notApplicable.size === 0
      ? core.dimensions
      : core.dimensions.map((dimension) =>
          notApplicable.has(dimension.dimensionId) ? { ...dimension, applicable: false as const } : dimension,
        );
  return { ...core, ...details, dimensions };
}

export function detailsOf(
  record: Pick<ScoreResultRecord, "crawledPages" | "crossDimensionNotes" | "antiPatterns" | "crawlStats" | "scorer">,
): ResultDetails {
  return {
    crawledPages: record.crawledPages,
    crossDimensionNotes: record.crossDimensionNotes,
    antiPatternsDetected: record.antiPatterns,
    crawlStats: record.crawlStats,
    scorer: record.scorer,
  };
}
