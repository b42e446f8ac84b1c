import type { FrameworkId, PillarId, StageName } from "../scoring.types.js";

/**
 * The two frameworks as data. Changing a weight, a gate, a prior or a rule is a
 * new `version` (semver of the rubric): scores of different versions are never
 * silently compared (docs/api.md §1).
 */
export interface StageGate {
  /** The overall stage this gate guards. */
  readonly stage: StageName;
  /** Every pillar's score must be at least this for the stage to hold. */
  readonly minPillarScore: number;
  readonly description: string;
}

export interface LifecycleBand {
  readonly stageId: string;
  readonly name: string;
  /** Lowest product total that places a product in this band. */
  readonly fromScore: number;
}

export interface Framework {
  readonly id: FrameworkId;
  readonly version: string;
  readonly pillarWeights: Readonly<Record<PillarId, number>>;
  readonly gates: readonly StageGate[];
  /** product framework: the lifecycle stages of docs/api.md §8 the total maps onto, lowest first. */
  readonly lifecycle?: readonly LifecycleBand[];
}

const gates: readonly StageGate[] = [
  { stage: "Leading", minPillarScore: 60, description: "Leading needs no pillar below 60" },
  { stage: "Compounding", minPillarScore: 40, description: "Compounding needs no pillar below 40" },
];

export const maturityFramework: Framework = {
  id: "maturity",
  version: "2.12.0",
  pillarWeights: {
    market_strategy: 1,
    product_experience: 1,
    engineering_delivery: 1,
    data_ai_economics: 0.8,
    trust_enterprise: 1,
    growth_organization: 0.9,
  },
  gates,
};

/** Favours what the product itself shows: experience, delivery, developer platform. */
export const productFramework: Framework = {
  id: "product",
  version: "2.12.0",
  pillarWeights: {
    market_strategy: 0.9,
    product_experience: 1.6,
    engineering_delivery: 1.3,
    data_ai_economics: 0.9,
    trust_enterprise: 0.8,
    growth_organization: 0.5,
  },
  gates,
  lifecycle: [
    { stageId: "stage_discovery", name: "Discovery", fromScore: 0 },
    { stageId: "stage_validation", name: "Validation", fromScore: 30 },
    { stageId: "stage_launch", name: "Launch", fromScore: 50 },
    { stageId: "stage_growth", name: "Growth", fromScore: 70 },
    { stageId: "stage_scale", name: "Scale", fromScore: 85 },
  ],
};

export const frameworks: Readonly<Record<FrameworkId, Framework>> = {
  maturity: maturityFramework,
  product: productFramework,
};
