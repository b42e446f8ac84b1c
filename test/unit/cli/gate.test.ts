import { describe, expect, it } from "vitest";
import type { ScoreResult } from "../../../src/client/index.js";
import { UsageError } from "../../../src/cli/exit-codes.js";
import { evaluateGate, gateLine, parseThresholds, pillarNamed } from "../../../src/cli/gate.js";

/** A result with one dimension in two pillars, enough for the gate (which reads total, stage and dimensions). */
const result = {
  totalScore: 58,
  stageName: "Developing",
  dimensions: [
    { pillar: "trust_enterprise", score: 40 },
    { pillar: "trust_enterprise", score: 43 },
    { pillar: "market_strategy", score: 70 },
  ],
} as unknown as ScoreResult;

describe("the CI gate's thresholds", () => {
  it("reads --min-score and each --min-pillar by id or by the share page's name, any case", () => {
    expect(parseThresholds("60", ["trust_enterprise=50", "MARKET & strategy=0", " Data, AI & Economics = 10"])).toEqual(
      [
        { name: "total", min: 60 },
        { name: "trust_enterprise", min: 50 },
        { name: "market_strategy", min: 0 },
        { name: "data_ai_economics", min: 10 },
      ],
    );
    expect(parseThresholds(undefined, undefined)).toBeUndefined();
    expect(pillarNamed("Growth & Organization")).toBe("growth_organization");
  });

  it("refuses an unknown pillar (listing the valid ones), a bad number, a missing = and a pillar given twice", () => {
    expect(() => pillarNamed("security")).toThrow(
      /unknown pillar "security"; one of market_strategy \("Market & Strategy"\)/,
    );
    for (const [score, pillars] of [
      ["101", []],
      ["-1", []],
      ["59.5", []],
      ["", []],
      [undefined, ["trust_enterprise"]],
      [undefined, ["=5"]],
      [undefined, ["trust_enterprise=5", "Trust & Enterprise=6"]],
    ] as const)
      expect(() => parseThresholds(score, [...pillars])).toThrow(UsageError);
  });

  it("checks each threshold against the total and the pillar averages, and says so in one line", () => {
    const failing = evaluateGate(result, parseThresholds("60", ["trust_enterprise=41", "market_strategy=70"])!);
    expect(failing).toEqual({
      passed: false,
      checks: [
        { name: "total", min: 60, score: 58, passed: false },
        { name: "trust_enterprise", min: 41, score: 42, passed: true },
        { name: "market_strategy", min: 70, score: 70, passed: true },
      ],
    });
    expect(gateLine(result, failing)).toBe(
      "pms: FAIL 58/100 Developing < 60; trust_enterprise 42 ≥ 41; market_strategy 70 ≥ 70\n",
    );
    const passing = evaluateGate(result, parseThresholds(undefined, ["trust_enterprise=42"])!);
    expect(gateLine(result, passing)).toBe("pms: PASS 58/100 Developing; trust_enterprise 42 ≥ 42\n");
    // A pillar the result has no dimension of fails.
    const missing = evaluateGate(result, parseThresholds(undefined, ["growth_organization=0"])!);
    expect(gateLine(result, missing)).toBe("pms: FAIL 58/100 Developing; growth_organization n/a < 0\n");
  });
});
