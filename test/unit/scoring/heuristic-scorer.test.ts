import { describe, expect, it } from "vitest";
import { blend, confidenceFor, HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import { Assessor, type RuleSet } from "../../../src/modules/scoring/rules/rule.js";
import type { SiteFacts } from "../../../src/modules/scoring/site-facts.js";
import { syntheticCrawl } from "../../support/synthetic-crawl.js";

/** One rule that reads "SSO" mentions, so the scorer's mechanics can be tested on their own. */
const ssoRule = (facts: SiteFacts) => {
  const sso = facts.mentions(/\b(SSO|SAML)\b/i, { limit: 1 });
  return new Assessor().signal(1, sso.length > 0 ? 90 : undefined, sso.length > 0 ? "SSO offered" : "no SSO", sso).done("Offer SAML SSO.");
};
const rules: RuleSet = { enterprise_readiness: ssoRule };
const scorer = new HeuristicScorer(rules);
const withSso = syntheticCrawl([{ path: "/", text: "Enterprise plan with SAML SSO." }]);
const without = syntheticCrawl([{ path: "/", text: "A simple app." }]);

const dimension = (result: Awaited<ReturnType<typeof scorer.score>>, id: string) => result.dimensions.find((item) => item.dimensionId === id)!;

describe("heuristic scorer mechanics", () => {
  it("keeps a dimension with nothing observable at its prior, with low confidence, and says so", async () => {
    const result = await scorer.score({ crawl: without, framework: "maturity", mode: "full" });
    const enterprise = dimension(result, "enterprise_readiness");
    expect(enterprise).toMatchObject({ score: 10, confidence: "low", evidence: "No evidence for this dimension was found on the crawled pages." });
    expect(enterprise.reasoning).toMatch(/stays at the framework's prior of 10/);
    expect(result.dimensions).toHaveLength(27);
  });

  it("moves towards the rule's reading as coverage grows", () => {
    expect(blend(10, { raw: 90, coverage: 0 })).toBe(10);
    expect(blend(10, { raw: 90, coverage: 0.5 })).toBeCloseTo(10 + 80 * 0.65);
    expect(blend(10, { raw: 90, coverage: 1 })).toBe(90);
    expect([confidenceFor(0), confidenceFor(0.3), confidenceFor(0.6)]).toEqual(["low", "medium", "high"]);
  });

  it("quotes the page in the evidence and explains what raised the score", async () => {
    const enterprise = dimension(await scorer.score({ crawl: withSso, framework: "maturity", mode: "full" }), "enterprise_readiness");
    expect(enterprise).toMatchObject({ score: 90, confidence: "high", stageName: "Leading" });
    expect(enterprise.evidence).toBe("Enterprise plan with SAML SSO. (https://acme.example/)");
    expect(enterprise.reasoning).toBe("Raised by: SSO offered. To raise it: Offer SAML SSO.");
  });

  it("counts context as self-reported: it lifts a thin dimension a little and is marked, but cannot outweigh the site", async () => {
    const claimed = await scorer.score({ crawl: without, context: "We offer SAML SSO to enterprise customers.", framework: "maturity", mode: "full" });
    const enterprise = dimension(claimed, "enterprise_readiness");
    expect(enterprise.score).toBeGreaterThan(10);
    expect(enterprise.score).toBeLessThanOrEqual(20);
    expect(enterprise.confidence).toBe("medium");
    expect(enterprise.evidence).toContain('Self-reported: "We offer SAML SSO to enterprise customers."');
    expect(claimed.crossDimensionNotes).toMatch(/self-reported evidence to 1 dimension/);

    const shown = dimension(await scorer.score({ crawl: withSso, context: "We have no SSO at all.", framework: "maturity", mode: "full" }), "enterprise_readiness");
    expect(shown.score).toBe(90);
  });

  it("rates nothing above medium confidence in quick mode", async () => {
    const quick = await scorer.score({ crawl: withSso, framework: "maturity", mode: "quick" });
    expect(dimension(quick, "enterprise_readiness").confidence).toBe("medium");
    expect(quick).toMatchObject({ mode: "quick", framework: "maturity", frameworkVersion: "1.0.0" });
  });

  it("reports each of the 27 dimensions as it is scored", async () => {
    const steps: number[] = [];
    await scorer.score({ crawl: without, framework: "product", mode: "full", onDimension: (k) => steps.push(k) });
    expect(steps).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
  });
});
