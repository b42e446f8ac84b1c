/**
 * Calibrated curves in the manner of Lighthouse's log-normal scoring: a count or
 * a cadence maps onto 0–100 smoothly, so scores spread across the range instead
 * of jumping at thresholds. Pure functions of their inputs.
 */

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(z)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(z * z) / 2);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

const Z90 = 1.2815515655446004;

/**
 * More is better: 0 scores 0, `median` scores 50, `p90` scores 90, with a
 * log-normal curve in between and beyond (e.g. 4 pricing tiers against a median of 3).
 */
export function moreIsBetter(value: number, median: number, p90: number): number {
  if (!(value > 0)) return 0;
  const sigma = (Math.log(p90) - Math.log(median)) / Z90;
  return 100 * normalCdf((Math.log(value) - Math.log(median)) / sigma);
}

/**
 * Less is better (e.g. days since the newest changelog entry): `p10` scores 90,
 * `median` scores 50, larger values fall towards 0.
 */
export function lessIsBetter(value: number, p10: number, median: number): number {
  if (value <= 0) return 100;
  const sigma = (Math.log(median) - Math.log(p10)) / Z90;
  return 100 * (1 - normalCdf((Math.log(value) - Math.log(median)) / sigma));
}

/** Weighted mean of the parts that apply; 0 when none does. */
export function weighted(parts: ReadonlyArray<readonly [weight: number, score: number]>): number {
  let total = 0;
  let weights = 0;
  for (const [weight, score] of parts) {
    total += weight * score;
    weights += weight;
  }
  return weights > 0 ? total / weights : 0;
}

export const clamp = (value: number, low = 0, high = 100): number => Math.min(high, Math.max(low, value));
