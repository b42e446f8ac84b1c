import type { Badge } from "../../modules/score/badge.js";
import { esc } from "../share-chart.js";

/**
 * The share page's "Badge" section: the result's badge as an image (served by this
 * origin, `/r/{id}/badge.svg`, which the page's CSP allows as `img-src 'self'`) and
 * its Markdown and HTML snippets in read-only text areas: selecting them works
 * without a script, so the page keeps none.
 */

const CSS =
  ".badge-card h2{margin-bottom:10px}" +
  ".badge-card .badge-image{display:block;margin:0 0 14px;max-width:100%;height:20px;width:auto}" +
  ".badge-card label{display:block;font-size:.85rem;font-weight:650;margin:12px 0 4px;color:#334155}" +
  ".badge-card textarea{display:block;width:100%;min-width:0;resize:vertical;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#0f172a;background:#f8fafc;border:1px solid #cbd5e1;border-radius:8px;padding:8px 10px;overflow-wrap:anywhere}" +
  ".badge-card p{margin:0;color:#475569;font-size:.9rem}";

/** `resultId`: the image is asked of the origin that served the page, whatever PUBLIC_BASE_URL says. */
export function badgeSection(badge: Badge, resultId: string): string {
  return (
    `<style>${CSS}</style>` +
    `<section class="card badge-card" aria-labelledby="h-badge"><h2 id="h-badge">Badge</h2>` +
    `<img class="badge-image" src="/r/${esc(encodeURIComponent(resultId))}/badge.svg" width="${esc(widthOf(badge))}" height="20" alt="${esc(altOf(badge))}">` +
    `<p>Show this score in a README or on a site: copy a snippet. The image links back to this page.</p>` +
    snippet("badge-markdown", "Markdown", badge.markdown) +
    snippet("badge-html", "HTML", badge.html) +
    `</section>\n`
  );
}

function snippet(id: string, label: string, text: string): string {
  return `<label for="${id}">${esc(label)}</label><textarea id="${id}" readonly rows="3" spellcheck="false">${esc(text)}</textarea>`;
}

/** The badge's own words (its <title>), for the image's alternative text. */
function altOf(badge: Badge): string {
  return (
    /<title>([^<]*)<\/title>/
      .exec(badge.svg)?.[1]
      ?.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))) ?? "Score badge"
  );
}

function widthOf(badge: Badge): string {
  return /^<svg[^>]* width="(\d+)"/.exec(badge.svg)?.[1] ?? "160";
}
