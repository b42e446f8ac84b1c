import { describe, expect, it } from "vitest";
import { DeterministicChatEngine } from "../../../src/modules/chat/deterministic-chat.js";
import type { DimensionView, ResultCore } from "../../../src/modules/score/score-result.view.js";
import { dimensions as DIMENSIONS } from "../../../src/modules/scoring/framework/dimensions.js";

/** A thin site's result: a few readings, none a strength, the lowest three its gaps. */
function thinResult(strengths: string[] = []): ResultCore {
  const scores: Record<string, number> = { value_proposition: 38, experience_design: 28, data_privacy: 20 };
  const dimensions: DimensionView[] = DIMENSIONS.map((dimension) => ({
    dimensionId: dimension.id,
    dimensionName: dimension.name,
    pillar: dimension.pillar,
    score: scores[dimension.id] ?? 5,
    stageName: "Foundation",
    evidence: "",
    evidenceItems: [],
    confidence: "low",
    reasoning: "No evidence for this dimension was found.",
  })) as DimensionView[];
  return {
    id: "r1",
    url: "https://thin.example",
    companyName: "Thin",
    totalScore: 9,
    stageName: "Foundation",
    framework: "maturity",
    frameworkVersion: "2.2.0",
    mode: "full",
    dimensions,
    strengths: strengths as ResultCore["strengths"],
    gaps: ["customer_proof", "pricing_packaging", "value_proposition"] as ResultCore["gaps"],
    createdAt: new Date(0),
    productId: null,
    lifecycleStageId: null,
    held: false,
    expiresAt: null,
  } as ResultCore;
}

const ask = (result: ResultCore, message: string) =>
  new DeterministicChatEngine().reply({ result, history: [], message });

describe("deterministic chat on a result with no strengths", () => {
  it("says there are none, and why, instead of calling its best readings strengths", async () => {
    const reply = await ask(thinResult(), "What are our strengths?");
    expect(reply.content).toMatch(
      /^Thin's score \(9\/100, Foundation\) has no strengths yet: no dimension that applies scores 50 or more with high or medium confidence\. Its highest readings:/,
    );
    expect(reply.content).not.toMatch(/strongest areas/i);
    // value_proposition is a gap here: it is never offered as the best of anything.
    expect(reply.content).not.toContain("Value Proposition");
    expect(reply.content).toContain("Experience Design: 28/100");
  });

  it("gives the overview without a 'Strongest' line", async () => {
    const reply = await ask(thinResult(), "Give me a summary of the score");
    expect(reply.content).toContain("No strengths yet: no dimension that applies scores 50 or more");
    expect(reply.content).not.toContain("Strongest:");
    expect(reply.content).toMatch(/Weakest: /);
  });

  it("still lists the strengths a result has", async () => {
    const reply = await ask(thinResult(["experience_design"]), "What are our strengths?");
    expect(reply.content).toMatch(/^The strongest areas of Thin's score/);
    expect((await ask(thinResult(["experience_design"]), "summary")).content).toContain("Strongest: Experience Design");
  });
});
