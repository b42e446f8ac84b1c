import { describe, expect, it } from "vitest";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import { customerSuccess } from "../../../src/modules/scoring/rules/growth-organization.js";
import { customerProof } from "../../../src/modules/scoring/rules/market-strategy.js";
import { SiteFacts } from "../../../src/modules/scoring/site-facts.js";
import type { CrawlResult } from "../../../src/modules/crawl/crawl.types.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticCrawl, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * What counts as evidence of customers and of how they are supported (framework 2.3.0):
 * each case is the general shape of a false reading seen on real sites.
 */
const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });

describe("'companies like X' names customers only when they use the product", () => {
  it.each([
    [
      "a comparison in a testimonial",
      "Your app is measured against billion dollar companies like Facebook by your users.",
    ],
    ["a feature list", "It has features useful for large companies like a virtual assistant and intelligent routing."],
    ["a bio", "Before joining, she led cloud security products at companies like Symantec and Cisco."],
  ])("not %s", (_, text) => {
    expect(customerProof(syntheticFacts([...BARE_SITE, page("/about", text)])).lowered).toContain(
      'no logo wall or customer list ("trusted by …")',
    );
  });

  it("but companies that use, trust or run on it", () => {
    for (const text of [
      "Companies like Stripe and Shopify use Acme to ship faster.",
      "Companies such as Lufthansa rely on Acme every day.",
    ]) {
      expect(customerProof(syntheticFacts([...BARE_SITE, page("/customers", text)])).raised).toContain(
        'names customers ("trusted by …")',
      );
    }
  });
});

describe("a help centre is the site's own support section", () => {
  it("not an FAQ page, which counts as an FAQ", () => {
    const assessment = customerSuccess(
      syntheticFacts([...BARE_SITE, page("/faq", "What is Acme? A network for builders.", "Acme - FAQ")]),
    );
    expect(assessment.lowered).toContain("an FAQ, but no help centre");
    expect(assessment.raised).not.toContain("a help centre");
  });

  it("not a page of the docs that happens to sit in a help folder", () => {
    const assessment = customerSuccess(
      syntheticFacts([...BARE_SITE, { path: "/docs", links: ["/docs/current/modules/help/HelpCommandHandlers.html"] }]),
    );
    expect(assessment.lowered).toContain("no help centre");
  });

  it("not another company's help centre (a partner's help host)", () => {
    const assessment = customerSuccess(
      syntheticFacts([
        ...BARE_SITE,
        {
          path: "/docs",
          externalLinks: ["https://help.okta.com/en/prod/Content/Topics/Security/Identity_Providers.htm"],
        },
      ]),
    );
    expect(assessment.lowered).toContain("no help centre");
    // Under a country's second level the registrable domain has three labels: help.other.co.uk is not acme.co.uk's.
    const onCoUk = (link: string) =>
      new SiteFacts(
        JSON.parse(
          JSON.stringify(syntheticCrawl([...BARE_SITE, { path: "/docs", externalLinks: [link] }]))
            .split(SYNTHETIC_ORIGIN)
            .join("https://acme.co.uk"),
        ) as CrawlResult,
      );
    expect(customerSuccess(onCoUk("https://help.other.co.uk/")).lowered).toContain("no help centre");
    expect(customerSuccess(onCoUk("https://help.acme.co.uk/")).raised).toContain("a help centre linked (not crawled)");
  });

  it("but its own help host, a hosted help desk named after it, or a top-level /support section", () => {
    for (const link of ["https://help.acme.example/", "https://acme.example/support"]) {
      const assessment = customerSuccess(syntheticFacts([...BARE_SITE, { path: "/pricing", externalLinks: [link] }]));
      expect(assessment.raised, link).toContain("a help centre linked (not crawled)");
    }
    const hosted = customerSuccess(
      syntheticFacts([
        ...BARE_SITE,
        { path: "/pricing", namedLinks: [{ href: "https://acme.zendesk.com/hc/en-us", text: "Help Center" }] },
      ]),
    );
    expect(hosted.raised).toContain("a help centre linked (not crawled)");
  });
});

describe("a sales-led vendor's support", () => {
  it("is not marked down for a help centre it has no reason to publish: its support terms are in the contract", () => {
    const vendor = [
      page("/", "Structured reinsurance programmes for insurers. Request a consultation with our underwriters."),
      page("/about", "Acme Underwriting is an underwriting manager based in Singapore."),
    ];
    const result = new HeuristicScorer().scoreSync({
      crawl: syntheticCrawl(vendor),
      framework: "maturity",
      mode: "full",
    });
    const success = result.dimensions.find((dimension) => dimension.dimensionId === "customer_success")!;
    expect(success.applicable).toBe(false);
    expect(success.reasoning).toMatch(/sells through a sales conversation/);
  });

  it("but a self-serve product that shows no support is still early", () => {
    const product = [
      page("/", "Acme: analytics for small shops. Start your free trial."),
      page("/pricing", "Starter $19/month. Pro $49/month."),
    ];
    const result = new HeuristicScorer().scoreSync({
      crawl: syntheticCrawl(product),
      framework: "maturity",
      mode: "full",
    });
    expect(result.dimensions.find((dimension) => dimension.dimensionId === "customer_success")!.applicable).not.toBe(
      false,
    );
  });
});
