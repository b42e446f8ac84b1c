/** Ranks with ties averaged (the ranks Spearman's ρ is defined over). */
export function ranks(values: readonly number[]): number[] {
  const order = values.map((value, index) => ({ value, index })).sort((a, b) => a.value - b.value);
  const result = new Array<number>(values.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]!.value === order[i]!.value) j += 1;
    for (let k = i; k <= j; k += 1) result[order[k]!.index] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return result;
}

/** Spearman's ρ: Pearson's correlation of the ranks, so ties are handled exactly. NaN below 3 pairs. */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length || xs.length < 3) return Number.NaN;
  const rx = ranks(xs);
  const ry = ranks(ys);
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const mx = mean(rx);
  const my = mean(ry);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < rx.length; i += 1) {
    sxy += (rx[i]! - mx) * (ry[i]! - my);
    sxx += (rx[i]! - mx) ** 2;
    syy += (ry[i]! - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? Number.NaN : sxy / Math.sqrt(sxx * syy);
}

/**
 * Two fixed halves stratified by level: within each level, sites in name order
 * alternate between "fit" and "held-out", so each half spans every level and
 * the split never depends on scores.
 */
export function halves<T extends { name: string; judged: number }>(sites: readonly T[]): { fit: T[]; heldOut: T[] } {
  const fit: T[] = [];
  const heldOut: T[] = [];
  const sorted = [...sites].sort((a, b) => a.judged - b.judged || (a.name < b.name ? -1 : 1));
  let level = 0;
  let index = 0;
  for (const site of sorted) {
    if (site.judged !== level) {
      level = site.judged;
      // Alternate the starting half by level, so odd-sized levels do not all favour one half.
      index = level % 2;
    }
    (index % 2 === 0 ? fit : heldOut).push(site);
    index += 1;
  }
  return { fit, heldOut };
}

export interface Misordering {
  readonly lower: string;
  readonly higher: string;
  /** How many points the site judged lower scored above the one judged higher. */
  readonly points: number;
  /** points × levels apart: what the misordering costs a reader of the ranking. */
  readonly cost: number;
}

/** Pairs judged at different levels whose totals are in the wrong order, costliest first. */
export function misorderings(rows: ReadonlyArray<{ name: string; judged: number; total: number }>): Misordering[] {
  const found: Misordering[] = [];
  for (const a of rows) {
    for (const b of rows) {
      if (a.judged < b.judged && a.total > b.total) {
        const points = a.total - b.total;
        found.push({ lower: a.name, higher: b.name, points, cost: points * (b.judged - a.judged) });
      }
    }
  }
  return found.sort((x, y) => y.cost - x.cost || (x.lower < y.lower ? -1 : 1));
}
