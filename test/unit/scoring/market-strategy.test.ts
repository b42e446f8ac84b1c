import { describe, expect, it } from "vitest";
import {
  customerProof,
  marketIntelligence,
  marketStrategyRules,
  targetSegments,
  valueProposition,
} from "../../../src/modules/scoring/rules/market-strategy.js";
import { pricingPackaging } from "../../../src/modules/scoring/rules/pricing-packaging.js";
import { at, expectRaises } from "../../support/rule-assertions.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const HOME = at("/");

describe("market strategy rules", () => {
  it("covers the pillar's five dimensions, pricing_packaging included", () => {
    expect(Object.keys(marketStrategyRules).sort()).toEqual([
      "customer_proof",
      "market_intelligence",
      "pricing_packaging",
      "target_segments",
      "value_proposition",
    ]);
    expect(marketStrategyRules.pricing_packaging).toBe(pricingPackaging);
  });
});

describe("market_intelligence", () => {
  it.each<[string, PageSpec[], string]>([
    ["a comparison page linked", [{ path: "/", links: ["/vs/zendesk"] }], at("/vs/zendesk")],
    [
      "a crawled comparison page",
      [{ path: "/" }, { path: "/compare/acme-zendesk", headings: [{ level: 1, text: "Acme vs Zendesk" }] }],
      at("/compare/acme-zendesk"),
    ],
    ["an alternatives page", [{ path: "/", links: ["/alternatives/intercom"] }], at("/alternatives/intercom")],
    [
      "published research",
      [
        { path: "/" },
        { path: "/blog/report", text: "The State of Support 2026 report surveyed 1,200 support leaders." },
      ],
      at("/blog/report"),
    ],
    ["a named category", [{ path: "/", text: "Named a Leader in the Gartner Magic Quadrant for CX." }], HOME],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(marketIntelligence, pages, url);
  });

  it("rises with the number of comparison pages, on a curve", () => {
    const one = marketIntelligence(syntheticFacts([{ path: "/", links: ["/vs/zendesk"] }]));
    const six = marketIntelligence(
      syntheticFacts([
        {
          path: "/",
          links: ["zendesk", "intercom", "freshdesk", "front", "helpscout", "gorgias"].map((c) => `/vs/${c}`),
        },
      ]),
    );
    expect(six.raw).toBeGreaterThan(one.raw + 10);
    expect(six.raised).toContain("6 comparison or alternatives pages");
  });
});

describe("value_proposition", () => {
  it.each<[string, PageSpec[]]>([
    [
      "a specific headline",
      [{ path: "/", headings: [{ level: 1, text: "Resolve support tickets faster for growing teams" }] }],
    ],
    [
      "a meta description",
      [
        {
          path: "/",
          metaDescription:
            "Acme helps support teams resolve tickets 3x faster with AI drafts, shared inboxes and SLAs.",
        },
      ],
    ],
    [
      "quantified outcomes on the home page",
      [{ path: "/", text: "Customers cut response times by 38%. Teams resolve 2x more tickets." }],
    ],
    [
      "a problem → solution narrative",
      [{ path: "/", text: "Tired of juggling spreadsheets? Acme lets you track every request in one place." }],
    ],
  ])("rises with %s", (_, pages) => {
    expectRaises(valueProposition, pages, HOME);
  });

  it("scores a specific headline above a buzzword one", () => {
    const headline = (text: string) =>
      valueProposition(syntheticFacts([{ path: "/", headings: [{ level: 1, text }] }]));
    const specific = headline("Resolve support tickets faster for growing teams");
    const vague = headline("The revolutionary, next-gen platform of the future");
    expect(specific.raw).toBeGreaterThan(vague.raw + 20);
    expect(specific.raised).toContain("a specific headline (outcome and audience)");
    expect(vague.lowered).toContain("a vague headline (no outcome or audience, or buzzwords)");
    expect(specific.evidence[0]).toEqual({
      url: HOME,
      text: 'headline: "Resolve support tickets faster for growing teams"',
    });
  });

  it("counts quantified outcomes on the home page only", () => {
    const elsewhere = valueProposition(
      syntheticFacts([{ path: "/" }, { path: "/about", text: "We cut costs by 38%." }]),
    );
    expect(elsewhere.coverage).toBe(0);
  });

  it("reads the page a reader clicks through to when the home page says nothing of its own", () => {
    const product = {
      path: "/structured",
      headings: [{ level: 1 as const, text: "Cut reinsurance costs for insurance teams" }],
      text: "Our programmes cut frictional costs by 30% for mid-sized insurers.",
    };
    const legal = {
      path: "/disclaimer",
      text: `${"The information on this website is for general purposes only. ".repeat(20)}`,
    };
    const empty = valueProposition(
      syntheticFacts([{ path: "/" }, legal, { path: "/contact", text: "Principal Officer, Labuan." }, product]),
    );
    expect(empty.evidence[0]).toEqual({
      url: at("/structured"),
      text: 'headline: "Cut reinsurance costs for insurance teams"',
    });
    expect(empty.raised).toContain("1 quantified outcome on /structured (the home page has no words of its own)");
    // A home page with words of its own speaks for itself, however bare its headline.
    const spoken = valueProposition(
      syntheticFacts([
        {
          path: "/",
          text: "Acme underwrites structured programmes from Labuan for insurers and captives across Asia, with rated capacity from A- reinsurers behind every single programme that we write for our clients.",
        },
        product,
      ]),
    );
    expect(spoken.evidence.some((item) => item.url === at("/structured"))).toBe(false);
  });

  it("does not read a site generator's default description as the company's", () => {
    const generated = valueProposition(
      syntheticFacts([{ path: "/", metaDescription: "A website built through Hugo and blogdown." }]),
    );
    expect(generated.lowered).toContain("no meta description on the home page");
    const wordpress = valueProposition(syntheticFacts([{ path: "/", metaDescription: "Just another WordPress site" }]));
    expect(wordpress.lowered).toContain("no meta description on the home page");
    const own = valueProposition(
      syntheticFacts([
        {
          path: "/",
          metaDescription: "Acme resolves support tickets faster for growing teams, with AI that drafts every answer.",
        },
      ]),
    );
    expect(own.lowered).not.toContain("no meta description on the home page");
  });
});

describe("target_segments", () => {
  it.each<[string, PageSpec[], string]>([
    [
      "solutions pages by industry",
      [{ path: "/", links: ["/solutions/healthcare", "/solutions/fintech"] }],
      at("/solutions/healthcare"),
    ],
    ["named segments", [{ path: "/", text: "Built for startups and enterprises alike." }], HOME],
    [
      "plans named for segments",
      [{ path: "/" }, { path: "/pricing", title: "Pricing", headings: ["Startup", "Team", "Enterprise"] }],
      at("/pricing"),
    ],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(targetSegments, pages, url);
  });

  it("rises with the number of segments served", () => {
    const two = targetSegments(syntheticFacts([{ path: "/", text: "Built for startups and enterprises." }]));
    const many = targetSegments(
      syntheticFacts([
        {
          path: "/",
          text: "Built for startups, agencies and enterprises. Made for healthcare, fintech, retail and education teams.",
        },
      ]),
    );
    expect(many.raw).toBeGreaterThan(two.raw);
  });
});

describe("customer_proof", () => {
  const story = (text: string): PageSpec[] => [{ path: "/" }, { path: "/customers/globex", title: "Globex", text }];

  it.each<[string, PageSpec[], string]>([
    ["case studies", story("How Globex runs support on Acme."), at("/customers/globex")],
    ["named customers", [{ path: "/", text: "Trusted by 10,000+ teams at Globex and Initech." }], HOME],
    [
      "a named customer choosing it, in prose",
      [
        {
          path: "/",
          text: "Our platform cuts costs. EasyJet, UK's largest airline, selected FlightWatching for its maintenance.",
        },
      ],
      HOME,
    ],
    [
      "testimonials with names and roles",
      [{ path: "/", text: "“Acme changed how we work.” — Jane Doe, CTO at Globex" }],
      HOME,
    ],
    ["review-site ratings", [{ path: "/", text: "Rated 4.8/5 on G2." }], HOME],
  ])("rises with %s", (_, pages, url) => {
    expectRaises(customerProof, pages, url);
  });

  it("rises with numbers in the case studies", () => {
    const plain = customerProof(syntheticFacts(story("How Globex runs support on Acme.")));
    const measured = customerProof(
      syntheticFacts(story("Globex cut onboarding time by 40%. Agents now handle 3x more tickets.")),
    );
    expect(measured.raw).toBeGreaterThan(plain.raw);
    expect(measured.raised).toContain("2 measured results in customer stories");
    expect(measured.evidence.map((item) => item.url)).toContain(at("/customers/globex"));
  });

  it("rises with the number of case studies, and a customers page without stories is weak", () => {
    const indexOnly = customerProof(syntheticFacts([{ path: "/" }, { path: "/customers", title: "Customers" }]));
    const one = customerProof(syntheticFacts([{ path: "/", links: ["/customers/globex"] }]));
    const twelve = customerProof(
      syntheticFacts([{ path: "/", links: Array.from({ length: 12 }, (_, i) => `/customers/c${i}`) }]),
    );
    expect(indexOnly.lowered).toContain("a customers page without individual case studies");
    expect(one.raw).toBeGreaterThan(indexOnly.raw);
    expect(twelve.raw).toBeGreaterThan(one.raw + 10);
  });

  it("does not read a pronoun or an article choosing something as a named customer", () => {
    for (const text of [
      "We selected Postgres for durability.",
      "Our team chose React.",
      "The committee selected Acme. They chose us.",
    ]) {
      expect(customerProof(syntheticFacts([{ path: "/", text }])).lowered).toContain(
        'no logo wall or customer list ("trusted by …")',
      );
    }
  });

  it("values a larger stated customer base more", () => {
    const small = customerProof(syntheticFacts([{ path: "/", text: "Trusted by 200 teams." }]));
    const large = customerProof(syntheticFacts([{ path: "/", text: "Trusted by 250,000 teams." }]));
    expect(large.raw).toBeGreaterThan(small.raw);
    expect(large.raised).toContain("claims 250,000 customers");
  });
});
