import type { Config } from "../../config.js";
import { HeuristicScorer } from "./heuristic-scorer.js";
import { LlmScorer } from "./llm-scorer.js";
import type { Scorer } from "./scoring.types.js";

/**
 * The composition root's choice of scorer: the heuristic one when no API key is
 * configured, otherwise the LLM one with the heuristic scorer as its fallback,
 * so a provider outage degrades the score's engine, never the response.
 */
export function createScorer(config: Pick<Config, "scoring">): Scorer {
  const scoring = config.scoring;
  if (scoring.engine === "heuristic") return new HeuristicScorer();
  return new LlmScorer({
    apiKey: scoring.apiKey,
    baseUrl: scoring.baseUrl,
    model: scoring.model,
    fallback: new HeuristicScorer(),
  });
}
