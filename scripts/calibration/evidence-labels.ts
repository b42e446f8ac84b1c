import { existsSync, readFileSync } from "node:fs";
import type { ScoreResult } from "../../src/modules/scoring/scoring.types.js";

/**
 * The evidence selector's precision against a labelled set (calibration/evidence-labels.tsv):
 * (dimension, sentence) pairs from the calibration corpus, each marked relevant (1) or not (0)
 * to its dimension by an analyst. A quote the scorer shows as evidence for a dimension is
 * relevant when it is about that dimension (SOC 2 for compliance, not for target segments).
 *
 * TSV columns: label  dimension  site  sentence. Sentences are matched after collapsing
 * whitespace and dropping a final "…" (the scorer cuts long sentences there).
 */
export interface EvidenceLabel {
  readonly label: 0 | 1;
  readonly dimension: string;
  readonly site: string;
  readonly sentence: string;
}

export const LABELS_FILE = "calibration/evidence-labels.tsv";

export const normalise = (text: string): string => text.replace(/\s+/g, " ").replace(/…$/, "").trim().toLowerCase();

export function readLabels(path = LABELS_FILE): EvidenceLabel[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() && !line.startsWith("#") && !line.startsWith("label\t"))
    .map((line) => {
      const [label, dimension = "", site = "", ...rest] = line.split("\t");
      if (label !== "0" && label !== "1") throw new Error(`${path}: bad label in ${line.slice(0, 80)}`);
      return { label: Number(label) as 0 | 1, dimension, site, sentence: rest.join("\t") };
    });
}

export interface Quoted {
  readonly site: string;
  readonly dimension: string;
  readonly url: string;
  readonly sentence: string;
}

/** Every verbatim quote a result shows as evidence (self-reported context and observed facts excluded). */
export function quotesOf(site: string, result: ScoreResult): Quoted[] {
  return result.dimensions.flatMap((dimension) =>
    dimension.evidenceItems.filter((item) => item.quoted && item.url && !item.selfReported).map((item) => ({ site, dimension: dimension.dimensionId, url: item.url!, sentence: item.text })),
  );
}

export interface Precision {
  readonly quotes: number;
  readonly labelled: number;
  readonly relevant: number;
  readonly precision: number;
  readonly unlabelled: readonly Quoted[];
  readonly irrelevant: readonly Quoted[];
}

/** Precision over the quotes that are labelled; the unlabelled ones are listed, so the set can be extended. */
export function precisionOf(quotes: readonly Quoted[], labels: readonly EvidenceLabel[]): Precision {
  const byKey = new Map(labels.map((label) => [`${label.dimension}\u0000${normalise(label.sentence)}`, label.label]));
  const unlabelled: Quoted[] = [];
  const irrelevant: Quoted[] = [];
  let relevant = 0;
  let labelled = 0;
  for (const quote of quotes) {
    const label = byKey.get(`${quote.dimension}\u0000${normalise(quote.sentence)}`);
    if (label === undefined) {
      unlabelled.push(quote);
      continue;
    }
    labelled += 1;
    if (label === 1) relevant += 1;
    else irrelevant.push(quote);
  }
  return { quotes: quotes.length, labelled, relevant, precision: labelled > 0 ? relevant / labelled : NaN, unlabelled, irrelevant };
}
