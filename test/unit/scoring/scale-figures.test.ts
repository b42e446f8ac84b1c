import { describe, expect, it } from "vitest";
import { companyMomentum } from "../../../src/modules/scoring/rules/growth-organization.js";
import { factsAbout, page, said } from "../../support/scoring-cases.js";
import { syntheticFacts } from "../../support/synthetic-crawl.js";

/**
 * Framework 2.10.0: the volume a company says its product carries is a scale figure, read with the growth figures.
 * The growth pattern wanted customers, users or teams after the number; "we now transfer an average of 1.5 million
 * files a day" (mover-io) and "$1.5+ Billion / in digital assets powered by our contracts" (zeppelin-2019, the figure
 * and its caption on two lines) said "no growth figures".
 */
const momentum = (pages: Parameters<typeof factsAbout>[0]) => companyMomentum(factsAbout(pages, "company_momentum"));
const figureLine = (assessment: ReturnType<typeof companyMomentum>) =>
  said(assessment).find((line) => /growth or scale figure/.test(line));

describe("company_momentum reads the company's own volumes as scale (framework 2.10.0)", () => {
  it("reads 'we … transfer an average of 1.5 million files a day' on a blog post, quoting the sentence", () => {
    const assessment = momentum([
      page(
        "/blog/more-connectors",
        "Our portfolio grew again. As a result we now transfer an average of 1.5 million files a day!",
        "19 cloud connectors",
      ),
    ]);
    expect(figureLine(assessment)).toBe("1 growth or scale figure stated");
    expect(assessment.evidence).toContainEqual({
      url: expect.stringContaining("/blog/more-connectors"),
      text: "As a result we now transfer an average of 1.5 million files a day!",
      quoted: true,
    });
  });

  it("reads a figure whose caption is the next line, giving both lines joined and not as a quote", () => {
    const facts = syntheticFacts([
      {
        path: "/",
        title: "Zeppelin",
        text: "Open infrastructure for an open economy\n$1.5+ Billion\nin digital assets powered by our contracts\n$600+ Million\nraised through our audited systems",
      },
    ]);
    const assessment = companyMomentum(facts.about("company_momentum"));
    expect(figureLine(assessment)).toBe("2 growth or scale figures stated");
    expect(assessment.evidence).toContainEqual({
      url: expect.any(String),
      text: "$1.5+ Billion in digital assets powered by our contracts",
    });
    expect(assessment.evidence.filter((item) => item.quoted).map((item) => item.text)).not.toContain(
      "$1.5+ Billion in digital assets powered by our contracts",
    );
  });

  it("reads the company's own name as the subject ('Acme performs over 6 billion scans every year')", () => {
    expect(figureLine(momentum([page("/about", "Acme performs over 6 billion scans every year.", "About")]))).toBe(
      "1 growth or scale figure stated",
    );
  });

  it.each([
    ["a plan's allowance", "/product", "You can send up to 10,000 emails a month on the free plan."],
    ["a supposition", "/product", "If we process 1 million events for you, the bill is $20."],
    ["another company's volume", "/blog/case", "Stripe processes over 1 billion payments a year for its users."],
    ["a figure without a verb of scale", "/about", "We are 12 people and 3 offices."],
    ["a pricing page's limit", "/pricing", "We process 250,000 errors per month on the Pro plan."],
  ])("does not read %s as scale", (_kind, path, text) => {
    expect(figureLine(momentum([page(path, text, "Page")]))).toBe("no growth or scale figures");
  });
});
