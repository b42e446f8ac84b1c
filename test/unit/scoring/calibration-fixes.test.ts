import { describe, expect, it } from "vitest";
import { classifyPage } from "../../../src/modules/crawl/page-priority.js";
import {
  companyMomentum,
  customerSuccess,
  growthDistribution,
  talentOrganization,
} from "../../../src/modules/scoring/rules/growth-organization.js";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import {
  customerProof,
  marketIntelligence,
  targetSegments,
} from "../../../src/modules/scoring/rules/market-strategy.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticCrawl, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * False positives and misses found on the real-site calibration corpus (framework
 * 2.1.0): each case is the general shape of what a real site showed.
 */
const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });

describe("careers pages under other names", () => {
  it.each(["/joinus/", "/open-positions", "/vacancies"])("reads %s as a careers page", (path) => {
    expect(classifyPage(`${SYNTHETIC_ORIGIN}${path}`)).toBe("careers");
  });

  it("counts the openings of a /joinus page", () => {
    const assessment = talentOrganization(
      syntheticFacts([
        ...BARE_SITE,
        page("/joinus/", "Current openings\nSoftware Engineer\nCommunity Manager\nFrontend Engineer"),
      ]),
    );
    expect(assessment.raised).toContain("a careers page");
    expect(assessment.raised).toContain("careers page lists 3 openings");
  });

  it("reads a Greenhouse short link (grnh.se) as openings on a job board", () => {
    const assessment = talentOrganization(
      syntheticFacts([...BARE_SITE, { path: "/jobs", title: "Jobs", externalLinks: ["https://grnh.se/27a904723us"] }]),
    );
    expect(assessment.raised).toContain("openings hosted on a job board (not crawled)");
  });
});

describe("boilerplate is not evidence", () => {
  it("a code host's release diff is not a comparison page", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      { path: "/news/v4", externalLinks: ["https://github.com/acme/acme/compare/v3.5.1...v4.0.0"] },
    ]);
    expect(marketIntelligence(facts).coverage).toBe(0);
  });

  it("help-desk articles are not solutions pages by segment", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      {
        path: "/help",
        externalLinks: ["https://acme.freshdesk.com/support/solutions/articles/26000013826-how-to-accept-paypal"],
      },
    ]);
    expect(targetSegments(facts).lowered).toContain("no solutions pages by industry, role or size");
  });

  it("'backed by' names funding only with investors or a fund", () => {
    const infrastructure = companyMomentum(
      syntheticFacts([
        ...BARE_SITE,
        page("/security", "Acme is backed by Amazon AWS, a proven infrastructure provider."),
      ]),
    );
    expect(infrastructure.lowered).toContain("no funding or investors named");
    const fund = companyMomentum(syntheticFacts([...BARE_SITE, page("/about", "We are backed by Mosaic Ventures.")]));
    expect(fund.raised).toContain("funding or investors named");
  });

  it("a bare 'affiliate' in a privacy policy is not an affiliate programme", () => {
    const privacy = growthDistribution(
      syntheticFacts([
        ...BARE_SITE,
        page("/privacy", "We may share data with a parent, subsidiary, or affiliate of our company."),
      ]),
    );
    expect(privacy.lowered).toContain("no partner or affiliate programme");
    const programme = growthDistribution(
      syntheticFacts([...BARE_SITE, page("/partners", "Join our affiliate program and earn 20%.")]),
    );
    expect(programme.raised).toContain("a partner, affiliate or referral programme");
  });

  it("growth figures need a magnitude", () => {
    const small = companyMomentum(
      syntheticFacts([...BARE_SITE, page("/docs/tags", "Send it to a list with 2 users.")]),
    );
    expect(small.lowered).toContain("no growth or scale figures");
    const large = companyMomentum(syntheticFacts([...BARE_SITE, page("/about", "Used by 2,500 teams worldwide.")]));
    expect(large.raised).toContain("1 growth or scale figure stated");
    // A size a sentence speaks of is not a claim about the company (framework 2.4.0).
    const size = companyMomentum(
      syntheticFacts([
        ...BARE_SITE,
        page("/faq", "It looks like most sites under 10,000 users have one or two servers."),
        page("/scale", "It runs deployments of up to 10 million users on one cluster."),
      ]),
    );
    expect(size.lowered).toContain("no growth or scale figures");
  });

  it("a legal page's 'last updated' date is not news or history", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      { path: "/policies/terms", title: "Terms", text: "Last updated", dates: ["2026-10-30"] },
    ]);
    expect(companyMomentum(facts).lowered).toContain("no dated content");
    const news = syntheticFacts([
      ...BARE_SITE,
      { path: "/news", title: "News", text: "Launch", dates: ["2026-10-30"] },
    ]);
    expect(companyMomentum(news).raised.some((fact) => fact.startsWith("newest dated content 2026-10-30"))).toBe(true);
  });

  it("'response times' is support's only when it says so, and a refund window is not support", () => {
    for (const text of [
      "We collect page response times and download errors.",
      "Fast response times at the edge.",
      "Ask for a refund within 7 days of payment.",
    ]) {
      expect(customerSuccess(syntheticFacts([...BARE_SITE, page("/product", text)])).lowered).toContain(
        "no support hours or response times",
      );
    }
    for (const text of [
      "Our average response times are under an hour.",
      "We reply within 4 hours.",
      "Support answers within 1 business day.",
    ]) {
      expect(customerSuccess(syntheticFacts([...BARE_SITE, page("/support", text)])).raised).toContain(
        "support hours or response times",
      );
    }
  });

  it("'used by' names customers only when it says by whom, or labels a logo strip", () => {
    for (const text of [
      "Software downloaded by / used by You on a personal device.",
      "The same encryption standard used by banks.",
    ]) {
      expect(customerProof(syntheticFacts([...BARE_SITE, page("/eula", text)])).raised).not.toContain(
        'names customers ("trusted by …")',
      );
    }
    for (const text of ["Used by", "Used by leading airlines."]) {
      expect(customerProof(syntheticFacts([...BARE_SITE, page("/product", text)])).raised).toContain(
        'names customers ("trusted by …")',
      );
    }
    // A count with any one word before its noun is a stated base (framework 2.12.0).
    expect(
      customerProof(syntheticFacts([...BARE_SITE, page("/product", "Used by 500 engineering teams.")])).raised,
    ).toContain("claims 500 customers");
  });
});

describe("a faint reading on a site read thoroughly", () => {
  it("weighs like silence (medium confidence), and the reasoning says the absence is the finding", () => {
    // Ten pages of ordinary prose: enough read that an absence is itself the finding.
    const prose = (i: number) =>
      Array.from(
        { length: 8 },
        (_, k) => `Paragraph ${k} of page ${i} explains how the tool works for its makers.`,
      ).join(" ");
    const pages = [
      ...BARE_SITE,
      ...Array.from({ length: 9 }, (_, i) => page(`/page-${i}`, prose(i))),
      page("/product", "Trusted by makers everywhere."),
    ];
    const result = new HeuristicScorer().scoreSync({
      crawl: syntheticCrawl(pages),
      framework: "maturity",
      mode: "full",
    });
    const proof = result.dimensions.find((dimension) => dimension.dimensionId === "customer_proof")!;
    expect(proof.confidence).toBe("medium");
    expect(proof.reasoning).toContain("Little of it shows on a site read thoroughly");
  });
});
