import { moreIsBetter } from "../curves.js";
import type { DimensionAssessment, DimensionId, Evidence } from "../scoring.types.js";
import type { Mention, SiteFacts } from "../site-facts.js";

/** A dimension's rule: pure, deterministic, reading only the facts. */
export type DimensionRule = (facts: SiteFacts) => DimensionAssessment;

export type RuleSet = Readonly<Partial<Record<DimensionId, DimensionRule>>>;

/**
 * Collects a rule's signals. Each signal has a weight; an observed signal adds
 * weight × its 0–100 score to the raw reading and its weight to coverage; a
 * signal looked for and not found adds its weight with score 0 and no coverage.
 * So a dimension with nothing observable has coverage 0 (the scorer then keeps
 * it near the prior), and one observed signal out of four counts for a quarter.
 */
export class Assessor {
  private total = 0;
  private observedWeight = 0;
  private allWeight = 0;
  /** Whether a fact counting against the dimension was observed (a penalty). */
  private against = false;
  private readonly evidence: Evidence[] = [];
  private readonly raised: string[] = [];
  private readonly lowered: string[] = [];

  /**
   * A signal that was observed with a 0–100 score (`describe` says what was seen);
   * pass `score: undefined` when it was looked for and not found (`describe` then
   * says what is missing).
   */
  signal(
    weight: number,
    score: number | undefined,
    describe: string,
    evidence: ReadonlyArray<Evidence | Mention> = [],
  ): this {
    this.allWeight += weight;
    if (score === undefined) {
      this.lowered.push(describe);
      return this;
    }
    const bounded = Math.min(100, Math.max(0, score));
    this.total += weight * bounded;
    this.observedWeight += weight;
    (bounded >= 50 ? this.raised : this.lowered).push(describe);
    this.keep(evidence);
    return this;
  }

  /** An observed fact that counts against the dimension (e.g. a stale changelog), with its own weight. */
  penalty(weight: number, describe: string, evidence: ReadonlyArray<Evidence | Mention> = []): this {
    this.against = true;
    this.allWeight += weight;
    this.observedWeight += weight;
    this.lowered.push(describe);
    this.keep(evidence);
    return this;
  }

  /** Up to 8 items; a quote stays marked as one, so honesty checks know which texts must be verbatim. */
  private keep(evidence: ReadonlyArray<Evidence | Mention>): void {
    for (const item of evidence) {
      if (this.evidence.length >= 8) return;
      this.evidence.push(
        item.quoted ? { url: item.url, text: item.text, quoted: true } : { url: item.url, text: item.text },
      );
    }
  }

  done(toRaise: string): DimensionAssessment {
    return {
      raw: this.allWeight > 0 ? this.total / this.allWeight : 0,
      coverage: this.allWeight > 0 ? this.observedWeight / this.allWeight : 0,
      evidence: this.evidence,
      raised: this.raised,
      lowered: this.lowered,
      toRaise,
      ...(this.against ? { counterEvidence: true } : {}),
    };
  }
}

/** "1 page", "3 pages". */
export const plural = (count: number, noun: string, nouns = `${noun}s`): string =>
  `${count} ${count === 1 ? noun : nouns}`;

/** A count on a curve (`median` scores 50, `p90` 90) when seen; "looked for, not found" (no coverage) when zero. */
export function counted(
  assessor: Assessor,
  weight: number,
  count: number,
  [median, p90]: readonly [number, number],
  seen: string,
  missing: string,
  evidence: ReadonlyArray<Evidence | Mention>,
): void {
  const score = count > 0 ? moreIsBetter(count, median, p90) : undefined;
  // Something seen, but less than usual, lowers the reading: say so, or "stack named: AWS" reads as a fault.
  const describe =
    count === 0 ? missing : score !== undefined && score < 50 ? `${seen}, fewer than the usual ${median}` : seen;
  assessor.signal(weight, score, describe, evidence);
}

/** A presence signal: found raises it by `score`, not found is "looked for, not seen". */
export function present(
  assessor: Assessor,
  weight: number,
  found: ReadonlyArray<Evidence | Mention>,
  score: number,
  yes: string,
  no: string,
): boolean {
  assessor.signal(weight, found.length > 0 ? score : undefined, found.length > 0 ? yes : no, found.slice(0, 1));
  return found.length > 0;
}

/** Named patterns: each kind of thing a rule counts (certifications, channels, providers …). */
export type Kinds = ReadonlyArray<readonly [name: string, pattern: RegExp]>;

/** The kinds the site mentions, each with its first sentence, in the order given. */
export function kindsFound(facts: SiteFacts, kinds: Kinds): Array<{ name: string; mention: Mention }> {
  return kinds.flatMap(([name, pattern]) =>
    facts.mentions(pattern, { limit: 1 }).map((mention) => ({ name, mention })),
  );
}
