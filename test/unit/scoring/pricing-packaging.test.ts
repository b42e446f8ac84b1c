import { describe, expect, it } from "vitest";
import { pricingPackaging } from "../../../src/modules/scoring/rules/pricing-packaging.js";
import { syntheticFacts } from "../../support/synthetic-crawl.js";

describe("pricing_packaging", () => {
  it("has nothing observable without a pricing page or pricing words", () => {
    const assessment = pricingPackaging(syntheticFacts([{ path: "/", text: "We build things." }]));
    expect(assessment.coverage).toBe(0);
    expect(assessment.lowered).toContain("no pricing page found");
  });

  it("rises with prices, tiers, a free plan, units, annual billing and an enterprise path", () => {
    const thin = pricingPackaging(
      syntheticFacts([{ path: "/" }, { path: "/pricing", title: "Pricing", text: "Contact us." }]),
    );
    const rich = pricingPackaging(
      syntheticFacts([
        { path: "/", text: "Start free today." },
        {
          path: "/pricing",
          title: "Pricing",
          headings: ["Free", "Pro", "Business", "Enterprise"],
          text: "Pro $49 per user per month. Business $99 per user. Billed annually, save 20%. Enterprise: contact sales.",
          prices: [{ amount: 0 }, { amount: 49 }, { amount: 99 }],
        },
      ]),
    );
    expect(thin.lowered).toContain("pricing page shows no prices");
    expect(rich.raw).toBeGreaterThan(thin.raw + 40);
    expect(rich.coverage).toBeGreaterThan(thin.coverage);
    expect(rich.evidence[0]).toMatchObject({
      url: "https://acme.example/pricing",
      text: expect.stringContaining("lists 3 prices"),
    });
  });
});
