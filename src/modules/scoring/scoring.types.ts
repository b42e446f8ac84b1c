import type { CrawlResult, CrawlStats } from "../crawl/crawl.types.js";

/** docs/api.md §1–§3: the scale, the ladder, the 27 dimensions in 6 pillars. */

// The pillars are a leaf (src/scale), shared with the installable client.
import type { PillarId } from "../../scale/pillars.js";
export { pillarIds, type PillarId } from "../../scale/pillars.js";

/** What a dimension's public evidence costs a company to show truthfully (framework/dimensions.ts): its weight class. */
export type EvidenceCost = "costly" | "moderate" | "cheap";

export const dimensionIds = [
  "market_intelligence",
  "value_proposition",
  "target_segments",
  "customer_proof",
  "pricing_packaging",
  "experience_design",
  "onboarding_activation",
  "ai_capability_depth",
  "integration_ecosystem",
  "developer_platform",
  "delivery_velocity",
  "architecture_systems",
  "reliability_operations",
  "documentation_quality",
  "data_strategy_flywheel",
  "cost_token_economics",
  "model_strategy",
  "ai_governance",
  "security_posture",
  "compliance_certifications",
  "data_privacy",
  "enterprise_readiness",
  "growth_distribution",
  "community_ecosystem",
  "customer_success",
  "talent_organization",
  "company_momentum",
] as const;
export type DimensionId = (typeof dimensionIds)[number];

export const stageNames = ["Foundation", "Developing", "Scaling", "Compounding", "Leading"] as const;
export type StageName = (typeof stageNames)[number];

export type Confidence = "high" | "medium" | "low";
export type FrameworkId = "maturity" | "product";
export type ScoreMode = "full" | "quick";

/** A fact the score rests on: a page and what it says, or the caller's own words. */
export interface Evidence {
  /** Page it was seen on; absent for self-reported context and for absences. */
  readonly url?: string;
  /** The quoted sentence or the observed fact ("pricing page lists 4 tiers"). */
  readonly text: string;
  /** From the caller's `context`, not from the site. */
  readonly selfReported?: boolean;
  /** A verbatim quote of the page at `url` (cut with "…"), not a fact observed about it. */
  readonly quoted?: true;
}

/**
 * What a dimension's rule concludes from the site, before the scorer turns it
 * into a score: the rule's raw 0–100 reading and how much it could see.
 */
export interface DimensionAssessment {
  /** 0–100 from the observed signals alone (the scorer blends it with the prior by coverage). */
  readonly raw: number;
  /** 0–1: how much of what evidences this dimension the site showed (0 = nothing observable). */
  readonly coverage: number;
  /** Best first. */
  readonly evidence: readonly Evidence[];
  /** Signals that raised the score, in words ("changelog: 14 entries in the last 90 days"). */
  readonly raised: readonly string[];
  /** Signals that lowered it, or that were looked for and not found. */
  readonly lowered: readonly string[];
  /** What would raise it most. */
  readonly toRaise: string;
  /** Readings set aside because the dimension does not apply (AI practice on a site that sells no AI). */
  readonly strayReadings?: readonly string[];
  /**
   * A fact counting against the dimension was observed (a stale copyright, a stale changelog): only then may the
   * score fall below the prior, since showing a little is never worse than showing nothing.
   */
  readonly counterEvidence?: boolean;
  /**
   * The evidence found costs more or less to show than what this dimension usually rests on, so the dimension
   * weighs in the total as that class, and `why` (a sentence) joins its reasoning. Framework 2.8.0: an audited
   * certification or a regulator's licence, where most compliance readings are a "GDPR compliant" line (costly).
   * Framework 2.9.0: a delivery reading resting on under a year of dated entries (moderate).
   */
  readonly weighsAs?: { readonly cost: EvidenceCost; readonly why: string };
}

export interface DimensionResult {
  readonly dimensionId: DimensionId;
  readonly dimensionName: string;
  readonly pillar: PillarId;
  readonly score: number;
  readonly stageName: StageName;
  /** The evidence as one readable string (the contract's field), best first. */
  readonly evidence: string;
  readonly evidenceItems: readonly Evidence[];
  readonly confidence: Confidence;
  readonly reasoning: string;
  /**
   * False when the site shows nothing for the dimension and it does not apply to
   * what the site sells (framework 2.0): it then weighs little in the total and is
   * never a strength or gap. Absent means it applies. Not stored: the total,
   * strengths and gaps computed from it are.
   */
  readonly applicable?: false;
  /**
   * What the evidence found costs to show, when it differs from the dimension's usual (framework 2.8.0: an audited
   * certification is costly; 2.9.0: under a year of dated releases is moderate). The dimension then weighs in the
   * total as that class. Absent: the dimension's own evidence cost. Not stored: the total computed from it is.
   */
  readonly evidenceCost?: EvidenceCost;
}

export interface ScoringUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Estimated provider cost in USD millionths (integer). */
  readonly costMicroUsd: number;
}

export interface ScorerInfo {
  readonly engine: "heuristic" | "llm";
  readonly model?: string;
  readonly usage?: ScoringUsage;
  /**
   * Stored with the result (the repository adds it): the dimensions that did not
   * apply (`applicable: false`), since the dimension rows do not carry it. Absent
   * on results stored before it was kept, and when every dimension applied.
   */
  readonly notApplicable?: readonly DimensionId[];
}

export interface ScoreResult {
  readonly url: string;
  readonly companyName: string;
  readonly framework: FrameworkId;
  readonly frameworkVersion: string;
  readonly mode: ScoreMode;
  readonly totalScore: number;
  readonly stageName: StageName;
  readonly dimensions: readonly DimensionResult[];
  readonly strengths: readonly DimensionId[];
  readonly gaps: readonly DimensionId[];
  readonly crossDimensionNotes: string;
  readonly antiPatternsDetected: readonly string[];
  readonly crawledPages: readonly string[];
  readonly crawlStats: CrawlStats;
  /** product framework only: where the product sits on the lifecycle (docs/api.md §8). */
  readonly lifecycleStageId?: string;
  readonly scorer: ScorerInfo;
}

export interface ScoreInput {
  readonly crawl: CrawlResult;
  /** The caller's free text: self-reported evidence, never outweighing the site. */
  readonly context?: string;
  readonly framework: FrameworkId;
  readonly mode: ScoreMode;
  /** Called as each dimension is scored (k of 27), for the progress stream. */
  readonly onDimension?: (k: number, of: number, dimensionId: DimensionId) => void;
}

/** A scorer turns a crawl (and optional context) into a score; heuristic and LLM implementations exist. */
export interface Scorer {
  score(input: ScoreInput): Promise<ScoreResult>;
}
