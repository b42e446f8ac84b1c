import { esc } from "../share-chart.js";

/** One point of the product's trend as the share page draws it. */
export interface TrendPoint {
  readonly total: number;
  readonly createdAt: Date;
}

const WIDTH = 640;
const HEIGHT = 180;
const PAD_X = 28;
const PAD_Y = 28;
const day = new Intl.DateTimeFormat("en", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });

/**
 * The product's totals up to this result, oldest first, as a small line without
 * axes (docs/api.md §13): labelled with the first and last values (the note under it
 * says them again with their dates: the labels are small on a phone), and described
 * for screen readers by its <title> and <desc>. Nothing below two points.
 * Presentation attributes only (no style attribute): the page's CSP allows its one
 * hashed <style> element and nothing else.
 */
export function trendSection(points: readonly TrendPoint[]): string {
  if (points.length < 2) return "";
  const first = points[0]!;
  const last = points.at(-1)!;
  const x = (i: number) => PAD_X + (i * (WIDTH - 2 * PAD_X)) / (points.length - 1);
  // The totals' own range (at least 10 points tall), not 0–100: a move of a few points must be visible.
  const totals = points.map((point) => point.total);
  const low = Math.max(0, Math.min(...totals) - 5);
  const high = Math.min(100, Math.max(Math.max(...totals) + 5, low + 10));
  const y = (total: number) => PAD_Y + ((high - total) * (HEIGHT - 2 * PAD_Y)) / (high - low);
  const line = points.map((point, i) => `${x(i).toFixed(1)},${y(point.total).toFixed(1)}`).join(" ");
  const dots = points
    .map((point, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(point.total).toFixed(1)}" r="3.5" fill="#4f46e5"/>`)
    .join("");
  const delta = last.total - first.total;
  const moved = delta === 0 ? "unchanged" : `${delta > 0 ? "up" : "down"} ${Math.abs(delta)} points`;
  const summary = `Total score over ${points.length} results, from ${first.total} on ${day.format(first.createdAt)} to ${last.total} on ${day.format(last.createdAt)}: ${moved}.`;
  const label = (value: number, i: number, anchor: string) =>
    `<text x="${x(i).toFixed(1)}" y="${(y(value) - 8).toFixed(1)}" text-anchor="${anchor}" fill="#0f172a" font-size="15" font-weight="700">${value}</text>`;
  return `<section class="card" aria-labelledby="h-trend"><h2 class="section-title" id="h-trend">Trend</h2>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="trend-title trend-desc" preserveAspectRatio="xMidYMid meet">
<title id="trend-title">Total score trend</title><desc id="trend-desc">${esc(summary)}</desc>
<polyline points="${line}" fill="none" stroke="#6366f1" stroke-width="3" stroke-linejoin="round" stroke-linecap="round"/>${dots}
${label(first.total, 0, "start")}${label(last.total, points.length - 1, "end")}
</svg>
<p class="stage-note">${first.total} on <time datetime="${esc(first.createdAt.toISOString().slice(0, 10))}">${esc(day.format(first.createdAt))}</time> → ${last.total} on <time datetime="${esc(last.createdAt.toISOString().slice(0, 10))}">${esc(day.format(last.createdAt))}</time> · ${esc(moved)}</p>
</section>`;
}
