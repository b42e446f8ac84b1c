import type { DimensionView, ScoreResultView } from "../modules/score/score-result.view.js";
import { pillarIds, type DimensionId, type Evidence } from "../modules/scoring/scoring.types.js";
import { dimensionById } from "../modules/scoring/framework/dimensions.js";
import { stageLadder } from "../modules/scoring/framework/stages.js";
import { STRENGTH_MIN_SCORE } from "../modules/scoring/aggregate.js";
import {
  NOT_APPLICABLE_COLOR,
  applies,
  esc,
  inFrameworkOrder,
  pillarAverage,
  pillarColors,
  pillarNames,
  radarChart,
  scoreBar,
  scoreGauge,
} from "./share-chart.js";
import { BASE_CSS, styleOnlyCsp } from "./page-style.js";
import type { Badge } from "../modules/score/badge.js";
import { badgeSection } from "./share-sections/badge.js";
import type { ScoreComparison } from "../modules/score/compare.js";
import { renderSinceSection } from "./share-sections/compare.js";
import type { PercentileAnswer } from "../modules/score/percentiles.js";
import { percentilesSection } from "./share-sections/percentiles.js";
import { trendSection, type TrendPoint } from "./share-sections/trend.js";

/**
 * The public share page `/r/{id}`: one self-contained HTML document for people.
 * No script, no external asset, one <style> element whose hash is the only style
 * source the CSP allows (sharePageCsp). Everything interpolated is escaped: names
 * and evidence come from crawled third-party sites.
 */

const STAGE_COLORS: Readonly<Record<string, string>> = {
  Foundation: "#dc2626",
  Developing: "#ea580c",
  Scaling: "#ca8a04",
  Compounding: "#16a34a",
  Leading: "#2563eb",
};

const CSS = `
${BASE_CSS}
.hero-grid{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:24px 56px;align-items:center}
.meta{margin:8px 0 0;color:#cbd5e1;overflow-wrap:anywhere}
.summary{display:flex;align-items:center;gap:24px}
.total{position:relative;width:136px;height:136px;flex:none}
.gauge{width:100%;height:100%;display:block}
.total-num{position:absolute;inset:0;display:flex;flex-direction:column;align-items:center;justify-content:center;font-size:2.75rem;font-weight:800;line-height:1}
.total-num small{font-size:.8rem;font-weight:500;color:#94a3b8;margin-top:4px}
.stage{min-width:0}
.stage-label{margin:0;font-size:.8rem;color:#94a3b8;text-transform:uppercase;letter-spacing:.08em}
.stage-name{margin:2px 0 0;font-size:1.9rem;font-weight:700;line-height:1.15}
.stage-note{margin:4px 0 0;color:#94a3b8;font-size:.85rem}
.ladder{list-style:none;margin:20px 0 0;padding:0;display:grid;grid-template-columns:repeat(5,minmax(0,1fr));gap:4px;width:min(100%,480px)}
.rung{font-size:.7rem;color:#94a3b8;min-width:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.rung::before{content:"";display:block;height:6px;border-radius:3px;background:#334155;margin-bottom:6px}
.rung.passed::before{background:#64748b}
.rung.current{color:#f8fafc;font-weight:700}
.rung.current::before{background:#a5b4fc}
.card>h2,.section-title{font-size:1.15rem;margin-bottom:14px}
.overview{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:24px;align-items:center}
.radar{width:100%;max-width:560px;height:auto;display:block;margin:0 auto;font-size:17px}
.radar-label{font-weight:650}.radar-avg{font-weight:800}.radar-tick{font-size:11px}
.legend{list-style:none;margin:0;padding:0;display:grid;gap:12px}
.legend li{display:grid;grid-template-columns:12px minmax(0,1fr) auto;gap:4px 10px;align-items:center;font-size:.9rem}
.legend .bar{grid-column:2/4}
.swatch{width:12px;height:12px;display:block}
.legend b{font-variant-numeric:tabular-nums}
.bar{width:100%;height:8px;display:block;border-radius:4px}
.two{margin-bottom:22px;display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,320px),1fr));gap:22px}
.two>.card{margin-bottom:0}
.hl{list-style:none;margin:0;padding:0}
.hl li{display:flex;justify-content:space-between;gap:12px;padding:8px 0;border-top:1px solid #f1f5f9}
.hl li:first-child{border-top:0}
.hl a{color:#0f172a;text-decoration:none}.hl a:hover{text-decoration:underline}
.hl .num{font-weight:700;font-variant-numeric:tabular-nums}
.strengths h2{color:#15803d}.gaps h2{color:#b45309}
.notes p{margin:0 0 10px}.notes ul{margin:0;padding-left:20px}.notes li{overflow-wrap:anywhere}
.pillar{margin:34px 0 8px}
.pillar-head{display:flex;align-items:baseline;justify-content:space-between;gap:12px;border-bottom:3px solid currentColor;padding-bottom:8px;margin-bottom:16px}
.pillar-head h2{font-size:1.35rem;color:#0f172a}
.pillar-avg{font-weight:800;font-size:1.35rem;font-variant-numeric:tabular-nums}
.pillar-avg small{font-size:.75rem;color:#64748b;font-weight:500}
${pillarIds.map((p) => `.p-${p}{color:${pillarColors[p]}}`).join("\n")}
.dims{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,340px),1fr));gap:16px}
.dim{background:#fff;border:1px solid #e2e8f0;border-radius:12px;padding:18px;min-width:0;overflow-wrap:anywhere}
.dim-head{display:flex;justify-content:space-between;align-items:baseline;gap:12px;margin-bottom:8px}
.dim h3{font-size:1.02rem}
.dim-score{font-size:1.5rem;font-weight:800;font-variant-numeric:tabular-nums;line-height:1}
.dim-score small{font-size:.7rem;color:#64748b;font-weight:500}
.tags{display:flex;flex-wrap:wrap;gap:6px;margin:12px 0 4px}
.tag{font-size:.72rem;font-weight:600;padding:2px 9px;border-radius:999px;background:#f1f5f9;color:#334155;border:1px solid #e2e8f0}
.st-Foundation{color:#b91c1c}.st-Developing{color:#c2410c}.st-Scaling{color:#a16207}.st-Compounding{color:#15803d}.st-Leading{color:#1d4ed8}
.conf-high{color:#15803d}.conf-medium{color:#a16207}.conf-low{color:#b91c1c}
.self{background:#fef3c7;color:#92400e;border-color:#fde68a}
.dim h4{font-size:.72rem;text-transform:uppercase;letter-spacing:.08em;color:#64748b;margin:14px 0 6px}
.evidence{margin:0;padding-left:18px;font-size:.9rem;color:#334155}
.evidence li{margin-bottom:6px}
.src{display:block;font-size:.8rem;color:#6366f1;overflow-wrap:anywhere}
.reasoning{margin:0;font-size:.9rem;color:#334155}
.muted{color:#64748b}
.dim.na{background:#f8fafc;border-style:dashed}
.dim-score.na,.tag.na{color:#64748b}
.held{margin:10px 0 0;color:#fde68a;font-size:.9rem}
@media (max-width:760px){.overview,.hero-grid{grid-template-columns:minmax(0,1fr)}.wrap{padding:0 16px}.hero{padding:28px 0 72px}.card{padding:18px}
  .total{width:112px;height:112px}.total-num{font-size:2.3rem}.stage-name{font-size:1.6rem}.ladder{width:100%}.rung{font-size:.6rem}
  .radar{font-size:19.5px}.radar-tick{font-size:13px}}
@media print{
  @page{margin:14mm}
  body{background:#fff;color:#000;font-size:11pt}
  .hero{background:none;color:#000;padding:0 0 12px;border-bottom:2px solid #0f172a}
  main.wrap{margin-top:16px}
  .hero a,.meta,.lede,.held,.stage-label,.stage-note,.eyebrow,.rung,.total-num small{color:#334155}
  .rung::before{background:#cbd5e1}.rung.passed::before{background:#94a3b8}.rung.current::before{background:#4338ca}
  .rung.current{color:#000}
  .card,.dim{box-shadow:none;border-color:#cbd5e1;background:none}
  .tag{background:none}
  .dim,.card,.legend li,.hl li{break-inside:avoid}
  .pillar-head,h2,h3{break-after:avoid}
  .wrap{max-width:none;padding:0}
  a{color:#000;text-decoration:underline}
  a[href^="http"]:not(.bare)::after{content:" (" attr(href) ")";font-size:.8em;color:#475569;overflow-wrap:anywhere}
}
`.trim();

const SAFE_PROTOCOLS = new Set(["http:", "https:"]);

/** An http(s) URL as a link, anything else as plain text. */
function link(url: string, text: string, cls = ""): string {
  let safe: URL | null = null;
  try {
    safe = new URL(url);
  } catch {
    safe = null;
  }
  const attr = cls ? ` class="${esc(cls)}"` : "";
  if (safe === null || !SAFE_PROTOCOLS.has(safe.protocol)) return `<span${attr}>${esc(text)}</span>`;
  return `<a href="${esc(safe.href)}" rel="nofollow noopener noreferrer"${attr}>${esc(text)}</a>`;
}

/** "example.com/pricing" for display; the full URL stays in the href. */
function shortUrl(url: string, max = 64): { text: string; whole: boolean } {
  const text = url.replace(/^https?:\/\//i, "").replace(/\/$/, "");
  return text.length > max ? { text: `${text.slice(0, max - 1)}…`, whole: false } : { text, whole: true };
}

function num(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value)) : "–";
}

function stageClass(stage: string): string {
  return stageLadder.some((rung) => rung.name === stage) ? `st-${stage}` : "";
}

function dimensionName(id: DimensionId, dims: readonly DimensionView[]): string {
  return dims.find((dim) => dim.dimensionId === id)?.dimensionName ?? dimensionById.get(id)?.name ?? id;
}

function evidenceItem(item: Evidence): string {
  const source = item.url ? shortUrl(item.url) : null;
  const src = item.url && source ? ` ${link(item.url, source.text, source.whole ? "src bare" : "src")}` : "";
  const self = item.selfReported ? ` <span class="tag self">Self-reported</span>` : "";
  return `<li>${esc(item.text)}${self}${src}</li>`;
}

function dimensionCard(dim: DimensionView): string {
  const conf = ["high", "medium", "low"].includes(dim.confidence) ? dim.confidence : "low";
  const counts = applies(dim);
  const items =
    dim.evidenceItems.length > 0
      ? `<ul class="evidence">${dim.evidenceItems.map(evidenceItem).join("")}</ul>`
      : `<p class="reasoning${dim.evidence ? "" : " muted"}">${esc(dim.evidence || "No public evidence found.")}</p>`;
  return (
    `<article class="dim${counts ? "" : " na"}" id="dim-${esc(dim.dimensionId)}">` +
    `<div class="dim-head"><h3>${esc(dim.dimensionName)}</h3><span class="dim-score ${counts ? `p-${esc(dim.pillar)}` : "na"}">${num(dim.score)}<small>/100</small></span></div>` +
    scoreBar(dim.score, counts ? (pillarColors[dim.pillar] ?? "#475569") : NOT_APPLICABLE_COLOR) +
    `<div class="tags">` +
    (counts
      ? `<span class="tag ${stageClass(dim.stageName)}">${esc(dim.stageName)}</span><span class="tag conf-${conf}">${esc(conf)} confidence</span>`
      : `<span class="tag na">Does not apply</span><span class="tag">Not in the averages</span>`) +
    `</div>` +
    `<h4>Evidence</h4>${items}<h4>Reasoning</h4><p class="reasoning">${esc(dim.reasoning)}</p></article>`
  );
}

function highlights(
  title: string,
  cls: string,
  ids: readonly DimensionId[],
  dims: readonly DimensionView[],
  none = "None identified.",
): string {
  const rows = ids.map((id) => {
    const dim = dims.find((d) => d.dimensionId === id);
    return `<li><a href="#dim-${esc(id)}" class="bare">${esc(dimensionName(id, dims))}</a><span class="num">${dim ? num(dim.score) : ""}</span></li>`;
  });
  return `<section class="card ${cls}"><h2>${esc(title)}</h2>${rows.length ? `<ul class="hl">${rows.join("")}</ul>` : `<p class="muted">${esc(none)}</p>`}</section>`;
}

const longDate = new Intl.DateTimeFormat("en", { dateStyle: "long", timeZone: "UTC" });

/** A held (anonymous, unclaimed) result says when it is deleted; a claimed one is kept. */
function heldNotice(result: ScoreResultView): string {
  const end = result.held && result.expiresAt ? new Date(result.expiresAt) : null;
  if (!end || Number.isNaN(end.getTime())) return "";
  return (
    `<p class="held">Kept until <time datetime="${esc(end.toISOString())}">${esc(longDate.format(end))}</time> unless claimed: ` +
    `an anonymous result is deleted then, unless linked to an account with its claim token.</p>\n`
  );
}

export function renderSharePage(
  result: ScoreResultView,
  options: {
    publicBaseUrl: string;
    /** The result's badge and its snippets (share-sections/badge.ts). */
    badge?: Badge;
    /** The change from the previous result of its series (docs/api.md §13), when there is one. */
    since?: ScoreComparison;
    /** The result against the population of its framework version (a section after strengths and gaps). */
    percentiles?: PercentileAnswer | undefined;
    /** A product result's trend: the product's totals up to this result, oldest first. */
    trend?: readonly TrendPoint[];
  },
): string {
  const dims = inFrameworkOrder(result.dimensions);
  const company = result.companyName.trim() || shortUrl(result.url).text;
  const total = num(result.totalScore);
  const shareUrl = `${options.publicBaseUrl.replace(/\/+$/, "")}/r/${encodeURIComponent(result.id)}`;
  const title = `${company} scores ${total}/100 — ${result.stageName}`;
  const strengthNames = result.strengths.map((id) => dimensionName(id, dims));
  const description = strengthNames.length
    ? `Product maturity report for ${company}. Strongest: ${strengthNames.slice(0, 3).join(", ")}.`
    : `Product maturity report for ${company}: ${total}/100 across 27 dimensions in 6 pillars.`;
  const created = new Date(result.createdAt);
  const dated = Number.isNaN(created.getTime())
    ? ""
    : ` · <time datetime="${esc(created.toISOString().slice(0, 10))}">${esc(longDate.format(created))}</time>`;
  const keptUntil = heldNotice(result);
  const stageIndex = stageLadder.findIndex((rung) => rung.name === result.stageName);
  const next = stageIndex >= 0 ? stageLadder[stageIndex + 1] : undefined;
  const stageNote = next
    ? `${Math.max(0, next.from - Math.round(result.totalScore))} points to ${next.name}`
    : "Top of the ladder";
  const ladder = stageLadder
    .map(
      (rung, i) =>
        `<li class="rung${i === stageIndex ? " current" : i < stageIndex ? " passed" : ""}">${esc(rung.name)}</li>`,
    )
    .join("");
  const legend = pillarIds
    .map((p) => {
      const avg = pillarAverage(dims, p);
      return (
        `<li><svg class="swatch" viewBox="0 0 12 12" aria-hidden="true"><rect width="12" height="12" rx="3" fill="${pillarColors[p]}"/></svg>` +
        `<span>${esc(pillarNames[p])}</span><b>${avg ?? "–"}</b>${scoreBar(avg ?? 0, pillarColors[p])}</li>`
      );
    })
    .join("");
  const pillars = pillarIds
    .map((p) => {
      const inPillar = dims.filter((dim) => dim.pillar === p);
      if (inPillar.length === 0) return "";
      return (
        `<section class="pillar" id="pillar-${p}" aria-labelledby="h-${p}"><div class="pillar-head p-${p}"><h2 id="h-${p}">${esc(pillarNames[p])}</h2>` +
        `<span class="pillar-avg">${pillarAverage(dims, p) ?? "–"}<small> avg</small></span></div>` +
        `<div class="dims">${inPillar.map(dimensionCard).join("")}</div></section>`
      );
    })
    .join("");
  const notes = result.crossDimensionNotes.trim()
    ? `<section class="card notes"><h2>Across dimensions</h2><p>${esc(result.crossDimensionNotes)}</p></section>`
    : "";
  const anti = result.antiPatternsDetected.length
    ? `<section class="card notes"><h2>Anti-patterns detected</h2><ul>${result.antiPatternsDetected.map((a) => `<li>${esc(a)}</li>`).join("")}</ul></section>`
    : "";
  const site = shortUrl(result.url);
  const siteLink = link(result.url, site.text, site.whole ? "bare" : "");
  const pages = result.crawlStats?.pagesAnalyzed ?? result.crawledPages.length;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<meta name="description" content="${esc(description)}">
<link rel="canonical" href="${esc(shareUrl)}">
<link rel="icon" href="data:,">
<meta property="og:type" content="website">
<meta property="og:title" content="${esc(title)}">
<meta property="og:description" content="${esc(description)}">
<meta property="og:url" content="${esc(shareUrl)}">
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="${esc(title)}">
<meta name="twitter:description" content="${esc(description)}">
<style>${CSS}</style>
</head>
<body>
<header class="hero"><div class="wrap hero-grid">
<div>
<p class="eyebrow">Product maturity report</p>
<h1>${esc(company)}</h1>
<p class="meta">${siteLink}${dated}</p>
<p class="lede">Scored on 27 dimensions in 6 pillars from ${esc(num(pages))} public pages.</p>
${keptUntil}</div>
<div>
<div class="summary">
<div class="total">${scoreGauge(result.totalScore, STAGE_COLORS[result.stageName] ?? "#818cf8")}<div class="total-num">${esc(total)}<small>out of 100</small></div></div>
<div class="stage"><p class="stage-label">Stage</p><p class="stage-name">${esc(result.stageName)}</p><p class="stage-note">${esc(stageNote)}</p></div>
</div>
<ol class="ladder" aria-label="Stage ladder">${ladder}</ol>
</div>
</div></header>
<main class="wrap">
<section class="card overview" aria-label="Scores by pillar"><div>${radarChart(dims, company)}</div><div><h2 class="section-title">Pillars</h2><ul class="legend">${legend}</ul></div></section>
${trendSection(options.trend ?? [])}
<div class="two">${highlights("Strengths", "strengths", result.strengths, dims, `None yet: no dimension scores ${STRENGTH_MIN_SCORE} or more with high or medium confidence.`)}${highlights("Gaps", "gaps", result.gaps, dims)}</div>
${options.since ? renderSinceSection(options.since, `${options.publicBaseUrl.replace(/\/+$/, "")}/r/${encodeURIComponent(options.since.from.id)}`) : ""}
${options.percentiles ? percentilesSection(options.percentiles, dims) : ""}
${notes}${anti}
${pillars}
${options.badge ? badgeSection(options.badge, result.id) : ""}
</main>
<footer class="wrap">
<p>Framework: <strong>${esc(result.framework)}</strong> v${esc(result.frameworkVersion)} · Mode: ${esc(result.mode)} · ${esc(num(pages))} ${pages === 1 ? "page" : "pages"} analysed</p>
<p>Scored from public pages of ${siteLink}; self-reported evidence is labelled. Report ${esc(result.id)}.</p>
</footer>
</body>
</html>
`;
}

/** The CSP for a page renderSharePage made: its <style> elements by hash, and images of its own origin (the badge). */
export const sharePageCsp = (html: string): string =>
  styleOnlyCsp(html).replace("img-src data:", "img-src 'self' data:");
