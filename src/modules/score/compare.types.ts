import { Field, GraphQLISODateTime, ID, Int, ObjectType } from "type-graphql";
import type { ScoreComparison } from "./compare.js";
import { ConfidenceLevel, FrameworkKind, ScoreModeKind } from "./score.types.js";

@ObjectType("ComparedResult", { description: "One side of a comparison: the result in brief." })
export class ComparedResultType {
  @Field(() => ID, { description: "Result identifier (UUID)." })
  id: string;

  @Field(() => String, { description: "The address that was scored (normalized)." })
  url: string;

  @Field(() => String, { description: "Name detected for the product." })
  companyName: string;

  @Field(() => Int, { description: "0–100." })
  totalScore: number;

  @Field(() => String, { description: "The overall stage." })
  stageName: string;

  @Field(() => GraphQLISODateTime, { description: "When the result was stored." })
  createdAt: Date;

  @Field(() => FrameworkKind, { description: "The rubric used." })
  framework: FrameworkKind;

  @Field(() => String, { description: "Semver of the rubric." })
  frameworkVersion: string;

  @Field(() => ScoreModeKind, { description: "full or quick." })
  mode: ScoreModeKind;

  @Field(() => Boolean, {
    description: "An anonymous result not yet linked to an account (a comparison with one is not cached).",
  })
  held: boolean;
}

@ObjectType("StageChange", { description: "How the overall stage changed (absent when it did not)." })
export class StageChangeType {
  @Field(() => String, { description: "The baseline's stage." })
  from: string;

  @Field(() => String, { description: "This result's stage." })
  to: string;
}

@ObjectType("DimensionDelta", { description: "How one dimension moved from the baseline to this result." })
export class DimensionDeltaType {
  @Field(() => String, { description: "Identifier, for example market_intelligence." })
  dimensionId: string;

  @Field(() => String, { description: "Display name, for example Market Intelligence." })
  dimensionName: string;

  @Field(() => String, { description: "The pillar it belongs to." })
  pillar: string;

  @Field(() => Int, {
    nullable: true,
    description: "The baseline's score; null when the baseline's framework version has no such dimension.",
  })
  fromScore: number | null;

  @Field(() => Int, {
    nullable: true,
    description: "This result's score; null when its framework version has no such dimension.",
  })
  toScore: number | null;

  @Field(() => Int, { nullable: true, description: "toScore − fromScore; null when the dimension is not comparable." })
  delta: number | null;

  @Field(() => ConfidenceLevel, { nullable: true, description: "The baseline's confidence." })
  fromConfidence: ConfidenceLevel | null;

  @Field(() => ConfidenceLevel, { nullable: true, description: "This result's confidence." })
  toConfidence: ConfidenceLevel | null;

  @Field(() => Boolean, { description: "True when both sides have the dimension with different confidences." })
  confidenceChanged: boolean;

  @Field(() => Boolean, { nullable: true, description: "Whether it applied to the site at the baseline." })
  fromApplicable: boolean | null;

  @Field(() => Boolean, { nullable: true, description: "Whether it applies to the site in this result." })
  toApplicable: boolean | null;

  @Field(() => Boolean, {
    description:
      "True when the delta means something: always within one framework version; across versions, only when both sides have the dimension and it applies on both.",
  })
  comparable: boolean;
}

@ObjectType("EvidenceChange", { description: "A piece of evidence found on one side of a comparison only." })
export class EvidenceChangeType {
  @Field(() => String, { description: "The dimension it evidences." })
  dimensionId: string;

  @Field(() => String, { description: "The quoted text or observed fact." })
  quote: string;

  @Field(() => String, {
    nullable: true,
    description: "The page it was seen on; null for self-reported context and absences.",
  })
  url: string | null;

  @Field(() => Boolean, { description: "True when it comes from the caller's context, not from the site." })
  selfReported: boolean;
}

@ObjectType("EvidenceChanges", { description: "Evidence on one side only, at most 50 items, with the full count." })
export class EvidenceChangesType {
  @Field(() => [EvidenceChangeType], { description: "At most 50, in framework order of their dimensions." })
  items: EvidenceChangeType[];

  @Field(() => Int, { description: "How many there are in all." })
  total: number;

  @Field(() => Boolean, { description: "True when items holds fewer than total." })
  truncated: boolean;
}

@ObjectType("ScoreComparison", {
  description:
    "The change from a baseline result (from) to this result (to): every delta is to minus from. Two final results compare the same forever.",
})
export class ScoreComparisonType {
  @Field(() => ComparedResultType, { description: "The baseline: the result named in the argument." })
  from: ComparedResultType;

  @Field(() => ComparedResultType, { description: "This result." })
  to: ComparedResultType;

  @Field(() => Int, { description: "to.totalScore − from.totalScore." })
  totalDelta: number;

  @Field(() => StageChangeType, { nullable: true, description: "The stage change; null when the stage is the same." })
  stageChange: StageChangeType | null;

  @Field(() => Boolean, {
    description:
      "True when both were scored with the same framework version; false only when allowVersionMismatch let two versions through.",
  })
  comparable: boolean;

  @Field(() => [DimensionDeltaType], {
    description:
      "Every dimension of either side, most moved first (|delta| descending, ties in framework order); those not comparable last.",
  })
  dimensions: DimensionDeltaType[];

  @Field(() => [String], { description: "Ids of the dimensions with a delta." })
  comparableDimensions: string[];

  @Field(() => [String], { description: "Ids of the dimensions without one (framework versions differ)." })
  incomparableDimensions: string[];

  @Field(() => EvidenceChangesType, {
    description: "Evidence in this result and not in the baseline (same dimension, normalized quote).",
  })
  evidenceAdded: EvidenceChangesType;

  @Field(() => EvidenceChangesType, { description: "Evidence in the baseline and no longer in this result." })
  evidenceRemoved: EvidenceChangesType;
}

/** The computed comparison → its GraphQL object (the enums are the same strings). */
export function toGraphQLComparison(comparison: ScoreComparison): ScoreComparisonType {
  const side = (s: ScoreComparison["from"]): ComparedResultType => ({
    ...s,
    framework: FrameworkKind[s.framework],
    mode: ScoreModeKind[s.mode],
  });
  return {
    ...comparison,
    from: side(comparison.from),
    to: side(comparison.to),
    dimensions: comparison.dimensions.map((d) => ({
      ...d,
      fromConfidence: d.fromConfidence ? ConfidenceLevel[d.fromConfidence] : null,
      toConfidence: d.toConfidence ? ConfidenceLevel[d.toConfidence] : null,
    })),
    comparableDimensions: [...comparison.comparableDimensions],
    incomparableDimensions: [...comparison.incomparableDimensions],
    evidenceAdded: { ...comparison.evidenceAdded, items: [...comparison.evidenceAdded.items] },
    evidenceRemoved: { ...comparison.evidenceRemoved, items: [...comparison.evidenceRemoved.items] },
  };
}
