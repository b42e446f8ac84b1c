import { describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config.js";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import { LlmScorer } from "../../../src/modules/scoring/llm-scorer.js";
import { createScorer } from "../../../src/modules/scoring/scorer.factory.js";

describe("the configured scorer", () => {
  it("is the deterministic heuristic scorer without OPENAI_API_KEY", () => {
    expect(createScorer(loadConfig({}))).toBeInstanceOf(HeuristicScorer);
  });

  it("is the LLM scorer (with the heuristic one as its fallback) when OPENAI_API_KEY is set", () => {
    const config = loadConfig({
      OPENAI_API_KEY: "sk-test",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      SCORING_MODEL: "gpt-4.1-mini",
    });
    expect(createScorer(config)).toBeInstanceOf(LlmScorer);
  });
});
