import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { buildEvidencePack } from "../../../src/modules/scoring/evidence-pack.js";
import { dimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { frameworks } from "../../../src/modules/scoring/framework/frameworks.js";
import { stageFor } from "../../../src/modules/scoring/framework/stages.js";
import { LlmScorer, type LlmScorerOptions } from "../../../src/modules/scoring/llm-scorer.js";
import { buildScoreResult } from "../../../src/modules/scoring/result-builder.js";
import {
  dimensionIds,
  type DimensionResult,
  type ScoreInput,
  type ScoreResult,
  type Scorer,
} from "../../../src/modules/scoring/scoring.types.js";
import { startFakeOpenAi, type FakeOpenAi } from "../../support/fake-openai.js";
import { syntheticCrawl } from "../../support/synthetic-crawl.js";

// anti-patterns.ts is a colleague's module, written in parallel: these tests check
// that the scorer passes its findings through, not what it finds.
vi.mock("../../../src/modules/scoring/anti-patterns.js", () => ({ detectAntiPatterns: () => ["stub anti-pattern"] }));

/** The fallback: a fixed result through the same builder, so no rule file is involved. */
class StubScorer implements Scorer {
  calls = 0;
  async score(input: ScoreInput): Promise<ScoreResult> {
    this.calls += 1;
    const results: DimensionResult[] = dimensions.map((definition) => ({
      dimensionId: definition.id,
      dimensionName: definition.name,
      pillar: definition.pillar,
      score: 40,
      stageName: stageFor(40),
      evidence: "stub",
      evidenceItems: [{ text: "stub" }],
      confidence: "low",
      reasoning: "stub",
    }));
    return buildScoreResult({
      crawl: input.crawl,
      framework: frameworks[input.framework],
      mode: input.mode,
      dimensions: results,
      antiPatterns: [],
      notes: ["Stub fallback note."],
      scorer: { engine: "heuristic" },
    });
  }
}

const API_KEY = "sk-test-not-a-secret-123";
const crawl = syntheticCrawl(
  [
    {
      path: "/",
      title: "Acme: invoices in minutes",
      headings: [{ level: 1, text: "Invoices in minutes" }],
      text: "Acme cut invoice processing time by 38% for 1,200 customers.",
    },
    {
      path: "/pricing",
      title: "Pricing",
      prices: [{ amount: 49, text: "$49/month" }],
      text: "Team plan is $49 per month. Enterprise adds SSO and SAML.",
    },
    { path: "/security", title: "Security", text: "Acme is SOC 2 Type II audited every year since 2023." },
  ],
  {
    securityTxt: true,
    outbound: [{ url: "https://status.acme.example/", kind: "status_page", foundOn: "https://acme.example/" }],
  },
);
const input: ScoreInput = { crawl, framework: "maturity", mode: "full" };

let fake: FakeOpenAi;
let fallback: StubScorer;
beforeEach(async () => {
  fake = await startFakeOpenAi({ model: "fake-model", seed: 7 });
  fallback = new StubScorer();
});
afterEach(async () => {
  await fake.close();
});

function scorer(options: Partial<LlmScorerOptions> = {}): LlmScorer {
  return new LlmScorer({
    apiKey: API_KEY,
    baseUrl: fake.baseUrl,
    model: "fake-model",
    fallback,
    pricing: { "fake-model": { inputPerMTokens: 1, outputPerMTokens: 2 } },
    ...options,
  });
}

describe("LlmScorer", () => {
  it("scores from a good answer: 27 dimensions, usage and cost recorded, request shaped for strict structured outputs", async () => {
    fake.script({
      kind: "good",
      scores: { pricing_packaging: 82, security_posture: 71 },
      usage: { promptTokens: 1_200, completionTokens: 800 },
    });
    const progress: number[] = [];
    const result = await scorer().score({ ...input, onDimension: (k, of) => progress.push(k * 100 + of) });

    expect(result.scorer).toEqual({
      engine: "llm",
      model: "fake-model",
      usage: { promptTokens: 1_200, completionTokens: 800, costMicroUsd: 1_200 * 1 + 800 * 2 },
    });
    expect(result.dimensions.map((d) => d.dimensionId)).toEqual([...dimensionIds]);
    const pricing = result.dimensions.find((d) => d.dimensionId === "pricing_packaging")!;
    expect(pricing).toMatchObject({
      score: 82,
      stageName: "Compounding",
      dimensionName: "Pricing & Packaging",
      pillar: "market_strategy",
      confidence: "medium",
    });
    expect(pricing.evidenceItems).toEqual([{ text: pricing.evidence }]);
    expect(result.antiPatternsDetected).toEqual(["stub anti-pattern"]);
    expect(result.crossDimensionNotes).toContain("Scored by the language model fake-model");
    expect(progress).toEqual(dimensionIds.map((_, index) => (index + 1) * 100 + 27));
    expect(fallback.calls).toBe(0);

    expect(fake.requests).toHaveLength(1);
    const request = fake.requests[0]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.authorization).toBe(`Bearer ${API_KEY}`);
    const body = request.body as Record<string, any>;
    expect(body).toMatchObject({
      model: "fake-model",
      temperature: 0,
      seed: 7,
      response_format: { type: "json_schema", json_schema: { name: "maturity_score", strict: true } },
    });
    const item = body.response_format.json_schema.schema.properties.dimensions.items;
    expect(item.properties.dimensionId.enum).toEqual([...dimensionIds]);
    expect(item.properties.score).toEqual({ type: "integer", minimum: 0, maximum: 100 });
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(["system", "user"]);
    for (const definition of dimensions)
      expect(body.messages[0].content).toContain(`- ${definition.id} | ${definition.name} | ${definition.pillar}`);
    expect(body.messages[1].content).toBe(buildEvidencePack(crawl, undefined, 12_000).text);
  });

  it("weighs the dimensions whose weight follows the evidence as the heuristic rules find it, and says so (framework 2.12.0)", async () => {
    fake.script({ kind: "good" }, { kind: "good" });
    const weightOf = (result: ScoreResult, id: string) =>
      result.dimensions.find((dimension) => dimension.dimensionId === id)!.evidenceCost;
    // The base crawl: SOC 2 Type II audited (compliance costly), no customer stories (customer proof at its default).
    const plain = await scorer().score(input);
    expect(weightOf(plain, "compliance_certifications")).toBe("costly");
    expect(weightOf(plain, "customer_proof")).toBeUndefined();
    expect(plain.crossDimensionNotes).toContain(
      "Compliance & Certifications: SOC 2 Type II takes an outside audit and months to earn",
    );
    const story = (slug: string, name: string) => ({
      path: `/customers/${slug}`,
      title: `${name} case study`,
      text: `How ${name} ships invoices faster with Acme`,
    });
    const withStories = syntheticCrawl([
      ...crawl.pages.map((page) => ({ path: new URL(page.url).pathname, title: page.title, text: page.text })),
      story("globex", "Globex"),
      story("initech", "Initech"),
      story("umbrella", "Umbrella"),
    ]);
    const proven = await scorer().score({ ...input, crawl: withStories });
    expect(weightOf(proven, "customer_proof")).toBe("costly");
    expect(proven.crossDimensionNotes).toContain("Customer Proof: 3 case studies make a body of proof");
  });

  it("records zero cost, and says so, for a model without a known price", async () => {
    await fake.close();
    fake = await startFakeOpenAi({ model: "local-llama", seed: 7 });
    fake.script({ kind: "good" });
    const result = await scorer({ model: "local-llama" }).score(input);
    expect(result.scorer).toEqual({
      engine: "llm",
      model: "local-llama",
      usage: { promptTokens: 1_000, completionTokens: 500, costMicroUsd: 0 },
    });
    expect(result.crossDimensionNotes).toContain("No price is known for model local-llama");
  });

  it("retries a malformed answer once and succeeds on the second", async () => {
    fake.script({ kind: "malformed" }, { kind: "good", scores: { delivery_velocity: 66 } });
    const result = await scorer().score(input);
    expect(fake.requests).toHaveLength(2);
    expect(result.scorer.engine).toBe("llm");
    expect(result.dimensions.find((d) => d.dimensionId === "delivery_velocity")!.score).toBe(66);
    // Both answers were billed.
    expect(result.scorer.usage).toEqual({ promptTokens: 2_000, completionTokens: 1_000, costMicroUsd: 4_000 });
    expect(result.crossDimensionNotes).toContain("first answer was invalid (answer is not JSON)");
    expect(fallback.calls).toBe(0);
  });

  it("falls back to the heuristic result after two malformed answers, with a note", async () => {
    fake.script({ kind: "malformed" }, { kind: "malformed" });
    const progress: number[] = [];
    const result = await scorer().score({ ...input, onDimension: (k) => progress.push(k) });
    expect(fake.requests).toHaveLength(2);
    expect(fallback.calls).toBe(1);
    expect(result.scorer.engine).toBe("heuristic");
    expect(result.scorer.usage).toEqual({ promptTokens: 2_000, completionTokens: 1_000, costMicroUsd: 4_000 });
    expect(result.dimensions.every((d) => d.score === 40)).toBe(true);
    expect(result.crossDimensionNotes).toContain("Stub fallback note.");
    expect(result.crossDimensionNotes).toContain(
      "LLM scorer unavailable (its answer was invalid twice (answer is not JSON))",
    );
  });

  it("retries a partial answer (26 dimensions)", async () => {
    fake.script({ kind: "partial" }, { kind: "good" });
    const result = await scorer().score(input);
    expect(fake.requests).toHaveLength(2);
    expect(result.scorer.engine).toBe("llm");
    expect(result.dimensions).toHaveLength(27);
    expect(result.crossDimensionNotes).toContain("1 dimension(s) missing (company_momentum)");
  });

  it("falls back on 429 without throwing or retrying, and keeps the key out of the note", async () => {
    fake.script({ kind: "rate_limited" });
    const result = await scorer().score(input);
    expect(fake.requests).toHaveLength(1);
    expect(result.scorer).toEqual({ engine: "heuristic" });
    expect(result.crossDimensionNotes).toContain(
      "LLM scorer unavailable (the provider rate-limited the request (HTTP 429))",
    );
    expect(JSON.stringify(result)).not.toContain(API_KEY);
  });

  it("falls back when the provider is slower than timeoutMs", async () => {
    fake.script({ kind: "slow", delayMs: 3_000 });
    const started = Date.now();
    const result = await scorer({ timeoutMs: 300 }).score(input);
    expect(Date.now() - started).toBeLessThan(2_500);
    expect(fake.requests).toHaveLength(1);
    expect(result.scorer.engine).toBe("heuristic");
    expect(result.crossDimensionNotes).toContain("the provider did not answer within 300 ms");
  });

  it("falls back when the request is rejected (the fake answers 400 to a wrong shape)", async () => {
    fake.script({ kind: "good" });
    const result = await scorer({ seed: 8 }).score(input);
    expect(result.scorer.engine).toBe("heuristic");
    expect(result.crossDimensionNotes).toContain("the provider rejected the request (HTTP 400)");
  });

  it("falls back when the provider cannot be reached", async () => {
    const address = fake.baseUrl;
    await fake.close();
    const result = await scorer({ baseUrl: address }).score(input);
    expect(result.scorer.engine).toBe("heuristic");
    expect(result.crossDimensionNotes).toContain("the provider could not be reached");
    fake = await startFakeOpenAi();
  });

  it("sends byte-identical requests for the same crawl and context", async () => {
    fake.script({ kind: "good" }, { kind: "good" });
    const withContext = { ...input, context: "We have 40 enterprise customers and are SOC 2 Type II certified." };
    const first = await scorer().score(withContext);
    const second = await scorer().score(withContext);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.raw).toBe(fake.requests[0]!.raw);
    expect(fake.requests[0]!.raw).toContain("SELF-REPORTED CONTEXT");
    expect(second).toEqual(first);
  });
});
