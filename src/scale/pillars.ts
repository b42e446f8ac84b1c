/**
 * The six pillars of the scale (docs/api.md §1–§3) and how one pillar's score is
 * read off a result: the share page draws it, the `pms` CLI gates on it. A leaf,
 * so the server and the installable client share one definition.
 */

export const pillarIds = [
  "market_strategy",
  "product_experience",
  "engineering_delivery",
  "data_ai_economics",
  "trust_enterprise",
  "growth_organization",
] as const;
export type PillarId = (typeof pillarIds)[number];

/** Each pillar as the share page and the reports write it. */
export const pillarNames: Readonly<Record<PillarId, string>> = {
  market_strategy: "Market & Strategy",
  product_experience: "Product & Experience",
  engineering_delivery: "Engineering & Delivery",
  data_ai_economics: "Data, AI & Economics",
  trust_enterprise: "Trust & Enterprise",
  growth_organization: "Growth & Organization",
};

/** A score as a finite 0–100 number. */
export function clampScore(score: number): number {
  return Number.isFinite(score) ? Math.min(100, Math.max(0, score)) : 0;
}

/** The part of a dimension a pillar's score reads: a server view and a REST answer's dimension alike. */
export interface PillarDimension {
  readonly pillar: string;
  readonly score: number;
  /** False: the dimension does not apply to what the product sells. Absent (older answers): it applies. */
  readonly applicable?: boolean;
}

/** Whether a dimension counts: one that does not apply to what the product sells stays outside every average. */
export function applies(dim: Pick<PillarDimension, "applicable">): boolean {
  return dim.applicable !== false;
}

/**
 * A pillar's score: the rounded mean of its dimensions in the result that apply;
 * null when the result has none of them (or none applies). The share page draws
 * it and the `pms` CLI gates on it, with the same dimensions.
 */
export function pillarAverage(dims: readonly PillarDimension[], pillar: PillarId): number | null {
  const scores = dims.filter((dim) => dim.pillar === pillar && applies(dim)).map((dim) => clampScore(dim.score));
  return scores.length === 0 ? null : Math.round(scores.reduce((sum, score) => sum + score, 0) / scores.length);
}
