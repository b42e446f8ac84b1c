import { describe, expect, it } from "vitest";
import { confidenceFor, HeuristicScorer, onCurve } from "../../../src/modules/scoring/heuristic-scorer.js";
import { Assessor, type RuleSet } from "../../../src/modules/scoring/rules/rule.js";
import type { SiteFacts } from "../../../src/modules/scoring/site-facts.js";
import { syntheticCrawl } from "../../support/synthetic-crawl.js";

/** One rule that reads "SSO" mentions, so the scorer's mechanics can be tested on their own. */
const ssoRule = (facts: SiteFacts) => {
  const sso = facts.mentions(/\b(SSO|SAML)\b/i, { limit: 1 });
  return new Assessor()
    .signal(1, sso.length > 0 ? 90 : undefined, sso.length > 0 ? "SSO offered" : "no SSO", sso)
    .done("Offer SAML SSO.");
};
const rules: RuleSet = { enterprise_readiness: ssoRule };
const scorer = new HeuristicScorer(rules);
const withSso = syntheticCrawl([{ path: "/", text: "Enterprise plan with SAML SSO." }]);
const without = syntheticCrawl([{ path: "/", text: "A simple app." }]);
/** A small site read whole, with enough text that what it does not say is telling. */
const prose = (topic: string) =>
  Array.from({ length: 12 }, (_, i) => `Sentence ${i} about ${topic} and how the app handles it for its users.`).join(
    " ",
  );
const readWhole = syntheticCrawl(["/", "/features", "/about", "/blog"].map((path) => ({ path, text: prose(path) })));

const dimension = (result: Awaited<ReturnType<typeof scorer.score>>, id: string) =>
  result.dimensions.find((item) => item.dimensionId === id)!;

describe("heuristic scorer mechanics", () => {
  it("keeps a dimension with nothing observable at its prior and says what the silence means; a site read whole makes the absence medium-confidence", async () => {
    const result = await scorer.score({ crawl: readWhole, framework: "maturity", mode: "full" });
    const enterprise = dimension(result, "enterprise_readiness");
    expect(enterprise).toMatchObject({
      score: 5,
      confidence: "medium",
      evidence: "No evidence for this dimension was found on the crawled pages.",
    });
    expect(enterprise.applicable).toBeUndefined();
    expect(enterprise.reasoning).toMatch(
      /an established product usually shows this on its site, so the score stays at the prior of 5/,
    );
    expect(result.dimensions).toHaveLength(27);
  });

  it("never scores a little shown below nothing shown; only a fact counting against the dimension goes under the prior (2.6.0)", async () => {
    // One weak signal of four: a tenth of the corpus median, which alone lies under the prior on the curve.
    const weak = (penalised: boolean) => (facts: SiteFacts) => {
      const sso = facts.mentions(/\bSSO\b/, { limit: 1 });
      const assessor = new Assessor()
        .signal(1, sso.length > 0 ? 8 : undefined, "SSO mentioned once", sso)
        .signal(3, undefined, "no SCIM, audit logs or roles");
      if (penalised) assessor.penalty(1, "enterprise plan withdrawn");
      return assessor.done("Offer SAML SSO.");
    };
    expect(onCurve("enterprise_readiness", 2)).toBeLessThan(5);
    const little = await new HeuristicScorer({ enterprise_readiness: weak(false) }).score({
      crawl: withSso,
      framework: "maturity",
      mode: "full",
    });
    expect(dimension(little, "enterprise_readiness").score).toBe(5);
    const against = await new HeuristicScorer({ enterprise_readiness: weak(true) }).score({
      crawl: withSso,
      framework: "maturity",
      mode: "full",
    });
    expect(dimension(against, "enterprise_readiness").score).toBeLessThan(5);
  });

  it("rates an absence low, not medium, when the crawl saw one or two pages or little text, and says how little it saw", async () => {
    const onePage = await scorer.score({ crawl: without, framework: "maturity", mode: "full" });
    expect(dimension(onePage, "enterprise_readiness")).toMatchObject({ score: 5, confidence: "low" });
    expect(
      onePage.dimensions.filter((item) => item.evidenceItems.length === 0).every((item) => item.confidence === "low"),
    ).toBe(true);
    expect(onePage.crossDimensionNotes).toContain("Read 1 page as HTML.");
    const twoShortPages = syntheticCrawl([
      { path: "/", text: prose("home") },
      { path: "/pricing", text: prose("pricing") },
    ]);
    const two = await scorer.score({ crawl: twoShortPages, framework: "maturity", mode: "full" });
    expect(dimension(two, "enterprise_readiness").confidence).toBe("low");
    expect(two.crossDimensionNotes).toMatch(/The crawl saw little \(2 pages, [\d,]+ characters of text\)/);
  });

  it("keeps an absence low-confidence when the crawl stopped short of a site it could not read whole", async () => {
    const cut = { ...without, crawlStats: { ...without.crawlStats, partial: true, pagesPlanned: 9 } };
    const enterprise = dimension(
      await scorer.score({ crawl: cut, framework: "maturity", mode: "full" }),
      "enterprise_readiness",
    );
    expect(enterprise).toMatchObject({ score: 5, confidence: "low" });
  });

  it("reports AI dimensions of a site that sells no AI as not applicable: they weigh little and are never gaps", async () => {
    const result = await scorer.score({ crawl: without, framework: "maturity", mode: "full" });
    const governance = dimension(result, "ai_governance");
    expect(governance).toMatchObject({ score: 5, confidence: "low", applicable: false });
    expect(governance.reasoning).toMatch(/does not apply: the site does not present AI as part of what it sells/);
    expect(result.gaps).not.toContain("ai_governance");
    expect(result.crossDimensionNotes).toMatch(/do not apply to what this site presents/);
  });

  it('sets aside a stray AI reading on a site that sells no AI ("choose your pricing model") and says so', async () => {
    const modelRule = (facts: SiteFacts) => {
      const choice = facts.mentions(/\bchoose\b.*\bmodels?\b/i, { limit: 1 });
      return new Assessor()
        .signal(
          1,
          choice.length > 0 ? 80 : undefined,
          choice.length > 0 ? "customers can choose the model" : "no model choice",
          choice,
        )
        .done("Name the models.");
    };
    const strict = new HeuristicScorer({ model_strategy: modelRule });
    const crawl = syntheticCrawl([{ path: "/", text: "Choose the pricing model that fits your shop." }]);
    const model = dimension(await strict.score({ crawl, framework: "maturity", mode: "full" }), "model_strategy");
    expect(model).toMatchObject({ score: 5, confidence: "low", applicable: false });
    expect(model.reasoning).toMatch(
      /^What the pages say that resembles model strategy \(customers can choose the model\) is not about an AI product, and it does not apply/,
    );
  });

  it("scores what the site shows on the dimension's population curve, not by blending with the prior", () => {
    expect(onCurve("enterprise_readiness", 0)).toBe(0);
    expect(onCurve("enterprise_readiness", 100)).toBeGreaterThan(90);
    expect(onCurve("enterprise_readiness", 40)).toBeGreaterThan(onCurve("enterprise_readiness", 20));
    expect([confidenceFor(0), confidenceFor(0.3), confidenceFor(0.6)]).toEqual(["low", "medium", "high"]);
  });

  it("quotes the page in the evidence and explains what raised the score", async () => {
    const enterprise = dimension(
      await scorer.score({ crawl: withSso, framework: "maturity", mode: "full" }),
      "enterprise_readiness",
    );
    expect(enterprise).toMatchObject({ score: Math.round(onCurve("enterprise_readiness", 90)), confidence: "high" });
    expect(enterprise.evidence).toBe("Enterprise plan with SAML SSO. (https://acme.example/)");
    expect(enterprise.reasoning).toBe("Raised by: SSO offered. To raise it: Offer SAML SSO.");
  });

  it("counts context as self-reported: it lifts a thin dimension a little and is marked, but cannot outweigh the site", async () => {
    const claimed = await scorer.score({
      crawl: without,
      context: "We offer SAML SSO to enterprise customers.",
      framework: "maturity",
      mode: "full",
    });
    const enterprise = dimension(claimed, "enterprise_readiness");
    expect(enterprise.score).toBeGreaterThan(5);
    expect(enterprise.score).toBeLessThanOrEqual(15);
    expect(enterprise.confidence).toBe("medium");
    expect(enterprise.evidence).toContain('Self-reported: "We offer SAML SSO to enterprise customers."');
    expect(claimed.crossDimensionNotes).toMatch(/self-reported evidence to 1 dimension/);

    const shown = dimension(
      await scorer.score({ crawl: withSso, context: "We have no SSO at all.", framework: "maturity", mode: "full" }),
      "enterprise_readiness",
    );
    expect(shown.score).toBe(Math.round(onCurve("enterprise_readiness", 90)));
  });

  it("rates nothing above medium confidence in quick mode", async () => {
    const quick = await scorer.score({ crawl: withSso, framework: "maturity", mode: "quick" });
    expect(dimension(quick, "enterprise_readiness").confidence).toBe("medium");
    expect(quick).toMatchObject({ mode: "quick", framework: "maturity", frameworkVersion: "2.12.0" });
  });

  it("reports each of the 27 dimensions as it is scored", async () => {
    const steps: number[] = [];
    await scorer.score({ crawl: without, framework: "product", mode: "full", onDimension: (k) => steps.push(k) });
    expect(steps).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
  });
});
