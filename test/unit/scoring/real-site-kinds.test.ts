import { describe, expect, it } from "vitest";
import { classifyPage } from "../../../src/modules/crawl/page-priority.js";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import { ENDING_PRODUCT_CAP } from "../../../src/modules/scoring/result-builder.js";
import { architectureSystems, reliabilityOperations } from "../../../src/modules/scoring/rules/engineering-delivery.js";
import {
  communityEcosystem,
  growthDistribution,
  talentOrganization,
} from "../../../src/modules/scoring/rules/growth-organization.js";
import { customerProof, marketIntelligence } from "../../../src/modules/scoring/rules/market-strategy.js";
import { complianceCertifications, securityPosture } from "../../../src/modules/scoring/rules/trust-enterprise.js";
import { siteProfile } from "../../../src/modules/scoring/site-profile.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticCrawl, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Kinds of site a blind check of the scorer misjudged (framework 2.2.0, the
 * corpus additions of the renderer work): each case is the general shape of what a real site showed.
 */
const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });
const score = (pages: PageSpec[]) =>
  new HeuristicScorer().scoreSync({ crawl: syntheticCrawl(pages), framework: "maturity", mode: "full" });
const dimension = (result: ReturnType<typeof score>, id: string) =>
  result.dimensions.find((item) => item.dimensionId === id)!;

describe("an open-source project is one that says its own product is open source", () => {
  it("not a team that used or worked on open source", () => {
    const used = syntheticFacts([
      ...BARE_SITE,
      page(
        "/method",
        "Loss distributions are fitted with non-linear regression in the open source R programming language.",
      ),
    ]);
    const worked = syntheticFacts([
      ...BARE_SITE,
      page(
        "/about",
        "The team has participated in the development of many blockchain open source projects including Ethereum.",
      ),
    ]);
    const contributor = syntheticFacts([
      ...BARE_SITE,
      page("/team", "Mark is a contributor to open-source software since he was 15."),
    ]);
    for (const facts of [used, worked, contributor]) expect(siteProfile(facts).openSource).toBe(false);
  });

  it("but a product that calls itself open source, or gives its licence", () => {
    expect(
      siteProfile(syntheticFacts([page("/", "A modern, open source text editor that understands web design.")]))
        .openSource,
    ).toBe(true);
    expect(
      siteProfile(
        syntheticFacts([page("/", "RadiusKit is developed under the GNU General Public License, version 2.")]),
      ).openSource,
    ).toBe(true);
  });
});

describe("a sales-led vendor (no prices, a sales path)", () => {
  const vendor = [
    page("/", "Payment infrastructure for banks in 14 countries. Talk to sales to see how we process $40bn a year."),
    page("/about", "Offices in London, Singapore and New York. Backed by Index Ventures."),
    page(
      "/regulation",
      "Acme Payments Ltd is authorised and regulated by the Financial Conduct Authority (FRN 123456).",
    ),
  ];

  it("is not marked down for the public docs, changelog and self-serve start it has no reason to publish", () => {
    const result = score(vendor);
    for (const id of ["documentation_quality", "developer_platform", "delivery_velocity", "pricing_packaging"]) {
      expect(dimension(result, id).applicable, id).toBe(false);
      expect(dimension(result, id).reasoning).toMatch(/sells through a sales conversation/);
    }
  });

  it("quotes its sales path whole words only, marking a cut with an ellipsis", () => {
    const long = [
      page("/", "Harbour Underwriting. About. Contact."),
      page(
        "/regulation",
        "Harbour Underwriting Limited (formerly known as Bay Underwriting Limited, “BUL”) is licensed by the Labuan Financial Services Authority.",
      ),
    ];
    const reasoning = dimension(score(long), "pricing_packaging").reasoning;
    expect(reasoning).toMatch(/\("Harbour Underwriting Limited \(formerly known as Bay Underwriting Limited…"\)/);
  });

  it("counts a regulator's licence as compliance, and a regulation page as its compliance page", () => {
    const compliance = complianceCertifications(syntheticFacts(vendor));
    expect(compliance.coverage).toBeGreaterThan(0);
    expect([...compliance.raised, ...compliance.lowered].join(" ")).toMatch(
      /1 certification or regulation: a regulator's licence/,
    );
    expect(classifyPage(`${SYNTHETIC_ORIGIN}/regulation`)).toBe("security");
    // It is compliance evidence, not a description of how the firm keeps data safe (framework 2.4.0).
    const security = securityPosture(syntheticFacts(vendor));
    expect(security.raised).not.toContain("a security page");
    expect(security.lowered).toContain("no security page or trust centre");
    const both = securityPosture(
      syntheticFacts([...vendor, page("/security", "We encrypt data at rest with AES-256.", "Security")]),
    );
    expect(both.raised).toContain("a security page");
    const labuan = complianceCertifications(
      syntheticFacts([...BARE_SITE, page("/x", "Licence No. US201226 from the Labuan FSA.")]),
    );
    expect([...labuan.raised, ...labuan.lowered].join(" ")).toMatch(/a regulator's licence/);
  });
});

describe("a product that announces its own end", () => {
  it("is capped at Foundation, whatever its site once built, and the note quotes the announcement", () => {
    const rich = [
      page("/", "On September 1, 2021, Acme will end support for Acme Editor. Thank you to everyone who used it."),
      ...["/docs", "/customers", "/careers", "/changelog", "/security"].map((path) =>
        page(
          path,
          `The ${path.slice(1)} page of a product that once grew. SOC 2 Type II certified. Trusted by 4,000 teams.`,
        ),
      ),
    ];
    const result = score(rich);
    expect(result.totalScore).toBeLessThanOrEqual(ENDING_PRODUCT_CAP);
    expect(result.stageName).toBe("Foundation");
    expect(result.crossDimensionNotes).toMatch(
      /announces the product's end \("On September 1, 2021, Acme will end support for Acme Editor\."\)/,
    );
    expect(result.antiPatternsDetected.some((item) => /Announces its own end/.test(item))).toBe(true);
  });

  it("but not for a terms page's 'we may discontinue the Service' or an old version's end of life", () => {
    const result = score([
      page(
        "/",
        "Acme 3 is here. Versions 1 and 2 are end of life and no longer supported. We may discontinue the Service at any time.",
      ),
    ]);
    expect(result.crossDimensionNotes).not.toMatch(/announces the product's end/);
  });
});

describe("evidence that is about its dimension", () => {
  it("a metric compared with another is not a comparison with a competitor", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      page("/okrs", "Key Result: Generate X% increase in trial signups vs Q2."),
      page("/benchmarks", "Response Times vs. Payload Size."),
      { path: "/blog", links: [`${SYNTHETIC_ORIGIN}/2016-04-01-response-time-vs-payload-size`] },
    ]);
    expect(marketIntelligence(facts).raised.join(" ")).not.toMatch(/comparison/);
    const real = syntheticFacts([...BARE_SITE, page("/compare", "Acme vs Zendesk: what teams pick and why.")]);
    expect(marketIntelligence(real).raised.join(" ") + marketIntelligence(real).lowered.join(" ")).toMatch(
      /1 comparison or alternatives page/,
    );
  });

  it("one customer story's five figures count as at most two measured results", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      page(
        "/customers",
        "Cheers improved speed 300%. 18% more messages. 3x faster uploads. 15 minutes to integrate. 2x conversions.",
      ),
    ]);
    expect(customerProof(facts).raised.concat(customerProof(facts).lowered).join(" ")).toMatch(
      /2 measured results in customer stories/,
    );
  });

  it("openings listed on an about page under 'Join us' are openings", () => {
    const about = page(
      "/about",
      "About us\nJoin Us\nBlockchain Development (Rust)\nResponsibilities:\nBuild the network.\nBackend Development Engineer (Golang)\nMinimum Qualifications:\nTwo years of Go.",
    );
    const found = talentOrganization(syntheticFacts([...BARE_SITE, about]));
    expect([...found.raised, ...found.lowered]).toContain("/about lists 2 openings");
    const noAds = talentOrganization(
      syntheticFacts([
        ...BARE_SITE,
        page("/about", "About us\nJoin us on our journey\nOur Head of Product\nShe joined in 2019."),
      ]),
    );
    expect(noAds.lowered).toContain("no job openings found");
  });
});

describe("customers named in prose (framework 2.4.0)", () => {
  it("an idea used by companies is not the product used by customers", () => {
    const idea = customerProof(
      syntheticFacts([
        ...BARE_SITE,
        page("/pricing", "This model is also used by companies offering services at a monthly fee."),
      ]),
    );
    expect(idea.lowered).toContain('no logo wall or customer list ("trusted by …")');
    const product = customerProof(
      syntheticFacts([...BARE_SITE, page("/about", "Acme is used by companies in 40 countries.")]),
    );
    expect(product.raised).toContain('names customers ("trusted by …")');
  });
});

describe("the site's own code on GitHub (framework 2.4.0)", () => {
  const github = (links: string[], companyName = "Acme") =>
    communityEcosystem(
      syntheticFacts([{ path: "/", title: "Acme", text: "We build things for teams.", externalLinks: links }], {
        companyName,
      }),
    );

  it("counts the site's organisation or a repository named after it", () => {
    expect(github(["https://github.com/acme-hq"]).raised).toContain("GitHub presence: 1 link");
    expect(github(["https://github.com/adobe/acme"]).raised).toContain("GitHub presence: 1 link");
  });

  it("not a theme's credit, a library the product thanks or a staff member's profile", () => {
    const others = github([
      "https://github.com/rstudio/blogdown",
      "https://github.com/robbiehanson/CocoaAsyncSocket",
      "https://github.com/janedoe",
    ]);
    expect(others.lowered).toContain("no GitHub presence");
    expect(
      architectureSystems(
        syntheticFacts([{ path: "/", externalLinks: ["https://github.com/rstudio/blogdown"] }]),
      ).raised.join(" "),
    ).not.toMatch(/GitHub/);
  });

  it("reads a brand past a company name's first word ('The Zeta Company' is Zeta, not 'the')", () => {
    const zeta = communityEcosystem(
      syntheticFacts(
        [{ path: "/", title: "Zeta", text: "We build things.", externalLinks: ["https://github.com/thenewboston"] }],
        { companyName: "The Zeta Company" },
      ),
    );
    expect(zeta.lowered).toContain("no GitHub presence");
  });

  it("knows the site by its host's name when the company name is in another script", () => {
    expect(github(["https://github.com/acme"], "达尔文网络").raised).toContain("GitHub presence: 1 link");
    expect(github(["https://github.com/whoever"], "达尔文网络").lowered).toContain("no GitHub presence");
  });
});

describe("the site's own status page and trust centre (framework 2.5.0)", () => {
  const withOutbound = (kind: "trust_center" | "status_page", url: string) =>
    syntheticFacts([...BARE_SITE, page("/blog/passwords", "Two-factor sign-in stops most account attacks.")], {
      outbound: [{ url, kind, foundOn: `${SYNTHETIC_ORIGIN}/blog/passwords` }],
    });

  it("a blog post's link to someone else's security blog or status page is not the site's", () => {
    expect(
      securityPosture(withOutbound("trust_center", "https://security.googleblog.com/2019/05/x.html")).raised,
    ).toEqual([]);
    expect(
      complianceCertifications(withOutbound("trust_center", "https://security.googleblog.com/2019/05/x.html")).raised,
    ).toEqual([]);
    expect(
      reliabilityOperations(withOutbound("status_page", "https://status.github.com/")).raised.join(" "),
    ).not.toMatch(/status page/);
  });

  it("counts the site's own, on its domain or named on a hosting service", () => {
    for (const url of ["https://trust.acme.example/", "https://security.acme.example/", "https://acme.safebase.io/"])
      expect(securityPosture(withOutbound("trust_center", url)).raised).toContain("a trust centre");
    for (const url of ["https://status.acme.example/", "https://acme.statuspage.io/"])
      expect(reliabilityOperations(withOutbound("status_page", url)).raised.join(" ")).toMatch(/status page/);
  });
});

describe("a self-serve sign-up is the site's own funnel (framework 2.5.0)", () => {
  it("an essay's 'when you sign up for a service' on the blog is not a sign-up", () => {
    const essay = growthDistribution(
      syntheticFacts([
        ...BARE_SITE,
        page("/blog/identity", "When you sign up for a service, your digital identity is created for you."),
      ]),
    );
    expect(essay.lowered).toContain("no self-serve sign-up");
    const home = growthDistribution(syntheticFacts([page("/", "Sign up free and invite your team.", "Acme")]));
    expect(home.raised).toContain("a self-serve sign-up");
  });
});

describe("the team a site shows (framework 2.4.0)", () => {
  it("counts people named with their role on an about or contact page", () => {
    const found = talentOrganization(
      syntheticFacts([
        ...BARE_SITE,
        page("/contact", "Principal Officer Jane Doe\nChief Financial Officer John Roe\nCompliance Officer Ann Poe"),
      ]),
    );
    expect(found.lowered).toContain("3 people named with a role");
  });

  it("but not the openings an about page lists: a role to fill is not a person", () => {
    const about = page(
      "/about",
      "About us\nJoin Us\nBackend Development Engineer (Golang)\nResponsibilities:\nBuild the network.\nFrontend Development Engineer (React & Vue)\nMinimum Qualifications:\nTwo years of React.\nTechnical Researcher\nResponsibilities:\nWrite the papers.",
    );
    const found = talentOrganization(syntheticFacts([...BARE_SITE, about]));
    expect([...found.raised, ...found.lowered].join(" ")).toMatch(/\/about lists 3 openings/);
    expect(found.lowered).toContain("no team shown");
    expect(found.evidence.map((item) => item.text).join(" ")).not.toMatch(/Technical Researcher$/);
    // The same page naming its people as well counts them, and only them.
    const named = talentOrganization(
      syntheticFacts([...BARE_SITE, { ...about, text: `${about.text}\nOur team\nCEO Mia Chen\nCTO Leo Park` }]),
    );
    expect(named.lowered).toContain("2 people named with a role");
  });
});

describe("a business that sells no software (framework 2.4.0)", () => {
  // An underwriting firm's site, read whole and long enough to tell (not a thin crawl): no app, platform, API or sign-in.
  const prose =
    "Structured programmes help cedants manage the volatility of baskets of risks over several years, with aggregate limits of liability. ";
  const underwriter = [
    page("/", "Harbour Underwriting Limited. About. Contact. Regulation. Solutions."),
    page("/about", `Harbour Underwriting is an international reinsurance underwriting manager. ${prose.repeat(8)}`),
    page(
      "/regulation",
      `Harbour Underwriting Limited is licensed by the Labuan Financial Services Authority. ${prose.repeat(8)}`,
    ),
    page("/solutions", `Capacity is provided by reinsurers rated A- or better by AM Best. ${prose.repeat(8)}`),
    page("/contact", "Principal Officer Jane Doe. Chief Financial Officer John Roe. Compliance Officer Ann Poe."),
  ];
  // Framework 2.8.0 adds a security page and a users' community: both describe a product people log in to.
  const softwareOnly = [
    "integration_ecosystem",
    "reliability_operations",
    "enterprise_readiness",
    "security_posture",
    "community_ecosystem",
  ];

  it("is not marked down for the integrations, status page and SSO it has no reason to publish", () => {
    const profile = siteProfile(syntheticFacts(underwriter));
    expect(profile.sellsSoftware).toBe(false);
    const result = score(underwriter);
    for (const id of softwareOnly) {
      expect(dimension(result, id).applicable, id).toBe(false);
      expect(dimension(result, id).reasoning).toMatch(
        /it does not apply: the site sells no software \(across the 5 pages read/,
      );
      expect(result.strengths).not.toContain(id);
      expect(result.gaps).not.toContain(id);
    }
    // What any business shows is still expected of it.
    for (const id of ["customer_proof", "data_privacy", "company_momentum"])
      expect(dimension(result, id).applicable, id).not.toBe(false);
  });

  it("is marked down for them once it names a platform it never shows", () => {
    const software = underwriter.map((spec, index) =>
      index === 0 ? { ...spec, headings: ["Harbour: the reinsurance platform"] } : spec,
    );
    expect(siteProfile(syntheticFacts(software)).sellsSoftware).toBe(true);
    const notApplicable = score(underwriter);
    const applicable = score(software);
    for (const id of softwareOnly) expect(dimension(applicable, id).applicable, id).not.toBe(false);
    expect(notApplicable.totalScore).toBeGreaterThanOrEqual(applicable.totalScore);
  });

  it("software named on two pages, or a docs, pricing or changelog page, is software", () => {
    const twoPages = [
      ...underwriter,
      page("/tools", "Our pricing tool runs in the browser."),
      page("/x", "Download the app."),
    ];
    expect(siteProfile(syntheticFacts(twoPages)).sellsSoftware).toBe(true);
    const docs = [...underwriter, page("/docs/intro", "Read this first.")];
    expect(siteProfile(syntheticFacts(docs)).sellsSoftware).toBe(true);
  });

  it("weighs its licence in the total like openings and dated news, and says why (framework 2.8.0)", () => {
    const result = score(underwriter);
    const compliance = dimension(result, "compliance_certifications");
    expect(compliance.evidenceCost).toBe("costly");
    expect(compliance.reasoning).toMatch(
      /1 certification or regulation: a regulator's licence, fewer than the usual 2;.*A regulator's licence takes an outside audit and months to earn, so this dimension weighs in the total like openings and dated news\./,
    );
    // The same site whose compliance page only says it follows the law: the usual cheap weight, and a lower total.
    const lawAbiding = underwriter.map((spec) =>
      spec.path === "/regulation"
        ? page("/regulation", `Harbour Underwriting Limited is GDPR compliant. ${prose.repeat(8)}`)
        : spec,
    );
    const claimed = score(lawAbiding);
    expect(dimension(claimed, "compliance_certifications").evidenceCost).toBeUndefined();
    expect(dimension(claimed, "compliance_certifications").reasoning).not.toMatch(/weighs in the total like/);
    expect(result.totalScore).toBeGreaterThan(claimed.totalScore);
  });

  it("a thin crawl says nothing either way: it is taken to sell software", () => {
    const thin = [page("/", "Harbour Underwriting Limited."), page("/about", "An underwriting manager.")];
    expect(siteProfile(syntheticFacts(thin)).sellsSoftware).toBe(true);
  });
});

describe("a blog kept on another host (framework 2.4.0)", () => {
  const growth = (links: string[], companyName = "Acme") =>
    growthDistribution(
      syntheticFacts([{ path: "/", title: "Acme", text: "We build things for teams.", externalLinks: links }], {
        companyName,
      }),
    );

  it.each([
    "https://blog.acme.example/",
    "https://blog.acme.example/2024/05/launch",
    "https://medium.com/@acme",
    "https://medium.com/acme/how-we-ship-1234",
    "https://acme.substack.com/",
  ])("counts %s as the site's blog, linked but not crawled", (link) => {
    const found = growth([link]);
    expect(found.lowered).toContain("a blog linked but not crawled");
    expect(found.evidence.map((item) => item.url)).toContain(link);
    expect(found.raw).toBeGreaterThan(growth([]).raw);
  });

  it.each([
    "https://blog.othercorp.com/",
    "https://medium.com/@someone/why-we-partnered-with-acme-be511182754e",
    "https://news.ycombinator.com/item?id=1",
  ])("but not %s (another company's blog, or a post about the site)", (link) => {
    const found = growth([link]);
    expect(found.lowered).toContain("no blog or news page found");
    expect(found.raw).toBe(growth([]).raw);
  });

  it("a crawled blog is read for its cadence instead", () => {
    const facts = syntheticFacts([
      { path: "/", title: "Acme", text: "We build things for teams.", externalLinks: ["https://blog.acme.example/"] },
      { path: "/blog", title: "Blog", text: "Posts", dates: ["2026-10-20"] },
    ]);
    expect(growthDistribution(facts).lowered).not.toContain("a blog linked but not crawled");
  });
});
