import { describe, expect, it } from "vitest";
import { syntheticFacts } from "../../support/synthetic-crawl.js";

/**
 * Every rule reads the site through a view (about(dimension), securityPages()). What is
 * computed once per crawl must be computed once for all views: when each view kept its
 * own, the 27 dimension views rebuilt the link index 27 times and scoring a rubric-dense
 * crawl took 2–3× longer (bench:score).
 */
describe("SiteFacts views", () => {
  it("share what is computed once per crawl", () => {
    const facts = syntheticFacts([
      { path: "/", text: "Acme sends invoices for small teams.", links: ["/pricing", "/blog/2024-01-02-launch"] },
      { path: "/pricing", title: "Pricing", text: "Starter $10 a month." },
    ]);
    const memo = (view: object) => (view as { memo: Record<string, unknown> }).memo;
    const onboarding = facts.about("onboarding_activation");
    expect(onboarding.linksMatching(/pricing/).length).toBe(1);
    onboarding.front;
    const shared = memo(facts);
    expect(shared.links).toBeDefined();
    expect(shared.linkLines).toBeDefined();
    expect(shared.front).toBe(facts.home);
    for (const view of [
      facts.about("pricing_packaging"),
      facts.securityPages(),
      facts.about("talent_organization").securityPages(),
    ]) {
      expect(memo(view)).toBe(shared);
      expect(Object.keys(view)).not.toContain("links");
    }
  });
});
