import type { ScoreComparison } from "../../modules/score/compare.js";
import { esc } from "../share-chart.js";

/**
 * "Since the previous score": the share page's section comparing a result with the
 * one before it in its series (ScoreResultsService.previousOf: the same product, or
 * the same address in the same account). It names only the two results' own
 * figures and links the earlier one's share page, never anything else of the account.
 * Its style travels with it in its own <style> element, which the page's CSP allows
 * by hash like the page's own.
 */

/** How many moved dimensions the section lists. */
export const SINCE_TOP = 5;

const CSS = `
.since h2{font-size:1.15rem;margin-bottom:14px}
.since-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:8px 20px;margin:0 0 14px}
.since-total{font-size:1.6rem;font-weight:800;font-variant-numeric:tabular-nums}
.since-up{color:#15803d}.since-down{color:#b91c1c}.since-flat{color:#475569}
.since-stage{font-weight:650}
.since-note{margin:0 0 12px;color:#64748b;font-size:.9rem}
.since-list{list-style:none;margin:0 0 14px;padding:0;display:grid;gap:6px;max-width:680px}
.since-list li{display:grid;grid-template-columns:minmax(0,1fr) auto auto;gap:4px 14px;align-items:baseline;border-bottom:1px solid #f1f5f9;padding:4px 0}
.since-list .from-to{color:#64748b;font-variant-numeric:tabular-nums;font-size:.9rem}
.since-list .delta{font-weight:750;font-variant-numeric:tabular-nums;min-width:3.2em;text-align:right}
@media (max-width:520px){.since-list li{grid-template-columns:minmax(0,1fr) auto}.since-list .from-to{grid-column:1/3;grid-row:2}}
`;

const longDate = new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" });
const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${Math.abs(n)}` : "±0");
const tone = (n: number) => (n > 0 ? "since-up" : n < 0 ? "since-down" : "since-flat");

export function renderSinceSection(comparison: ScoreComparison, previousShareUrl: string): string {
  const { from, totalDelta, stageChange } = comparison;
  const when = new Date(from.createdAt);
  const dated = Number.isNaN(when.getTime())
    ? ""
    : ` on <time datetime="${esc(when.toISOString().slice(0, 10))}">${esc(longDate.format(when))}</time>`;
  const stage = stageChange
    ? `<span class="since-stage">${esc(stageChange.from)} → ${esc(stageChange.to)}</span>`
    : `<span class="since-flat">Stage unchanged (${esc(comparison.to.stageName)})</span>`;
  const moved = comparison.dimensions.filter((d) => d.delta !== null && d.delta !== 0).slice(0, SINCE_TOP);
  const rows = moved
    .map(
      (d) =>
        `<li><a href="#dim-${esc(d.dimensionId)}" class="bare">${esc(d.dimensionName)}</a>` +
        `<span class="from-to">${esc(d.fromScore)} → ${esc(d.toScore)}</span>` +
        `<span class="delta ${tone(d.delta!)}">${esc(signed(d.delta!))}</span></li>`,
    )
    .join("");
  const versions = comparison.comparable
    ? ""
    : `<p class="since-note">Scored with framework v${esc(from.frameworkVersion)} then v${esc(comparison.to.frameworkVersion)}: ` +
      `${esc(comparison.incomparableDimensions.length)} dimension(s) are not compared.</p>`;
  return (
    `<style>${CSS}</style>` +
    `<section class="card since" aria-labelledby="since-h"><h2 id="since-h">Since the previous score</h2>` +
    `<p class="since-head"><span class="since-total ${tone(totalDelta)}">${esc(signed(totalDelta))}</span>` +
    `<span>${esc(from.totalScore)} → ${esc(comparison.to.totalScore)} out of 100</span>${stage}</p>` +
    versions +
    (rows
      ? `<ul class="since-list" aria-label="Most moved dimensions">${rows}</ul>`
      : `<p class="since-note">No dimension moved.</p>`) +
    `<p class="since-note">Compared with <a href="${esc(previousShareUrl)}">the previous report</a>${dated}; ` +
    `${esc(comparison.evidenceAdded.total)} pieces of evidence added, ${esc(comparison.evidenceRemoved.total)} removed.</p>` +
    `</section>`
  );
}
