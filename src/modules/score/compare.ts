import { AppError } from "../../errors.js";
import { dimensions as frameworkDimensions } from "../scoring/framework/dimensions.js";
import type { Confidence } from "../scoring/scoring.types.js";
import type { DimensionView, ResultCore } from "./score-result.view.js";

/**
 * The comparison of two stored results (docs/api.md §13): the change FROM a baseline
 * TO a result, always "to minus from". Pure: both results are read before, by the
 * caller, under the same visibility rule as `GET /api/score/{id}`.
 */

/** At most this many evidence items per list (added, removed); the counts say how many there were. */
export const MAX_EVIDENCE_CHANGES = 50;

export type ComparedSide = Pick<
  ResultCore,
  | "id"
  | "url"
  | "companyName"
  | "totalScore"
  | "stageName"
  | "framework"
  | "frameworkVersion"
  | "mode"
  | "createdAt"
  | "held"
>;

export interface DimensionDelta {
  readonly dimensionId: string;
  readonly dimensionName: string;
  readonly pillar: string;
  /** Null when the dimension is absent from that side (another framework version). */
  readonly fromScore: number | null;
  readonly toScore: number | null;
  /** to − from; null when the dimension is not comparable. */
  readonly delta: number | null;
  readonly fromConfidence: Confidence | null;
  readonly toConfidence: Confidence | null;
  readonly confidenceChanged: boolean;
  readonly fromApplicable: boolean | null;
  readonly toApplicable: boolean | null;
  readonly comparable: boolean;
}

export interface EvidenceChange {
  readonly dimensionId: string;
  readonly quote: string;
  readonly url: string | null;
  readonly selfReported: boolean;
}

export interface EvidenceChanges {
  /** The first MAX_EVIDENCE_CHANGES, in dimension order then evidence order. */
  readonly items: readonly EvidenceChange[];
  readonly total: number;
  readonly truncated: boolean;
}

export interface ScoreComparison {
  readonly from: ComparedSide;
  readonly to: ComparedSide;
  readonly totalDelta: number;
  /** Null when both sides are at the same stage. */
  readonly stageChange: { readonly from: string; readonly to: string } | null;
  /** Same framework and framework version: every dimension means the same on both sides. */
  readonly comparable: boolean;
  /** Most moved first (|delta| descending, ties in framework order), the dimensions not comparable last. */
  readonly dimensions: readonly DimensionDelta[];
  readonly comparableDimensions: readonly string[];
  readonly incomparableDimensions: readonly string[];
  readonly evidenceAdded: EvidenceChanges;
  readonly evidenceRemoved: EvidenceChanges;
}

type Side = ComparedSide & { readonly dimensions: readonly DimensionView[] };

/**
 * Refuses what cannot be compared: two frameworks (their weights and stage ladders
 * differ, so neither totals nor stages mean the same), and two framework versions
 * unless the caller accepts it (`allowVersionMismatch`).
 */
export function assertComparable(to: ComparedSide, from: ComparedSide, allowVersionMismatch: boolean): void {
  if (to.framework !== from.framework) {
    throw new AppError(
      "VALIDATION_FAILED",
      `These results were scored with different frameworks (${to.framework} and ${from.framework}) and cannot be compared.`,
      {
        param: null,
        action: `Compare results of the same framework: score the address again with the ${from.framework} framework, or pick another ${to.framework} result.`,
      },
    );
  }
  if (to.frameworkVersion !== from.frameworkVersion && !allowVersionMismatch) {
    throw new AppError(
      "VALIDATION_FAILED",
      `allowVersionMismatch: these results were scored with framework versions ${to.frameworkVersion} and ${from.frameworkVersion}; scores of different versions are not compared silently.`,
      {
        param: "allowVersionMismatch",
        action:
          "Send allowVersionMismatch=true (GraphQL: allowVersionMismatch: true) to compare anyway; only the dimensions comparable under both versions get a delta.",
      },
    );
  }
}

/** The change from `from` to `to` (call `assertComparable` first). */
export function compareResults(to: Side, from: Side): ScoreComparison {
  const sameVersion = to.framework === from.framework && to.frameworkVersion === from.frameworkVersion;
  const deltas = dimensionDeltas(to.dimensions, from.dimensions, sameVersion);
  return {
    from: summary(from),
    to: summary(to),
    totalDelta: to.totalScore - from.totalScore,
    stageChange: to.stageName === from.stageName ? null : { from: from.stageName, to: to.stageName },
    comparable: sameVersion,
    dimensions: deltas,
    comparableDimensions: deltas.filter((d) => d.comparable).map((d) => d.dimensionId),
    incomparableDimensions: deltas.filter((d) => !d.comparable).map((d) => d.dimensionId),
    evidenceAdded: evidenceOnlyIn(to.dimensions, from.dimensions),
    evidenceRemoved: evidenceOnlyIn(from.dimensions, to.dimensions),
  };
}

function summary(side: Side): ComparedSide {
  const { id, url, companyName, totalScore, stageName, framework, frameworkVersion, mode, createdAt, held } = side;
  return { id, url, companyName, totalScore, stageName, framework, frameworkVersion, mode, createdAt, held };
}

/** Framework order of the dimension ids; ids unknown to this build sort after, by id. */
const order = new Map<string, number>(frameworkDimensions.map((definition, index) => [definition.id, index]));
const byFrameworkOrder = (a: string, b: string) =>
  (order.get(a) ?? order.size) - (order.get(b) ?? order.size) || a.localeCompare(b);

/**
 * One delta per dimension id of either side. Within one framework version every
 * dimension present on both sides is comparable (a dimension that stopped applying
 * is a real change, shown by `fromApplicable`/`toApplicable`). Across versions a
 * dimension is comparable only when both sides have it and it applies on both: its
 * rubric may have changed, and a dimension that does not apply sits at a prior.
 */
function dimensionDeltas(
  to: readonly DimensionView[],
  from: readonly DimensionView[],
  sameVersion: boolean,
): DimensionDelta[] {
  const toById = new Map(to.map((d) => [d.dimensionId as string, d]));
  const fromById = new Map(from.map((d) => [d.dimensionId as string, d]));
  const ids = [...new Set([...toById.keys(), ...fromById.keys()])].sort(byFrameworkOrder);
  const deltas = ids.map((id): DimensionDelta => {
    const after = toById.get(id);
    const before = fromById.get(id);
    const named = (after ?? before)!;
    const applies = (d: DimensionView | undefined) => (d ? d.applicable !== false : null);
    const comparable =
      after !== undefined && before !== undefined && (sameVersion || (applies(after)! && applies(before)!));
    return {
      dimensionId: id,
      dimensionName: named.dimensionName,
      pillar: named.pillar,
      fromScore: before?.score ?? null,
      toScore: after?.score ?? null,
      delta: comparable ? after.score - before.score : null,
      fromConfidence: before?.confidence ?? null,
      toConfidence: after?.confidence ?? null,
      confidenceChanged: after !== undefined && before !== undefined && after.confidence !== before.confidence,
      fromApplicable: applies(before),
      toApplicable: applies(after),
      comparable,
    };
  });
  // Stable sort: equal moves keep the framework order the ids were put in.
  return deltas.sort((a, b) => rank(b) - rank(a));
}

/** Comparable dimensions by how far they moved; the others after all of them. */
function rank(delta: DimensionDelta): number {
  return delta.delta === null ? -1 : Math.abs(delta.delta);
}

/**
 * Evidence of `these` whose normalized quote is not among `those` for the same
 * dimension. Where the quote was seen is not part of the match: the same sentence
 * found on another page is not new evidence.
 */
function evidenceOnlyIn(these: readonly DimensionView[], those: readonly DimensionView[]): EvidenceChanges {
  const known = new Set(those.flatMap((d) => d.evidenceItems.map((item) => evidenceKey(d.dimensionId, item.text))));
  const items: EvidenceChange[] = [];
  let total = 0;
  const seen = new Set<string>();
  for (const d of [...these].sort((a, b) => byFrameworkOrder(a.dimensionId, b.dimensionId))) {
    for (const item of d.evidenceItems) {
      const key = evidenceKey(d.dimensionId, item.text);
      if (known.has(key) || seen.has(key)) continue;
      seen.add(key);
      total += 1;
      if (items.length < MAX_EVIDENCE_CHANGES)
        items.push({
          dimensionId: d.dimensionId,
          quote: item.text,
          url: item.url ?? null,
          selfReported: item.selfReported === true,
        });
    }
  }
  return { items, total, truncated: total > items.length };
}

/** Case, Unicode forms, spacing, quote marks and a cut ("…") do not make another quote. */
export function normalizeQuote(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\u2018\u2019\u201c\u201d]/g, (mark) => (mark === "\u2018" || mark === "\u2019" ? "'" : '"'))
    .replace(/(?:\u2026|\.\.\.)/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\s.,;:!]+$/, "");
}

function evidenceKey(dimensionId: string, text: string): string {
  return `${dimensionId}\n${normalizeQuote(text)}`;
}
