import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { compareResults } from "../../../src/modules/score/compare.js";
import { renderSharePage, sharePageCsp } from "../../../src/http/share-page.js";
import { SINCE_TOP } from "../../../src/http/share-sections/compare.js";
import { scoreResultFixture } from "../../fixtures/score-result.js";

const BASE = "https://score.example.com/";
const earlier = scoreResultFixture({ id: "res_before", totalScore: 48, stageName: "Developing" });
const later = scoreResultFixture({ id: "res_after", totalScore: 61, stageName: "Scaling" }, (definition) => [
  { url: `https://acme.example/${definition.id}`, text: `New: ${definition.name}` },
]);
const moved = {
  ...later,
  dimensions: later.dimensions.map((d, i) => ({ ...d, score: Math.min(100, d.score + (i % 7) * 3) })),
};

describe("share page: since the previous score", () => {
  it("shows the total and stage change, the most moved dimensions and a link to the previous report", () => {
    const since = compareResults(moved, earlier);
    const html = renderSharePage(moved, { publicBaseUrl: BASE, since });
    expect(html).toContain("Since the previous score");
    expect(html).toContain('<span class="since-total since-up">+13</span>');
    expect(html).toContain("Developing → Scaling");
    expect(html).toContain('href="https://score.example.com/r/res_before"');
    const rows = html.match(/<ul class="since-list"[^>]*>(.*?)<\/ul>/)![1]!.match(/<li>/g)!;
    expect(rows).toHaveLength(SINCE_TOP);
    const top = since.dimensions[0]!;
    expect(html).toContain(
      `<a href="#dim-${top.dimensionId}" class="bare">${top.dimensionName.replace("&", "&amp;")}</a>`,
    );
    // Its <style> is allowed by hash like the page's own.
    const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(2);
    for (const css of styles)
      expect(sharePageCsp(html)).toContain(`'sha256-${createHash("sha256").update(css).digest("base64")}'`);
  });

  it("says nothing moved when nothing did, and names the versions when they differ", () => {
    const same = renderSharePage(earlier, { publicBaseUrl: BASE, since: compareResults(earlier, earlier) });
    expect(same).toContain("No dimension moved.");
    expect(same).toContain("Stage unchanged (Developing)");
    const versions = compareResults({ ...moved, frameworkVersion: "2.0.0" }, earlier);
    expect(renderSharePage(moved, { publicBaseUrl: BASE, since: versions })).toContain(
      "Scored with framework v1.0.0 then v2.0.0",
    );
  });

  it("escapes what comes from the sites and ids", () => {
    const hostile = { ...earlier, id: `x"><script>alert(1)</script>` };
    const html = renderSharePage(moved, { publicBaseUrl: BASE, since: compareResults(moved, hostile) });
    expect(html).not.toContain("<script>");
    expect(html).toContain("/r/x%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E");
  });

  it("is absent without a previous result", () => {
    expect(renderSharePage(moved, { publicBaseUrl: BASE })).not.toContain("since");
  });
});
