import type { DimensionView } from "../modules/score/score-result.view.js";
import { dimensionIds, pillarIds, type PillarId } from "../modules/scoring/scoring.types.js";
import { stageLadder } from "../modules/scoring/framework/stages.js";
import { clampScore, pillarAverage as scalePillarAverage, pillarNames } from "../scale/pillars.js";

// The pillar names are the scale's (a leaf the CLI gates with too); the share page re-exports them. Its
// averages leave out the dimensions that do not apply, which the API does not mark (see pillarAverage).
export { clampScore, pillarNames };

/** Server-drawn SVG for the share page: no script, no external assets, presentation attributes only (the CSP allows no style="…"). */

export const pillarColors: Readonly<Record<PillarId, string>> = {
  market_strategy: "#4f46e5",
  product_experience: "#0284c7",
  engineering_delivery: "#0d9488",
  data_ai_economics: "#9333ea",
  trust_enterprise: "#d97706",
  growth_organization: "#db2777",
};

/** The grey of a dimension that does not apply (bars, dots). */
export const NOT_APPLICABLE_COLOR = "#94a3b8";

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text and attribute values alike. */
export function esc(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

/** Dimensions in the framework's order, whatever order they arrive in. */
export function inFrameworkOrder(dims: readonly DimensionView[]): DimensionView[] {
  const rank = (id: string) => {
    const index = (dimensionIds as readonly string[]).indexOf(id);
    return index === -1 ? dimensionIds.length : index;
  };
  return [...dims].sort((a, b) => rank(a.dimensionId) - rank(b.dimensionId));
}

/** Whether a dimension counts: one that does not apply to what the site sells is shown apart, outside every average. */
export function applies(dim: DimensionView): boolean {
  return dim.applicable !== false;
}

/** The scale's pillar average over the dimensions that apply; null when none does. */
export function pillarAverage(dims: readonly DimensionView[], pillar: PillarId): number | null {
  return scalePillarAverage(dims.filter(applies), pillar);
}

const f = (n: number) => n.toFixed(1);
const LINE = 20;

/** A thin horizontal bar (0–100) with the stage thresholds as ticks. */
export function scoreBar(score: number, color: string): string {
  const ticks = stageLadder
    .filter((rung) => rung.from > 0)
    .map((rung) => `<rect x="${rung.from - 0.2}" width="0.4" height="8" fill="#ffffff" fill-opacity="0.8"/>`);
  return (
    `<svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">` +
    `<rect width="100" height="8" fill="#e2e8f0"/><rect width="${f(clampScore(score))}" height="8" fill="${esc(color)}"/>${ticks.join("")}</svg>`
  );
}

/** The total as a ring gauge. */
export function scoreGauge(total: number, color: string): string {
  const r = 52;
  const circumference = 2 * Math.PI * r;
  const filled = (clampScore(total) / 100) * circumference;
  return (
    `<svg class="gauge" viewBox="0 0 128 128" aria-hidden="true" focusable="false">` +
    `<circle cx="64" cy="64" r="${r}" fill="none" stroke="#e2e8f0" stroke-opacity="0.35" stroke-width="12"/>` +
    `<circle cx="64" cy="64" r="${r}" fill="none" stroke="${esc(color)}" stroke-width="12" stroke-linecap="round" ` +
    `stroke-dasharray="${f(filled)} ${f(circumference)}" transform="rotate(-90 64 64)"/></svg>`
  );
}

/** Radar of every dimension (framework order) over one tinted sector per pillar. */
export function radarChart(input: readonly DimensionView[], companyName: string): string {
  const dims = inFrameworkOrder(input);
  const n = Math.max(dims.length, 1);
  const [cx, cy, R] = [320, 245, 165];
  const step = (2 * Math.PI) / n;
  const angle = (i: number) => -Math.PI / 2 + i * step;
  const at = (a: number, radius: number): [number, number] => [cx + radius * Math.cos(a), cy + radius * Math.sin(a)];
  const pt = (a: number, radius: number) => at(a, radius).map(f).join(",");

  const sectors: string[] = [];
  const labels: string[] = [];
  for (const pillar of pillarIds) {
    const indices = dims.flatMap((dim, i) => (dim.pillar === pillar ? [i] : []));
    const first = indices[0];
    const last = indices[indices.length - 1];
    if (first === undefined || last === undefined) continue;
    const [a0, a1] = [angle(first) - step / 2, angle(last) + step / 2];
    const color = pillarColors[pillar];
    sectors.push(
      `<path d="M${cx},${cy} L${pt(a0, R)} A${R},${R} 0 ${a1 - a0 > Math.PI ? 1 : 0} 1 ${pt(a1, R)} Z" fill="${color}" fill-opacity="0.07" stroke="${color}" stroke-opacity="0.35"/>`,
    );
    const mid = (a0 + a1) / 2;
    const [lx, ly] = at(mid, R + 18);
    const anchor = Math.cos(mid) > 0.3 ? "start" : Math.cos(mid) < -0.3 ? "end" : "middle";
    const lines = [...pillarNames[pillar].replace(" & ", " &\n").split("\n"), `${pillarAverage(dims, pillar) ?? "–"}`];
    const top =
      Math.sin(mid) > 0.3
        ? ly + 15
        : Math.sin(mid) < -0.3
          ? ly - (lines.length - 1) * LINE
          : ly - ((lines.length - 1) * LINE) / 2 + 5;
    const tspans = lines.map(
      (line, k) =>
        `<tspan x="${f(lx)}" y="${f(top + k * LINE)}"${k === lines.length - 1 ? ` class="radar-avg" fill="${color}"` : ""}>${esc(line)}</tspan>`,
    );
    labels.push(`<text class="radar-label" text-anchor="${anchor}" fill="#334155">${tspans.join("")}</text>`);
  }

  const tick = (v: number) => at(angle(0) + step / 2, (R * v) / 100);
  const rings = stageLadder
    .filter((rung) => rung.from > 0)
    .map((rung) => rung.from)
    .concat(100)
    .map(
      (v) =>
        `<circle cx="${cx}" cy="${cy}" r="${f((R * v) / 100)}" fill="none" stroke="#94a3b8" stroke-opacity="0.5" stroke-dasharray="${v === 100 ? "none" : "3 4"}"/>` +
        `<text x="${f(tick(v)[0])}" y="${f(tick(v)[1] + 4)}" class="radar-tick" text-anchor="middle" fill="#64748b" stroke="#ffffff" stroke-width="3" paint-order="stroke">${v}</text>`,
    );
  const spokes = dims.map((dim, i) => {
    const [x, y] = at(angle(i), R);
    const dash = applies(dim) ? "" : ` stroke-dasharray="3 3"`;
    return `<line x1="${cx}" y1="${cy}" x2="${f(x)}" y2="${f(y)}" stroke="#cbd5e1" stroke-width="0.75"${dash}/>`;
  });
  // A dimension that does not apply is not a vertex of the shape: its low prior would draw a dent
  // the total does not have. It is shown as a hollow grey dot instead.
  const shape = dims
    .flatMap((dim, i) => (applies(dim) ? [pt(angle(i), (R * clampScore(dim.score)) / 100)] : []))
    .join(" ");
  // Such a dot sits on the rim at the end of its dashed spoke: at its prior it would hide in the centre.
  const dots = dims.map((dim, i) => {
    const [x, y] = at(angle(i), applies(dim) ? (R * clampScore(dim.score)) / 100 : R);
    const score = esc(Math.round(clampScore(dim.score)));
    return applies(dim)
      ? `<circle cx="${f(x)}" cy="${f(y)}" r="4.5" fill="${pillarColors[dim.pillar] ?? "#475569"}" stroke="#ffffff" stroke-width="1.5"><title>${esc(dim.dimensionName)}: ${score}</title></circle>`
      : `<circle class="radar-na" cx="${f(x)}" cy="${f(y)}" r="5" fill="#ffffff" stroke="${NOT_APPLICABLE_COLOR}" stroke-width="2"><title>${esc(dim.dimensionName)}: does not apply (${score}, not counted)</title></circle>`;
  });
  const summary = pillarIds.map((p) => `${pillarNames[p]} ${pillarAverage(dims, p) ?? "n/a"}`).join(", ");
  const excused = dims.filter((dim) => !applies(dim)).length;
  const excusedNote = excused
    ? ` ${excused} ${excused === 1 ? "dimension does" : "dimensions do"} not apply: drawn as hollow grey dots on the rim, outside the shape and the averages.`
    : "";

  return (
    `<svg class="radar" viewBox="0 0 640 490" role="img" aria-labelledby="radar-title radar-desc" focusable="false">` +
    `<title id="radar-title">${esc(`${companyName}: scores for ${dims.length} dimensions in 6 pillars`)}</title>` +
    `<desc id="radar-desc">${esc(`Radar chart, each axis one dimension (0 at the centre, 100 at the edge). Pillar averages: ${summary}.${excusedNote}`)}</desc>` +
    sectors.join("") +
    rings.join("") +
    spokes.join("") +
    `<polygon points="${shape}" fill="#4f46e5" fill-opacity="0.16" stroke="#4338ca" stroke-width="2" stroke-linejoin="round"/>` +
    dots.join("") +
    labels.join("") +
    `</svg>`
  );
}
