import { detectAntiPatterns } from "./anti-patterns.js";
import { dimensions, type DimensionDefinition } from "./framework/dimensions.js";
import { frameworks } from "./framework/frameworks.js";
import { roundHalfUp, stageFor } from "./framework/stages.js";
import { buildScoreResult } from "./result-builder.js";
import { allRules } from "./rules/index.js";
import type { RuleSet } from "./rules/rule.js";
import type { Confidence, DimensionAssessment, DimensionResult, Evidence, ScoreInput, ScoreMode, ScoreResult, Scorer } from "./scoring.types.js";
import { SiteFacts } from "./site-facts.js";

const NOTHING: DimensionAssessment = { raw: 0, coverage: 0, evidence: [], raised: [], lowered: [], toRaise: "" };
/** Self-reported context moves a score by at most this much, and only where the site is thin. */
const MAX_CONTEXT_SHIFT = 10;

/**
 * The deterministic scorer: rules read the crawl, each reading is blended with
 * the dimension's prior by how much could be observed, and the caller's context
 * counts as self-reported evidence that can never outweigh the site.
 * Same crawl + context + framework version ⇒ the same result, to the character.
 */
export class HeuristicScorer implements Scorer {
  constructor(private readonly rules: RuleSet = allRules) {}

  async score(input: ScoreInput): Promise<ScoreResult> {
    return this.scoreSync(input);
  }

  scoreSync(input: ScoreInput): ScoreResult {
    const facts = new SiteFacts(input.crawl);
    const context = input.context?.trim() ? SiteFacts.fromContext(input.context.trim(), input.crawl.crawledAt) : undefined;
    const results = dimensions.map((definition, index) => {
      const result = this.scoreDimension(definition, facts, context, input.mode);
      input.onDimension?.(index + 1, dimensions.length, definition.id);
      return result;
    });
    const notes: string[] = [];
    const selfReported = results.filter((result) => result.evidenceItems.some((item) => item.selfReported)).length;
    if (selfReported > 0) notes.push(`The caller's context added self-reported evidence to ${selfReported} dimension${selfReported === 1 ? "" : "s"}; it never outweighs what the site shows.`);
    const thin = results.filter((result) => result.confidence === "low").length;
    if (thin >= 14) notes.push(`${thin} of 27 dimensions had little or nothing observable on the site and sit near the framework's priors.`);
    return buildScoreResult({
      crawl: input.crawl,
      framework: frameworks[input.framework],
      mode: input.mode,
      dimensions: results,
      antiPatterns: detectAntiPatterns(facts),
      notes,
      scorer: { engine: "heuristic" },
    });
  }

  private scoreDimension(definition: DimensionDefinition, facts: SiteFacts, context: SiteFacts | undefined, mode: ScoreMode): DimensionResult {
    const rule = this.rules[definition.id];
    const site = rule ? rule(facts) : NOTHING;
    let score = blend(definition.prior, site);
    let confidence = confidenceFor(site.coverage);
    const evidence: Evidence[] = [...site.evidence];
    let contextNote = "";

    // Self-reported context: it can lift confidence one level (never to high) and move
    // the score a little, in proportion to how little the site itself shows.
    if (context && rule && site.coverage < 0.6) {
      const claimed = rule(context);
      if (claimed.coverage > 0) {
        const target = blend(definition.prior, claimed);
        const shift = Math.max(-MAX_CONTEXT_SHIFT, Math.min(MAX_CONTEXT_SHIFT, (target - score) * 0.5)) * (1 - site.coverage);
        score += shift;
        if (confidence === "low" && claimed.coverage >= 0.25) confidence = "medium";
        for (const item of claimed.evidence.slice(0, 2)) evidence.push({ text: item.text, selfReported: true });
        contextNote = ` Self-reported context ${shift >= 0 ? "raised" : "lowered"} it by ${Math.abs(roundHalfUp(shift))}.`;
      }
    }
    if (mode === "quick" && confidence === "high") confidence = "medium";

    const finalScore = Math.min(100, Math.max(0, roundHalfUp(score)));
    return {
      dimensionId: definition.id,
      dimensionName: definition.name,
      pillar: definition.pillar,
      score: finalScore,
      stageName: stageFor(finalScore),
      evidence: describeEvidence(evidence),
      evidenceItems: evidence,
      confidence,
      reasoning: reasoning(definition, site) + contextNote,
    };
  }
}

/** Near the prior when little is observable; the rule's reading when much is. */
export function blend(prior: number, assessment: Pick<DimensionAssessment, "raw" | "coverage">): number {
  if (assessment.coverage <= 0) return prior;
  const trust = 0.3 + 0.7 * Math.min(1, assessment.coverage);
  return prior + (assessment.raw - prior) * trust;
}

export function confidenceFor(coverage: number): Confidence {
  if (coverage >= 0.6) return "high";
  if (coverage >= 0.25) return "medium";
  return "low";
}

function describeEvidence(evidence: readonly Evidence[]): string {
  if (evidence.length === 0) return "No evidence for this dimension was found on the crawled pages.";
  return evidence
    .slice(0, 4)
    .map((item) => (item.selfReported ? `Self-reported: "${item.text}"` : item.url ? `${item.text} (${item.url})` : item.text))
    .join(" · ");
}

function reasoning(definition: DimensionDefinition, site: DimensionAssessment): string {
  const parts: string[] = [];
  if (site.coverage === 0) {
    parts.push(`Nothing on the crawled pages evidences ${definition.name.toLowerCase()}, so the score stays at the framework's prior of ${definition.prior}.`);
  } else {
    if (site.raised.length > 0) parts.push(`Raised by: ${site.raised.join("; ")}.`);
    if (site.lowered.length > 0) parts.push(`Lowered by: ${site.lowered.join("; ")}.`);
    if (site.coverage < 0.25) parts.push(`Little was observable, so the score stays near the prior of ${definition.prior}.`);
  }
  if (site.toRaise) parts.push(`To raise it: ${site.toRaise}`);
  return parts.join(" ");
}
