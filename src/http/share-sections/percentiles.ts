import type { DimensionRank, PercentileAnswer } from "../../modules/score/percentiles.js";
import type { DimensionView } from "../../modules/score/score-result.view.js";
import { esc } from "../share-chart.js";

/** How many of the best and of the weakest dimension ranks the section names. */
const SHOWN = 3;

// Its own <style> element: the page's CSP allows every <style> of the page by hash.
const CSS =
  ".pct h2{font-size:1.15rem;margin-bottom:6px}" +
  ".pct-total{margin:0 0 14px;color:#334155}" +
  ".pct-total b{font-size:1.35rem;color:#0f172a}" +
  ".pct-cols{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:8px 28px}" +
  ".pct h3{font-size:.8rem;text-transform:uppercase;letter-spacing:.08em;color:#64748b;margin:0 0 6px}" +
  ".pct ul{list-style:none;margin:0;padding:0}" +
  ".pct li{display:flex;justify-content:space-between;gap:12px;padding:5px 0;border-bottom:1px solid #f1f5f9}" +
  ".pct li span{min-width:0;overflow-wrap:anywhere}" +
  ".pct li b{white-space:nowrap;font-variant-numeric:tabular-nums}" +
  ".pct .muted{color:#64748b;margin:0}" +
  ".pct .pct-note{font-size:.8rem;margin-top:12px}" +
  "@media (max-width:760px){.pct-cols{grid-template-columns:minmax(0,1fr)}}";

const percent = (value: number): string => `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
/**
 * "top 15%" in the upper half, "bottom 10%" in the lower: the share of sites at or
 * above the score, or at or below it (2 × percentile − share strictly above).
 */
const standing = (rank: { topPercent: number; percentile: number }): string => {
  if (rank.topPercent <= 50) return `top ${percent(rank.topPercent)}`;
  const atOrBelow = Math.round(10 * Math.min(100, Math.max(0, 2 * rank.percentile - (100 - rank.topPercent)))) / 10;
  return `bottom ${percent(atOrBelow)}`;
};

/**
 * "Among N scored sites": the total's rank, and the dimensions ranking best and
 * weakest against the population (docs/api.md §13); the reason when there is none.
 * Aggregates only: the population never names another site.
 */
export function percentilesSection(answer: PercentileAnswer, dims: readonly DimensionView[]): string {
  const sites = answer.population.toLocaleString("en-US");
  const title = `Among ${sites} scored site${answer.population === 1 ? "" : "s"}`;
  if (!answer.available || !answer.total)
    return `<style>${CSS}</style><section class="card pct" id="percentiles"><h2>${esc(title)}</h2><p class="muted">${esc(answer.reason ?? "No percentiles yet.")}</p></section>`;
  const name = (rank: DimensionRank) =>
    dims.find((dim) => dim.dimensionId === rank.dimensionId)?.dimensionName ?? rank.dimensionId;
  const byRank = [...answer.dimensions].sort(
    (a, b) => b.percentile - a.percentile || a.dimensionId.localeCompare(b.dimensionId),
  );
  const best = byRank.slice(0, SHOWN);
  const weakest = byRank.slice(SHOWN).slice(-SHOWN).reverse();
  const rows = (ranks: readonly DimensionRank[]) =>
    ranks.map((rank) => `<li><span>${esc(name(rank))}</span><b>${esc(standing(rank))}</b></li>`).join("");
  return (
    `<style>${CSS}</style><section class="card pct" id="percentiles"><h2>${esc(title)}</h2>` +
    `<p class="pct-total">Total: <b>${esc(standing(answer.total))}</b> · scores higher than ${esc(percent(answer.total.percentile))} of them (ties count half)</p>` +
    `<div class="pct-cols"><div><h3>Ranks best</h3><ul>${rows(best)}</ul></div>` +
    (weakest.length ? `<div><h3>Ranks weakest</h3><ul>${rows(weakest)}</ul></div>` : "") +
    `</div><p class="muted pct-note">Each site counts once, by its latest full score with the same framework version.</p></section>`
  );
}
