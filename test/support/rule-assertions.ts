import { expect } from "vitest";
import type { DimensionRule } from "../../src/modules/scoring/rules/rule.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "./synthetic-crawl.js";

/** A home page that says nothing about any dimension. */
export const BARE_SITE: readonly PageSpec[] = [{ path: "/", text: "We build things for teams.", title: "Acme" }];

export const at = (path: string): string => `${SYNTHETIC_ORIGIN}${path}`;

type Options = Parameters<typeof syntheticFacts>[1];

/**
 * The site `pages` raises the rule's raw reading above the bare site's, makes
 * something observable, and the evidence names the page it was seen on.
 */
export function expectRaises(
  rule: DimensionRule,
  pages: readonly PageSpec[],
  evidenceUrl: string,
  options: Options = {},
) {
  const bare = rule(syntheticFacts(BARE_SITE));
  const seen = rule(syntheticFacts(pages, options));
  expect(seen.raw).toBeGreaterThan(bare.raw);
  expect(seen.coverage).toBeGreaterThan(0);
  expect(seen.evidence.map((item) => item.url)).toContain(evidenceUrl);
  return seen;
}

/** As expectRaises, with `pages` added to the bare site. */
export function expectSignal(
  rule: DimensionRule,
  pages: readonly PageSpec[],
  evidenceUrl: string,
  options: Options = {},
) {
  return expectRaises(rule, [...BARE_SITE, ...pages], evidenceUrl, options);
}
