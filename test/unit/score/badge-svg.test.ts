import { JSDOM } from "jsdom";
import { describe, expect, it } from "vitest";
import {
  LABEL_COLOUR,
  MAX_BADGE_TEXT,
  NEUTRAL_COLOUR,
  STAGE_COLOURS,
  renderBadgeSvg,
  scoreBadgeSpec,
  textWidth,
  unavailableBadgeSpec,
} from "../../../src/modules/score/badge-svg.js";
import { badgeOf, productBadgeUrl, resultBadgeUrls } from "../../../src/modules/score/badge.js";
import { stageLadder } from "../../../src/modules/scoring/framework/stages.js";

/** Parses as XML (a parse error is a <parsererror> document in jsdom). */
function parse(svg: string): Document {
  const document = new new JSDOM("").window.DOMParser().parseFromString(svg, "image/svg+xml");
  expect(document.getElementsByTagName("parsererror")).toHaveLength(0);
  return document;
}

/** WCAG relative luminance contrast of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((at) => {
      const value = parseInt(hex.slice(at, at + 2), 16) / 255;
      return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

describe("the badge SVG", () => {
  it("is well-formed, accessible and says the score and stage", () => {
    const document = parse(renderBadgeSvg(scoreBadgeSpec(72, "Compounding")));
    const svg = document.documentElement;
    expect(svg.getAttribute("role")).toBe("img");
    expect(svg.getAttribute("aria-label")).toBe("maturity: 72 · Compounding");
    expect(svg.getElementsByTagName("title")[0]?.textContent).toBe("maturity: 72 · Compounding");
    expect([...svg.getElementsByTagName("text")].map((text) => text.textContent)).toEqual([
      "maturity",
      "72 · Compounding",
    ]);
  });

  it("gives the same bytes for the same score and stage, and other bytes otherwise", () => {
    expect(renderBadgeSvg(scoreBadgeSpec(72, "Scaling"))).toBe(renderBadgeSvg(scoreBadgeSpec(72, "Scaling")));
    expect(renderBadgeSvg(scoreBadgeSpec(72, "Scaling"))).not.toBe(renderBadgeSvg(scoreBadgeSpec(73, "Scaling")));
  });

  it("colours every stage distinctly, each at least 4.5:1 with its white text, as is the label's grey", () => {
    const colours = stageLadder.map((rung) => STAGE_COLOURS[rung.name]);
    expect(new Set(colours).size).toBe(stageLadder.length);
    for (const colour of [...colours, LABEL_COLOUR, NEUTRAL_COLOUR])
      expect(contrast(colour, "#ffffff")).toBeGreaterThanOrEqual(4.5);
    for (const rung of stageLadder) {
      const rects = parse(renderBadgeSvg(scoreBadgeSpec(rung.from, rung.name))).getElementsByTagName("rect");
      expect(rects[0]?.getAttribute("fill")).toBe(STAGE_COLOURS[rung.name]);
    }
    // An unknown stage name is drawn neutral rather than refused.
    expect(renderBadgeSvg(scoreBadgeSpec(1, "Unheard of"))).toContain(`fill="${NEUTRAL_COLOUR}"`);
  });

  it("sizes each segment from Verdana 11 px widths, so the longest stage never overflows", () => {
    for (const rung of stageLadder) {
      const spec = scoreBadgeSpec(100, rung.name);
      const svg = parse(renderBadgeSvg(spec)).documentElement;
      const width = Number(svg.getAttribute("width"));
      const [label, value] = [...svg.getElementsByTagName("text")];
      const labelWidth = textWidth(spec.label);
      const valueWidth = textWidth(spec.value);
      expect(Number(label!.getAttribute("textLength"))).toBeCloseTo(labelWidth, 1);
      expect(Number(value!.getAttribute("textLength"))).toBeCloseTo(valueWidth, 1);
      // Each text is centred in a segment at least 12 px wider than it.
      expect(width).toBeGreaterThanOrEqual(labelWidth + valueWidth + 24);
      expect(Number(value!.getAttribute("x")) + valueWidth / 2).toBeLessThanOrEqual(width - 6 + 0.5);
    }
    expect(textWidth("Compounding")).toBeGreaterThan(textWidth("Scaling"));
    expect(textWidth("WWW")).toBeGreaterThan(textWidth("iii"));
    // An unknown character counts as the widest glyph, never as nothing.
    expect(textWidth("漢")).toBeGreaterThanOrEqual(textWidth("W"));
  });

  it("escapes every text and cuts a very long one", () => {
    const hostile = `<script>alert("x")</script> & 'quotes' \u0001 \ud800`;
    const svg = renderBadgeSvg({ label: hostile, value: hostile, colour: `red" onload="alert(1)` });
    const document = parse(svg);
    expect(svg).not.toContain("<script");
    expect(svg).not.toContain("onload");
    expect(document.getElementsByTagName("script")).toHaveLength(0);
    expect(document.getElementsByTagName("text")[0]?.textContent).toContain(`<script>alert("x")</script> & 'quotes'`);
    const long = renderBadgeSvg(unavailableBadgeSpec("x".repeat(500)));
    const text = parse(long).getElementsByTagName("text")[1]!.textContent!;
    expect([...text]).toHaveLength(MAX_BADGE_TEXT);
    expect(text.endsWith("…")).toBe(true);
  });

  it("refers to nothing outside itself", () => {
    const svg = renderBadgeSvg(scoreBadgeSpec(50, "Scaling"));
    expect(svg).not.toMatch(/href|url\(|<image|<use|<script|<foreignObject|@import/i);
    expect(svg).not.toMatch(/ id="/);
  });
});

describe("badge snippets", () => {
  it("link a result's image to its share page, on the public base URL", () => {
    const urls = resultBadgeUrls("https://pms.example/", "abc");
    expect(urls).toEqual({ image: "https://pms.example/r/abc/badge.svg", page: "https://pms.example/r/abc" });
    const badge = badgeOf({ totalScore: 72, stageName: "Compounding" }, urls.image, urls.page);
    expect(badge.markdown).toBe(
      "[![maturity: 72 · Compounding](https://pms.example/r/abc/badge.svg)](https://pms.example/r/abc)",
    );
    expect(badge.html).toBe(
      '<a href="https://pms.example/r/abc"><img src="https://pms.example/r/abc/badge.svg" alt="maturity: 72 · Compounding"></a>',
    );
  });

  it("show a product's image alone, escaped for Markdown and HTML", () => {
    const url = productBadgeUrl("https://pms.example", "p (1)");
    const badge = badgeOf({ missing: "not [scored] <yet>" }, url);
    expect(badge.markdown).toBe(
      "![maturity: not \\[scored\\] <yet>](https://pms.example/api/products/p%20%281%29/badge.svg)",
    );
    expect(badge.html).toBe(
      '<img src="https://pms.example/api/products/p%20(1)/badge.svg" alt="maturity: not [scored] &#60;yet&#62;">',
    );
  });
});
