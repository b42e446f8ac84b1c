import { createHash } from "node:crypto";
import { describe, it, expect } from "vitest";
import type { DimensionView, ScoreResultView } from "../../src/modules/score/score-result.view.js";
import { dimensions } from "../../src/modules/scoring/framework/dimensions.js";
import { PILLAR_NAMES, scoreResultFixture } from "../fixtures/score-result.js";
import { pillarIds, type DimensionId } from "../../src/modules/scoring/scoring.types.js";
import { renderSharePage, sharePageCsp } from "../../src/http/share-page.js";

const BASE = "https://score.example.com";
const fixture = scoreResultFixture;

function withEvidence(
  result: ScoreResultView,
  id: DimensionId,
  evidenceItems: DimensionView["evidenceItems"],
): ScoreResultView {
  return {
    ...result,
    dimensions: result.dimensions.map((dim) => (dim.dimensionId === id ? { ...dim, evidenceItems } : dim)),
  };
}

const meta = (html: string, property: string) =>
  html.match(new RegExp(`<meta (?:property|name)="${property}" content="([^"]*)">`))?.[1];

describe("share page", () => {
  it("escapes a hostile company name, evidence and URLs", () => {
    const hostile = withEvidence(
      fixture({
        companyName: `Evil <script>alert(1)</script> "Corp" & 'Co'`,
        crossDimensionNotes: `</style><script>alert(2)</script>`,
        antiPatternsDetected: [`<img src=x onerror=alert(3)>`],
      }),
      "pricing_packaging",
      [
        { url: "javascript:alert(4)", text: `Click "here" <b>now</b>` },
        { url: `https://acme.example/a"onmouseover="alert(5)`, text: "quoted attr" },
        { url: "data:text/html,<script>alert(6)</script>", text: "data url" },
        { text: "We have 40 enterprise customers", selfReported: true },
      ],
    );
    const html = renderSharePage(hostile, { publicBaseUrl: BASE });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toContain("<b>now</b>");
    expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i); // no event-handler attribute on any tag
    expect(html).toContain("&lt;img src=x onerror=alert(3)&gt;");
    expect(html).toContain("Evil &lt;script&gt;alert(1)&lt;/script&gt; &quot;Corp&quot; &amp; &#39;Co&#39;");
    expect(html).toContain("Click &quot;here&quot; &lt;b&gt;now&lt;/b&gt;");
    expect(html).not.toMatch(/href="\s*javascript:/i);
    expect(html).not.toMatch(/href="\s*data:text/i);
    expect(html).toContain("javascript:alert(4)"); // shown as text, not linked
    expect(html).toContain('href="https://acme.example/a%22onmouseover=%22alert(5)"');
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(html).toMatch(/We have 40 enterprise customers <span class="tag self">Self-reported<\/span>/);
    // Every link is http(s) or in-page, and every external one has the rel.
    for (const [, tag, href] of html.matchAll(/(<a [^>]*href="([^"]*)"[^>]*>)/g)) {
      expect(href).toMatch(/^(https?:\/\/|#)/);
      if (href?.startsWith("http")) expect(tag).toContain('rel="nofollow noopener noreferrer"');
    }
  });

  it("has Open Graph, Twitter card and canonical tags", () => {
    const html = renderSharePage(fixture(), { publicBaseUrl: `${BASE}/` });
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<meta charset="utf-8">');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).not.toMatch(/name="robots"/);
    expect(meta(html, "og:title")).toBe("Acme scores 61/100 — Scaling");
    expect(meta(html, "og:type")).toBe("website");
    expect(meta(html, "og:url")).toBe(`${BASE}/r/res_01HXYZ`);
    expect(meta(html, "og:description")).toContain("Developer Platform, Value Proposition, Documentation Quality");
    expect(meta(html, "twitter:card")).toBe("summary");
    expect(meta(html, "twitter:title")).toBe("Acme scores 61/100 — Scaling");
    expect(html).toContain(`<link rel="canonical" href="${BASE}/r/res_01HXYZ">`);
    expect(html).toContain("<title>Acme scores 61/100 — Scaling</title>");
  });

  it("allows exactly the <style> element's hash in the CSP", () => {
    const html = renderSharePage(fixture(), { publicBaseUrl: BASE });
    const style = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? "";
    expect(style.length).toBeGreaterThan(500);
    expect(style).toContain("@media print");
    const hash = createHash("sha256").update(style, "utf8").digest("base64");
    const csp = sharePageCsp(html);
    expect(csp).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(csp).not.toContain("unsafe");
    expect(html).not.toMatch(/\sstyle="/);
  });

  it("loads no external asset and links only the result's own URLs", () => {
    const result = fixture({
      crossDimensionNotes: "Strong docs, weak AI governance.",
      antiPatternsDetected: ["AI claims without evidence"],
    });
    const html = renderSharePage(result, { publicBaseUrl: BASE });
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link[^>]+rel="stylesheet"/i);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/url\(/i);
    expect(html).not.toMatch(/<(img|iframe|object|embed|video|audio|source)\b/i);
    expect(html).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    const allowed = new Set([
      result.url,
      `${BASE}/r/${result.id}`,
      ...result.dimensions.flatMap((dim) => dim.evidenceItems.flatMap((item) => (item.url ? [item.url] : []))),
    ]);
    const found = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
    expect(found.length).toBeGreaterThan(27);
    for (const url of found) expect(allowed, url).toContain(url);
    expect(html).toContain("Strong docs, weak AI governance.");
    expect(html).toContain("AI claims without evidence");
    expect(html).toMatch(/Framework: <strong>maturity<\/strong> v1\.0\.0 · Mode: full/);
  });

  it("shows all 27 dimensions grouped under the 6 pillar headings, with a labelled chart", () => {
    const result = fixture();
    const html = renderSharePage(result, { publicBaseUrl: BASE });
    const sections = html.split('<section class="pillar"').slice(1);
    expect(sections).toHaveLength(6);
    pillarIds.forEach((pillar, i) => {
      const section = sections[i] ?? "";
      const heading = section.match(/<h2[^>]*>([^<]*)<\/h2>/)?.[1];
      expect(heading).toBe((PILLAR_NAMES[i] ?? "").replace("&", "&amp;"));
      const names = [...section.matchAll(/<h3>([^<]*)<\/h3>/g)].map((m) => m[1]);
      const expected = dimensions.filter((d) => d.pillar === pillar).map((d) => d.name.replace("&", "&amp;"));
      expect(names).toEqual(expected);
    });
    expect(sections.join("").match(/<article class="dim"/g)).toHaveLength(27);
    expect(html).toMatch(/<svg class="radar"[^>]*role="img"[^>]*aria-labelledby="radar-title radar-desc"/);
    expect(html).toMatch(/<title id="radar-title">Acme: scores for 27 dimensions in 6 pillars<\/title>/);
    expect(html.match(/<circle [^>]*r="4.5"/g)).toHaveLength(27);
    expect(html).toContain('<time datetime="2025-03-12">March 12, 2025</time>');
    // Strengths and gaps by display name; confidences shown.
    expect(html).toMatch(/class="card strengths"[\s\S]*Developer Platform[\s\S]*class="card gaps"[\s\S]*AI Governance/);
    for (const conf of ["high", "medium", "low"]) expect(html).toContain(`${conf} confidence`);
  });

  it("says why a result has no strengths", () => {
    const html = renderSharePage({ ...fixture(), strengths: [] }, { publicBaseUrl: BASE });
    expect(html).toMatch(
      /class="card strengths"><h2>Strengths<\/h2><p class="muted">None yet: no dimension scores 50 or more with high or medium confidence\.<\/p>/,
    );
  });

  it("draws dimensions that do not apply hollow and grey, outside the shape and the pillar averages", () => {
    // AI dimensions on a product that sells no AI: the prior (5) is kept, but they do not count.
    const excused = new Set(["ai_capability_depth", "cost_token_economics", "model_strategy", "ai_governance"]);
    const base = fixture();
    const result: ScoreResultView = {
      ...base,
      dimensions: base.dimensions.map((dim) =>
        excused.has(dim.dimensionId) ? { ...dim, score: 5, stageName: "Foundation", applicable: false as const } : dim,
      ),
    };
    const html = renderSharePage(result, { publicBaseUrl: BASE });
    const svg = html.match(/<svg class="radar"[\s\S]*?<\/svg>/)?.[0] ?? "";

    // The shape joins only the 23 dimensions that apply: no vertex dips to the prior of 5 near the centre.
    const points = (svg.match(/<polygon points="([^"]*)"/)?.[1] ?? "").split(" ").map((p) => p.split(",").map(Number));
    expect(points).toHaveLength(23);
    for (const [x, y] of points) expect(Math.hypot(x! - 320, y! - 245)).toBeGreaterThan(165 * 0.3);
    // Each excused dimension is a hollow grey dot that says so.
    const hollow = [
      ...svg.matchAll(/<circle class="radar-na"[^>]*fill="#ffffff"[^>]*stroke="#94a3b8"[^>]*><title>([^<]*)<\/title>/g),
    ];
    expect(hollow.map((m) => m[1])).toEqual([
      "AI Capability Depth: does not apply (5, not counted)",
      "Cost &amp; Token Economics: does not apply (5, not counted)",
      "Model Strategy: does not apply (5, not counted)",
      "AI Governance: does not apply (5, not counted)",
    ]);
    expect(svg.match(/<circle [^>]*r="4.5"/g)).toHaveLength(23);
    expect(svg).toContain(
      "4 dimensions do not apply: drawn as hollow grey dots on the rim, outside the shape and the averages.",
    );

    // Pillar averages of the applicable ones only: Data, AI & Economics is data_strategy_flywheel's 38 alone,
    // Product & Experience (69, 74, 62, 83) is 72, in the chart, the legend and the pillar heading alike.
    expect(svg).toMatch(/Economics<\/tspan><tspan [^>]*class="radar-avg"[^>]*>38<\/tspan>/);
    expect(svg).toMatch(/Experience<\/tspan><tspan [^>]*class="radar-avg"[^>]*>72<\/tspan>/);
    expect(svg).toContain("Data, AI &amp; Economics 38");
    expect(html).toMatch(/<span>Data, AI &amp; Economics<\/span><b>38<\/b>/);
    expect(html).toMatch(/id="h-data_ai_economics">[^<]*<\/h2><span class="pillar-avg">38<small>/);
    expect(html).toMatch(/id="h-product_experience">[^<]*<\/h2><span class="pillar-avg">72<small>/);
    // Their cards say so, in grey.
    const card = html.match(/<article class="dim na" id="dim-model_strategy">[\s\S]*?<\/article>/)?.[0] ?? "";
    expect(card).toContain('<span class="dim-score na">5<small>');
    expect(card).toContain('<span class="tag na">Does not apply</span>');
    expect(html.match(/<article class="dim na"/g)).toHaveLength(4);
  });

  it("says until when a held result is kept, and nothing once it is claimed", () => {
    const expiresAt = new Date("2025-04-11T10:00:00.000Z");
    const held = renderSharePage(fixture({ held: true, expiresAt }), { publicBaseUrl: BASE });
    expect(held).toContain(
      '<p class="held">Kept until <time datetime="2025-04-11T10:00:00.000Z">April 11, 2025</time> unless claimed',
    );
    const claimed = renderSharePage(fixture({ held: false, expiresAt: null }), { publicBaseUrl: BASE });
    expect(claimed).not.toContain("Kept until");
  });
});
