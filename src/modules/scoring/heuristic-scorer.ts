import { detectAntiPatterns } from "./anti-patterns.js";
import { moreIsBetter } from "./curves.js";
import { excusedDespiteReadings, whenSilent, type Silence } from "./framework/applicability.js";
import { dimensions, type DimensionDefinition } from "./framework/dimensions.js";
import { frameworks } from "./framework/frameworks.js";
import { populationCurves } from "./framework/population.js";
import { roundHalfUp, stageFor } from "./framework/stages.js";
import { buildScoreResult } from "./result-builder.js";
import { allRules } from "./rules/index.js";
import type { RuleSet } from "./rules/rule.js";
import type {
  Confidence,
  DimensionAssessment,
  DimensionId,
  DimensionResult,
  Evidence,
  ScoreInput,
  ScoreMode,
  ScoreResult,
  Scorer,
} from "./scoring.types.js";
import { thinCrawl } from "./result-builder.js";
import { SiteFacts } from "./site-facts.js";
import { siteProfile, type SiteProfile } from "./site-profile.js";

const NOTHING: DimensionAssessment = { raw: 0, coverage: 0, evidence: [], raised: [], lowered: [], toRaise: "" };
/** Self-reported context moves a score by at most this much, and only where the site is thin. */
const MAX_CONTEXT_SHIFT = 10;

/** One dimension as the rules read it, before it becomes a score. */
export interface DimensionReading {
  readonly definition: DimensionDefinition;
  readonly site: DimensionAssessment;
  /** Set when the site showed nothing for the dimension: whether that means "early" or "does not apply". */
  readonly silence: Silence | undefined;
}

/**
 * The deterministic scorer (framework 2.0): rules read the crawl; a dimension the
 * site shows something for is scored on its population curve; one it shows nothing
 * for sits at the prior, and either counts as an early-stage sign or, when it does
 * not apply to what the site sells, weighs little and is never a strength or gap.
 * The caller's context counts as self-reported evidence that never outweighs the site.
 * Same crawl + context + framework version ⇒ the same result, to the character.
 */
export class HeuristicScorer implements Scorer {
  constructor(private readonly rules: RuleSet = allRules) {}

  async score(input: ScoreInput): Promise<ScoreResult> {
    return this.scoreSync(input);
  }

  /** The rules' readings of a crawl, for calibration (`npm run calibrate -- --fit`). */
  read(facts: SiteFacts, profile: SiteProfile = siteProfile(facts)): DimensionReading[] {
    return dimensions.map((definition) => {
      const rule = this.rules[definition.id];
      const site = rule ? rule(facts.about(definition.id)) : NOTHING;
      if (site.coverage > 0 && !excusedDespiteReadings(definition.id, profile))
        return { definition, site, silence: undefined };
      // A stray reading of AI practice on a site that sells no AI counts as silence; it is named in the reasoning.
      return {
        definition,
        site: site.coverage > 0 ? { ...NOTHING, strayReadings: site.raised } : site,
        silence: whenSilent(definition.id, profile),
      };
    });
  }

  scoreSync(input: ScoreInput): ScoreResult {
    const facts = new SiteFacts(input.crawl);
    const profile = siteProfile(facts);
    const context = input.context?.trim()
      ? SiteFacts.fromContext(input.context.trim(), input.crawl.crawledAt)
      : undefined;
    const results = this.read(facts, profile).map((reading, index) => {
      const result = this.scoreDimension(reading, context, input.mode, readThoroughly(input.crawl));
      input.onDimension?.(index + 1, dimensions.length, reading.definition.id);
      return result;
    });
    const notes: string[] = [];
    const selfReported = results.filter((result) => result.evidenceItems.some((item) => item.selfReported)).length;
    if (selfReported > 0)
      notes.push(
        `The caller's context added self-reported evidence to ${selfReported} dimension${selfReported === 1 ? "" : "s"}; it never outweighs what the site shows.`,
      );
    const excused = results.filter((result) => result.applicable === false).length;
    if (excused > 0)
      notes.push(
        `${excused} of 27 dimensions do not apply to what this site presents (${profile.openSource ? "an open-source project" : "a commercial product"}${profile.sellsAi ? " with AI" : " that sells no AI"}); they weigh little in the total and are never strengths or gaps.`,
      );
    const thin = results.filter((result) => result.confidence === "low" && result.applicable !== false).length;
    if (thin >= 14) notes.push(`${thin} of the dimensions that apply had little or nothing observable on the site.`);
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

  private scoreDimension(
    { definition, site, silence }: DimensionReading,
    context: SiteFacts | undefined,
    mode: ScoreMode,
    thorough: boolean,
  ): DimensionResult {
    const rule = this.rules[definition.id];
    // Showing a little (one signed quote, one security practice) never scores below showing nothing: only a fact
    // that counts against the dimension (a penalty) takes a reading under the prior.
    let score = silence
      ? definition.prior
      : site.counterEvidence
        ? onCurve(definition.id, site.raw)
        : Math.max(definition.prior, onCurve(definition.id, site.raw));
    // On a site read thoroughly, finding little where the dimension applies is as telling as finding
    // nothing: a faint reading must not weigh less in the total than silence does.
    let confidence =
      (silence?.means === "early" || (!silence && site.coverage < 0.25)) && thorough
        ? "medium"
        : confidenceFor(site.coverage);
    const evidence: Evidence[] = [...site.evidence];
    let contextNote = "";

    // Self-reported context: it can lift confidence one level (never to high) and move
    // the score a little, in proportion to how little the site itself shows.
    if (context && rule && site.coverage < 0.6) {
      const claimed = rule(context);
      if (claimed.coverage > 0) {
        const target = onCurve(definition.id, claimed.raw);
        const shift =
          Math.max(-MAX_CONTEXT_SHIFT, Math.min(MAX_CONTEXT_SHIFT, (target - score) * 0.5)) * (1 - site.coverage);
        score += shift;
        if (confidence === "low" && claimed.coverage >= 0.25) confidence = "medium";
        for (const item of claimed.evidence.slice(0, 2)) evidence.push({ text: item.text, selfReported: true });
        contextNote = ` Self-reported context ${shift >= 0 ? "raised" : "lowered"} it by ${Math.abs(roundHalfUp(shift))}.`;
      }
    }
    if (mode === "quick" && confidence === "high") confidence = "medium";
    const applicable = !(silence?.means === "not_applicable" && contextNote === "");

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
      reasoning: reasoning(definition, site, silence, thorough) + contextNote,
      ...(applicable ? {} : { applicable: false }),
      ...(site.weighsAs && !silence ? { evidenceCost: site.weighsAs.cost } : {}),
    };
  }
}

/**
 * Whether an absence on the site is itself evidence: the crawl read at least ten
 * pages, or every page it found (a small site read whole), and it was not thin
 * (thinCrawl). Then a dimension that shows nothing where it applies is rated with
 * medium confidence, not low.
 */
export function readThoroughly(crawl: ScoreInput["crawl"]): boolean {
  const stats = crawl.crawlStats;
  return (
    !thinCrawl(stats) && (stats.pagesAnalyzed >= 10 || (!stats.partial && stats.pagesPlanned <= stats.pagesAnalyzed))
  );
}

/** A dimension's evidence strength (0–100) on its population curve: the corpus median scores 50, its p90 scores 90. */
export function onCurve(id: DimensionId, strength: number): number {
  const [median, p90] = populationCurves[id];
  return moreIsBetter(strength, median, p90);
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
    .map((item) =>
      item.selfReported ? `Self-reported: "${item.text}"` : item.url ? `${item.text} (${item.url})` : item.text,
    )
    .join(" · ");
}

function reasoning(
  definition: DimensionDefinition,
  site: DimensionAssessment,
  silence: Silence | undefined,
  thorough: boolean,
): string {
  const parts: string[] = [];
  const name = definition.name.toLowerCase();
  if (silence?.means === "not_applicable") {
    const stray = site.strayReadings ?? [];
    const seen =
      stray.length > 0
        ? `What the pages say that resembles ${name} (${stray.join("; ")}) is not about an AI product`
        : `Nothing on the crawled pages evidences ${name}`;
    parts.push(
      `${seen}, and ${silence.why}; so it stays at the prior of ${definition.prior}, weighs little in the total and is neither a strength nor a gap.`,
    );
    return parts.join(" ");
  }
  if (silence) {
    parts.push(
      `Nothing on the crawled pages evidences ${name}; ${silence.why}, so the score stays at the prior of ${definition.prior}.`,
    );
  } else {
    if (site.raised.length > 0) parts.push(`Raised by: ${site.raised.join("; ")}.`);
    if (site.lowered.length > 0) parts.push(`Lowered by: ${site.lowered.join("; ")}.`);
    if (site.weighsAs) parts.push(site.weighsAs.why);
    if (site.coverage < 0.25)
      parts.push(
        thorough
          ? "Little of it shows on a site read thoroughly, and that is itself the finding."
          : "Little was observable, so confidence is low.",
      );
  }
  if (site.toRaise) parts.push(`To raise it: ${site.toRaise}`);
  return parts.join(" ");
}
