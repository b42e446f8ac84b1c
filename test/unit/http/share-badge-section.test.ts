import { createHash } from "node:crypto";
import { JSDOM } from "jsdom";
import { describe, expect, it } from "vitest";
import { renderSharePage, sharePageCsp } from "../../../src/http/share-page.js";
import { badgeOf, resultBadgeUrls } from "../../../src/modules/score/badge.js";
import { scoreResultFixture } from "../../fixtures/score-result.js";

const BASE = "https://score.example.com";

describe("the share page's Badge section", () => {
  const result = scoreResultFixture({ id: "res_badge" });
  const urls = resultBadgeUrls(BASE, result.id);
  const html = renderSharePage(result, { publicBaseUrl: BASE, badge: badgeOf(result, urls.image, urls.page) });
  const document = new JSDOM(html).window.document;

  it("shows the badge from this origin and the snippets, read-only and labelled", () => {
    const image = document.querySelector<HTMLImageElement>(".badge-card img")!;
    expect(image.getAttribute("src")).toBe("/r/res_badge/badge.svg");
    expect(image.getAttribute("alt")).toBe(`maturity: ${result.totalScore} · ${result.stageName}`);
    const markdown = document.querySelector<HTMLTextAreaElement>("#badge-markdown")!;
    expect(markdown.readOnly).toBe(true);
    expect(document.querySelector('label[for="badge-markdown"]')?.textContent).toBe("Markdown");
    expect(markdown.value).toBe(`[![${image.alt}](${BASE}/r/res_badge/badge.svg)](${BASE}/r/res_badge)`);
    const snippet = document.querySelector<HTMLTextAreaElement>("#badge-html")!;
    expect(snippet.value).toBe(
      `<a href="${BASE}/r/res_badge"><img src="${BASE}/r/res_badge/badge.svg" alt="${image.alt}"></a>`,
    );
    // The snippet is text in the page, never markup of it.
    expect(document.querySelectorAll(".badge-card a")).toHaveLength(0);
    expect(html).not.toContain("<script");
  });

  it("allows each <style> element by hash, and images of its own origin only", () => {
    const hashes = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
      (match) => `'sha256-${createHash("sha256").update(match[1]!, "utf8").digest("base64")}'`,
    );
    expect(hashes).toHaveLength(2);
    expect(sharePageCsp(html)).toBe(
      `default-src 'none'; style-src ${hashes.join(" ")}; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
  });

  it("is left out when no badge is given", () => {
    expect(renderSharePage(result, { publicBaseUrl: BASE })).not.toContain("badge-card");
  });
});
