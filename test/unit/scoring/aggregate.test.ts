import { describe, expect, it } from "vitest";
import { aggregate, strengthsAndGaps } from "../../../src/modules/scoring/aggregate.js";
import { dimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { maturityFramework, productFramework } from "../../../src/modules/scoring/framework/frameworks.js";
import { roundHalfUp, stageFor } from "../../../src/modules/scoring/framework/stages.js";
import type { Confidence, DimensionId } from "../../../src/modules/scoring/scoring.types.js";

const all = (score: number, confidence: Confidence = "high") =>
  dimensions.map((definition) => ({ dimensionId: definition.id, score, confidence }));
const withScores = (scores: Partial<Record<DimensionId, number>>, base = 50, confidence: Confidence = "high") =>
  dimensions.map((definition) => ({ dimensionId: definition.id, score: scores[definition.id] ?? base, confidence }));

describe("stage ladder", () => {
  it("maps scores onto the five stages of docs/api.md §1", () => {
    expect([0, 29, 30, 49, 50, 69, 70, 84, 85, 100].map(stageFor)).toEqual([
      "Foundation",
      "Foundation",
      "Developing",
      "Developing",
      "Scaling",
      "Scaling",
      "Compounding",
      "Compounding",
      "Leading",
      "Leading",
    ]);
  });
  it("rounds half up", () => {
    expect([roundHalfUp(49.5), roundHalfUp(49.49), roundHalfUp(0.5)]).toEqual([50, 49, 1]);
  });
});

describe("aggregate", () => {
  it("averages by pillar weight and confidence: an unobservable dimension counts less, not as 0", () => {
    const observed = withScores({}, 80, "high");
    const withOneUnseen = observed.map((result) =>
      result.dimensionId === "customer_proof" ? { ...result, score: 10, confidence: "low" as const } : result,
    );
    const total = aggregate(withOneUnseen, maturityFramework).totalScore;
    const asIfZeroCounted = aggregate(
      observed.map((result) => (result.dimensionId === "customer_proof" ? { ...result, score: 10 } : result)),
      maturityFramework,
    ).totalScore;
    expect(total).toBeGreaterThan(asIfZeroCounted);
    expect(total).toBeLessThan(80);
  });

  it("weighs costly evidence (named customers, open roles) more than cheap claims (a privacy policy), and a dimension that does not apply barely at all", () => {
    const base = withScores({}, 50, "high");
    const set = (id: DimensionId, score: number, extra: object = {}) =>
      base.map((result) => (result.dimensionId === id ? { ...result, score, ...extra } : result));
    const costly = aggregate(set("talent_organization", 100), maturityFramework).totalScore;
    const cheap = aggregate(set("data_privacy", 100), maturityFramework).totalScore;
    expect(costly).toBeGreaterThan(cheap);
    // Framework 2.12.0: customer proof is moderate unless its rule finds a body of proof, and then weighs as costly.
    const firstUsers = aggregate(set("customer_proof", 100), maturityFramework).totalScore;
    const bodyOfProof = aggregate(set("customer_proof", 100, { evidenceCost: "costly" }), maturityFramework).totalScore;
    expect(firstUsers).toBeGreaterThan(cheap);
    expect(firstUsers).toBeLessThan(costly);
    expect(bodyOfProof).toBe(costly);
    // Costly evidence weighs 16 times cheap evidence (4 against 0.25): a cheap claim at 100 moves the total by about a point.
    expect(costly).toBeGreaterThanOrEqual(55);
    expect(cheap).toBeLessThanOrEqual(51);
    const ai: DimensionId[] = [
      "ai_capability_depth",
      "model_strategy",
      "ai_governance",
      "cost_token_economics",
      "data_strategy_flywheel",
    ];
    const aiAt0 = (extra: object) =>
      base.map((result) => (ai.includes(result.dimensionId) ? { ...result, score: 0, ...extra } : result));
    expect(aggregate(aiAt0({ applicable: false }), maturityFramework).totalScore).toBe(50);
    expect(aggregate(aiAt0({}), maturityFramework).totalScore).toBeLessThan(50);
  });

  it("weighs a dimension like the costly ones when its evidence is costly: an audited certification (framework 2.8.0)", () => {
    const base = withScores({}, 50, "high");
    const compliance = (extra: object) =>
      base.map((result) =>
        result.dimensionId === "compliance_certifications" ? { ...result, score: 100, ...extra } : result,
      );
    const claimed = aggregate(compliance({}), maturityFramework).totalScore;
    const audited = aggregate(compliance({ evidenceCost: "costly" as const }), maturityFramework).totalScore;
    const openRoles = aggregate(
      base.map((result) => (result.dimensionId === "talent_organization" ? { ...result, score: 100 } : result)),
      maturityFramework,
    ).totalScore;
    expect(claimed).toBeLessThanOrEqual(51);
    // Within a point of open roles at 100 (the totals' weights differ by the pillars' weights and compliance's own cheap weight).
    expect(Math.abs(audited - openRoles)).toBeLessThanOrEqual(1);
    expect(audited).toBeGreaterThanOrEqual(55);
    // The pillar's own average weighs it the same way.
    expect(
      aggregate(compliance({ evidenceCost: "costly" as const }), maturityFramework).pillarScores.trust_enterprise,
    ).toBeGreaterThan(aggregate(compliance({}), maturityFramework).pillarScores.trust_enterprise);
  });

  it("caps Leading one rung lower when a pillar is below 60, and says so", () => {
    const scores = withScores(
      { security_posture: 40, compliance_certifications: 40, data_privacy: 40, enterprise_readiness: 70 },
      100,
    );
    const result = aggregate(scores, maturityFramework);
    expect(result.totalScore).toBeGreaterThanOrEqual(85);
    expect(result.stageName).toBe("Compounding");
    // The pillar weighs its dimensions as the total does: (0.25 × 40 × 3 + 1 × 70) / 1.75 = 57.
    expect(result.gateNotes[0]).toMatch(
      /Stage capped at Compounding: Leading needs no pillar below 60, and trust_enterprise scores 57/,
    );
    expect(aggregate(all(95), maturityFramework)).toMatchObject({ stageName: "Leading", gateNotes: [] });
  });

  it("weights the product framework towards the product pillars", () => {
    const productStrong = withScores(
      {
        experience_design: 90,
        onboarding_activation: 90,
        ai_capability_depth: 90,
        integration_ecosystem: 90,
        developer_platform: 90,
      },
      40,
    );
    expect(aggregate(productStrong, productFramework).totalScore).toBeGreaterThan(
      aggregate(productStrong, maturityFramework).totalScore,
    );
  });

  it("maps a product total onto the lifecycle stages", () => {
    expect(aggregate(all(20), productFramework).lifecycleStageId).toBe("stage_discovery");
    expect(aggregate(all(60), productFramework).lifecycleStageId).toBe("stage_launch");
    expect(aggregate(all(90), productFramework).lifecycleStageId).toBe("stage_scale");
    expect(aggregate(all(60), maturityFramework).lifecycleStageId).toBeUndefined();
  });
});

describe("strengths and gaps", () => {
  it("takes the 3 highest (high/medium confidence only) and the 3 lowest", () => {
    const results = withScores({
      pricing_packaging: 90,
      delivery_velocity: 88,
      customer_proof: 70,
      ai_governance: 10,
      model_strategy: 12,
      data_privacy: 15,
    });
    const lowConfidenceTop = results.map((result) =>
      result.dimensionId === "market_intelligence" ? { ...result, score: 99, confidence: "low" as const } : result,
    );
    expect(strengthsAndGaps(lowConfidenceTop, maturityFramework)).toEqual({
      strengths: ["pricing_packaging", "delivery_velocity", "customer_proof"],
      gaps: ["ai_governance", "model_strategy", "data_privacy"],
    });
  });

  it("breaks ties by pillar weight, then by id, and never names a dimension both a strength and a gap", () => {
    const tied = all(50);
    const { strengths, gaps } = strengthsAndGaps(tied, maturityFramework);
    // Weight 1 pillars first; among them alphabetical ids. The gaps are the next three, not the same ones.
    expect(strengths).toEqual(["ai_capability_depth", "architecture_systems", "compliance_certifications"]);
    expect(gaps).toEqual(["customer_proof", "data_privacy", "delivery_velocity"]);
  });

  it("names no strength below the median of real sites (50): a thin site may have fewer than three, or none", () => {
    const thin = withScores({ value_proposition: 62, pricing_packaging: 48 }, 5);
    expect(strengthsAndGaps(thin, maturityFramework).strengths).toEqual(["value_proposition"]);
    expect(strengthsAndGaps(all(30), maturityFramework).strengths).toEqual([]);
    for (const results of [thin, all(30), all(50), all(90)]) {
      const { strengths, gaps } = strengthsAndGaps(results, maturityFramework);
      expect(strengths.filter((id) => gaps.includes(id))).toEqual([]);
      expect(gaps).toHaveLength(3);
    }
  });
});
