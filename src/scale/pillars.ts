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

/** A pillar's score: the rounded mean of its dimensions in the result; null when the result has none of them. */
export function pillarAverage(
  dims: readonly { readonly pillar: string; readonly score: number }[],
  pillar: PillarId,
): number | null {
  const scores = dims.filter((dim) => dim.pillar === pillar).map((dim) => clampScore(dim.score));
  return scores.length === 0 ? null : Math.round(scores.reduce((sum, score) => sum + score, 0) / scores.length);
}
