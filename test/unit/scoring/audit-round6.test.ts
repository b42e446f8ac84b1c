import { describe, expect, it } from "vitest";
import {
  architectureSystems,
  deliveryVelocity,
  documentationQuality,
} from "../../../src/modules/scoring/rules/engineering-delivery.js";
import {
  communityEcosystem,
  companyMomentum,
  customerSuccess,
  growthDistribution,
} from "../../../src/modules/scoring/rules/growth-organization.js";
import {
  marketIntelligence,
  targetSegments,
  unmarkedHeadline,
  valueProposition,
} from "../../../src/modules/scoring/rules/market-strategy.js";
import { pricingPackaging } from "../../../src/modules/scoring/rules/pricing-packaging.js";
import {
  developerPlatform,
  integrationEcosystem,
  onboardingActivation,
} from "../../../src/modules/scoring/rules/product-experience.js";
import {
  dataPrivacy,
  enterpriseReadiness,
  securityPosture,
} from "../../../src/modules/scoring/rules/trust-enterprise.js";
import { factsAbout, page, said } from "../../support/scoring-cases.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/** Framework 2.11.0: misreadings the sixth audit found that a pattern can fix, whichever way they move a site. */

describe("value_proposition reads the headline of a page with no h1 (framework 2.11.0)", () => {
  const home = (spec: Omit<PageSpec, "path">, companyName = "TeamT5") =>
    valueProposition(syntheticFacts([{ path: "/", ...spec }], { companyName }).about("value_proposition"));

  it("takes the tagline a title gives beside the name (a script-built page whose headings are styled text)", () => {
    const reading = home({ title: "TeamT5 - Persistent Cyber Threat Hunters", text: "2020/06/10\nBlackHat talk" });
    expect(said(reading)).toContain("a vague headline (no outcome or audience, or buzzwords)");
    expect(reading.evidence.map((item) => item.text)).toContain(
      'headline (the page title\'s tagline; no h1): "Persistent Cyber Threat Hunters"',
    );
  });

  it("takes the first line when the title is only the name, and still rates it for what it says", () => {
    const reading = home(
      { title: "Acme", text: "Invoices for freelancers, sent in seconds\nAcme is a company founded in 2018." },
      "Acme",
    );
    expect(said(reading)).toContain("a specific headline (outcome and audience)");
  });

  it("finds no headline in a first line that is a date, a sentence or a question, or in a title that is only the name", () => {
    expect(unmarkedHeadline({ title: "Acme", text: "2020/06/10\nNews" }, ["acme"])).toBeUndefined();
    expect(
      unmarkedHeadline({ title: "Acme", text: "We make invoices simple for everyone." }, ["acme"]),
    ).toBeUndefined();
    expect(unmarkedHeadline({ title: "Acme | Acme Inc", text: "Why pay more?" }, ["acme"])).toBeUndefined();
    expect(said(home({ title: "Acme", text: "" }, "Acme"))).toContain("no headline (h1) on the home page");
  });

  it("keeps an h1 when there is one", () => {
    const reading = home({
      title: "TeamT5 - Persistent Cyber Threat Hunters",
      headings: [{ level: 1, text: "Threat intelligence for security teams" }],
      text: "Threat intelligence for security teams",
    });
    expect(reading.evidence.map((item) => item.text)).toContain('headline: "Threat intelligence for security teams"');
  });
});

describe("value_proposition reads a problem stated in the plural or as what is costly to do (framework 2.11.0)", () => {
  const story = (text: string) =>
    said(valueProposition(syntheticFacts([{ path: "/", title: "Acme", text }]).about("value_proposition")));

  it.each([
    "We are solving the problems of scalability and isolation of blockchain networks.",
    "It's costly and difficult to fix problems in smart contract systems once they are deployed.",
  ])("reads '%s' as the problem half", (text) => {
    expect(story(text)).toContain("half a narrative (problem or solution, not both)");
  });
});

describe("onboarding_activation reads a sales button without its article (framework 2.11.0)", () => {
  it.each(["Request demo", "Book demo", "Schedule a call"])("reads '%s' as a sales-led way in", (button) => {
    const reading = onboardingActivation(
      factsAbout([page("/pricing", `Dedicated plan\n$799/month\n${button}`, "Pricing")], "onboarding_activation"),
    );
    expect(said(reading)).toContain("only a demo request or sales contact, no self-serve sign-up");
  });
});

describe("integration_ecosystem knows the office suites an identity or productivity product connects to (framework 2.11.0)", () => {
  it("counts Google Workspace, Office 365 and Workspace ONE as well-known tools", () => {
    const reading = integrationEcosystem(
      factsAbout(
        [
          page(
            "/docs/google",
            "Integrate Acme with Google Workspace.\nConnect Acme to your Office 365 resources.\nIntegrate Acme with VMware Workspace ONE Access.",
            "Google",
          ),
        ],
        "integration_ecosystem",
      ),
    );
    expect(said(reading).join(" ")).toMatch(
      /3 well-known tools named \((?=.*Google Workspace)(?=.*Office 365)(?=.*Workspace ONE)/,
    );
  });
});

describe("data_privacy reads where personal data is processed, in more countries (framework 2.11.0)", () => {
  const privacy = (text: string) =>
    said(dataPrivacy(factsAbout([page("/privacy", text, "Privacy Policy")], "data_privacy")));

  it("reads 'any personal data you submit is collected and processed directly by the company in Taiwan'", () => {
    expect(
      privacy("Any personal data you submit is collected and processed directly by the company in Taiwan."),
    ).toContain("data residency options");
  });

  it("does not read a country named in passing as residency", () => {
    expect(privacy("Our team in Taiwan answers questions about this policy.")).toContain("no data residency stated");
  });
});

describe("security_posture reads an encryption claim made in the company's name (framework 2.11.0)", () => {
  const security = (text: string) =>
    said(
      securityPosture(
        syntheticFacts([{ path: "/", title: "idemeum", text: "Passwordless sign-in." }, page("/mfa", text, "MFA")], {
          companyName: "idemeum",
        }).about("security_posture"),
      ),
    );

  it("reads 'idemeum uses encryption, phone's hardware-backed components, biometrics'", () => {
    expect(
      security("Security by Design\nidemeum uses encryption, phone's hardware-backed components, biometrics."),
    ).toContain("security practices described: encryption");
  });

  it("does not read another product's encryption as the company's", () => {
    expect(security("Slack uses encryption for messages it stores.").join(" ")).not.toContain(
      "practices described: encryption",
    );
  });
});

describe("the page standing in for a wordless home page is read as the home page (framework 2.11.0)", () => {
  const site = (second: PageSpec) =>
    syntheticFacts([{ path: "/", title: "Huntington", text: "" }, second], { companyName: "Huntington" });
  const structured = page(
    "/structured",
    "Structured Solutions\nWe operate an underwriting facility on behalf of international reinsurers.\nDistribution may be via traditional (re)insurance Broking channels, but also through captive managers and bankers.\nSuch structures are suitable for insurance companies and captive owners.",
    "Structured Solutions",
  );

  it("reads a channel of distribution on it as growth_distribution's partner channel", () => {
    expect(said(growthDistribution(site(structured).about("growth_distribution")))).toContain(
      "a partner, affiliate or referral programme",
    );
  });

  it("does not read the same page so when the home page has words of its own", () => {
    const home = {
      path: "/",
      title: "Huntington",
      text: "Reinsurance underwriting from Labuan, for cedants across Asia.",
    };
    const facts = syntheticFacts([home, structured], { companyName: "Huntington" });
    expect(said(growthDistribution(facts.about("growth_distribution")))).toContain("no partner or affiliate programme");
    expect(said(targetSegments(facts.about("target_segments")))).toEqual(
      said(targetSegments(syntheticFacts([home], { companyName: "Huntington" }).about("target_segments"))),
    );
  });

  it("does not read a message broker as a channel", () => {
    const broker = page(
      "/structured",
      "Redis is available through the platform as a message broker between components of a system.",
      "Redis",
    );
    expect(said(growthDistribution(site(broker).about("growth_distribution")))).toContain(
      "no partner or affiliate programme",
    );
  });
});

describe("documentation_quality reads numbered walk-throughs and PowerShell commands (framework 2.11.0)", () => {
  const docs = (text: string) =>
    said(
      documentationQuality(factsAbout([page("/docs/azuread", text, "Azure AD - Acme docs")], "documentation_quality")),
    );

  it("reads 'We are going to go through simple four steps' as a guide", () => {
    expect(
      docs("Integrate Acme with Azure AD\nWe are going to go through simple four steps to configure it."),
    ).not.toContain("no guides, tutorials or quickstart");
  });

  it("reads a run of PowerShell commands as a code sample, and not prose that starts with 'Set-up'", () => {
    expect(
      docs(
        "Run these commands\nInstall-Module MSOnline\nConnect-MsolService\nGet-MsolDomainFederationSettings -DomainName acme.com",
      ),
    ).not.toContain("no code samples in the docs");
    expect(docs("Set-up takes a minute\nGet-started with your account by inviting your team.")).toContain(
      "no code samples in the docs",
    );
  });
});

describe("customer_success reads a plan's dedicated support and a stated response time (framework 2.11.0)", () => {
  const success = (pages: PageSpec[]) => said(customerSuccess(factsAbout(pages, "customer_success")));

  it("reads 'Dedicated Live Support' on a plan as a customer success service", () => {
    expect(
      success([page("/pricing", "Premium\nCustom integrations\nDedicated Live Support\nContact us", "Pricing")]),
    ).toContain("customer success or onboarding services");
  });

  it("reads 'Response time: within 24 hours' as a response time", () => {
    expect(
      success([
        page("/contact", "Email info@acme.example. Response time: within 24 hours of your message.", "Contact"),
      ]),
    ).toContain("support hours or response times");
  });

  it("does not read dedicated infrastructure or a response time of an API as support", () => {
    const lines = success([
      page("/pricing", "Enterprise\nDedicated infrastructure\nAPI response times under 100 ms.", "Pricing"),
    ]);
    expect(lines).toContain("no customer success or onboarding services");
  });
});

describe("company_momentum reads a parent group and news of funding won (framework 2.11.0)", () => {
  const momentum = (pages: PageSpec[], companyName = "Acme") =>
    said(
      companyMomentum(
        syntheticFacts([{ path: "/", title: companyName, text: "" }, ...pages], {
          companyName,
          crawledAt: "2020-09-08T00:00:00.000Z",
        }).about("company_momentum"),
      ),
    );

  it("reads 'an associate of the … insurance services group, Huntington Group Pte Ltd' as backing", () => {
    expect(
      momentum(
        [
          page(
            "/about",
            "It is an associate of the Singapore-headquartered insurance services group, Huntington Group Pte Ltd.",
            "About Us",
          ),
        ],
        "Huntington Underwriting Limited",
      ),
    ).toContain("funding or investors named");
  });

  it("does not read membership of an association as backing", () => {
    expect(
      momentum(
        [page("/about", "HUL is also a member of the Labuan International Insurance Association.", "About Us")],
        "Huntington Underwriting Limited",
      ),
    ).toContain("no funding or investors named");
  });

  it("reads an undated news item 'Itering wins funding from Web3 Foundation' as an announcement", () => {
    const lines = momentum(
      [
        page(
          "/news",
          "News\nItering wins funding from Web3 Foundation\nWeb3 Foundation announced a new list of grants.",
          "News",
        ),
      ],
      "Itering IO",
    );
    expect(lines.join(" ")).toMatch(/1 announcement \(launches, partnerships\)/);
  });

  it("does not read 'everyone wins' in a sentence as news", () => {
    expect(
      momentum([page("/news", "News\nWhen teams share data, everyone wins a little time back.", "News")], "Itering IO"),
    ).toContain("no news or announcements");
  });
});

describe("a plan for large customers under another name is an enterprise plan (framework 2.11.0)", () => {
  const pricing = (text: string) => [
    said(pricingPackaging(factsAbout([page("/pricing", text, "Pricing")], "pricing_packaging"))),
    said(enterpriseReadiness(factsAbout([page("/pricing", text, "Pricing")], "enterprise_readiness"))),
  ];

  it("reads a column with a name, feature rows and no price that ends in 'Get In Touch'", () => {
    const [plans, enterprise] = pricing(
      "Multiple Platform\nSAST (Static)\nDAST (Dynamic)\n$ 1999/month\nSAVE $3998\nRequest Demo\nDedicated Infrastructure\nMultiple Teams\nPrivate Secure Cloud\nDedicated Account Manager\nGet In Touch",
    );
    expect(plans).toContain("an enterprise tier or sales path");
    expect(enterprise).toContain("an enterprise plan");
  });

  it("reads a plan offered 'for high volume applications or larger corporations'", () => {
    const [plans, enterprise] = pricing(
      "Standard\n$0.40 per 1k requests\nSign up now\nPremium\nFor high volume applications or larger corporations we offer discounted pricing starting at $849/month.\nContact Us",
    );
    expect(plans).toContain("an enterprise tier or sales path");
    expect(enterprise).toContain("an enterprise plan");
  });

  it("does not read a question's 'Contact us' under the FAQ, or a priced column, as a plan on request", () => {
    const [plans, enterprise] = pricing(
      "Pro\n$49/month\nChoose plan\nQuestions about billing? We answer every message within a day, so write to us with anything.\nContact us",
    );
    expect(plans).toContain("no enterprise path");
    expect(enterprise).toContain("no enterprise plan");
  });
});

describe("developer_platform reads an API the company says it offers (framework 2.11.0)", () => {
  const platform = (text: string) =>
    said(developerPlatform(factsAbout([page("/pricing", text, "Pricing")], "developer_platform")));

  it("reads 'We also offer APIs which you can use to achieve complete mobile security'", () => {
    expect(platform("We also offer APIs which you can use to achieve complete mobile security.")).toContain(
      "an API mentioned, no reference page found",
    );
  });

  it("does not read 'we offer API consulting services' as an API", () => {
    expect(platform("We offer API consulting services for banks.")).toContain("no public API or reference");
  });
});

describe("market_intelligence reads a post weighing the product against another by name (framework 2.11.0)", () => {
  const intelligence = (text: string, companyName = "genezio") =>
    said(
      marketIntelligence(
        syntheticFacts(
          [{ path: "/", title: companyName, text: "Build backends fast." }, page("/blog/post", text, text)],
          { companyName },
        ).about("market_intelligence"),
      ),
    );

  it("reads 'Exploring the Differences Between genezio and Express.js' as a comparison", () => {
    expect(intelligence("Exploring the Differences Between genezio and Express.js").join(" ")).toMatch(
      /1 comparison or alternatives page/,
    );
  });

  it("does not read two versions of a protocol compared in an RFC as a comparison of products", () => {
    expect(
      intelligence("Briefly, the differences between MS-CHAP-V2 and MS-CHAP-V1 are these.", "FreeRADIUS"),
    ).toContain("no comparison or alternatives pages");
  });
});

describe("the seventh audit's readings (framework 2.11.0)", () => {
  it("counts a solutions page only when it names a segment: product areas are not segments", () => {
    const segments = (links: string[]) =>
      said(
        targetSegments(
          syntheticFacts([{ path: "/", title: "Acme", text: "Security for everyone.", links }]).about(
            "target_segments",
          ),
        ),
      );
    expect(segments(["/solutions/pci-compliance", "/solutions/cloud-security", "/solutions/devops"])).toContain(
      "no solutions pages by industry, role or size",
    );
    expect(segments(["/solutions/lessors", "/solutions/investors-lenders"]).join(" ")).toMatch(
      /2 solutions pages by industry, role or size/,
    );
    expect(segments(["/industries/retail"]).join(" ")).toMatch(/1 solutions page by industry, role or size/);
  });

  it("reads plans and sentences that name team sizes, and whom a company says it serves, as segments", () => {
    const named = said(
      targetSegments(
        factsAbout(
          [
            page(
              "/pricing",
              "For individuals and small teams trying things out.\nFor medium to large scale organisations.",
              "Pricing",
            ),
          ],
          "target_segments",
        ),
      ),
    ).join(" ");
    expect(named).toMatch(/individuals/);
    expect(named).toMatch(/large organisations/);
  });

  it("reads product marketing's 'Designed for high availability' and a vendor list as no architecture write-up", () => {
    const architecture = (text: string) =>
      said(architectureSystems(factsAbout([page("/product", text, "Product")], "architecture_systems")));
    expect(
      architecture(
        "Designed for high availability, scalability, and security, Prodigi is a reliable and robust solution.",
      ),
    ).toContain("no engineering blog or architecture write-ups");
    expect(architecture("We advocate treating our digital infrastructure as a commons.")).toContain(
      "no engineering blog or architecture write-ups",
    );
    expect(architecture("Tech Blog: On-Chain Microtasks")).not.toContain(
      "no engineering blog or architecture write-ups",
    );
    expect(architecture("Please provide a GitHub account and your personal technical blog.")).toContain(
      "no engineering blog or architecture write-ups",
    );
  });

  it("reads '25 terabytes of code' and 'the same scalable architecture' as scale, and not a question about another company", () => {
    const architecture = (text: string) =>
      said(architectureSystems(factsAbout([page("/enterprise", text, "Enterprise")], "architecture_systems")));
    expect(architecture("2 million functions, 300,000 repositories, 25 terabytes of code.")).not.toContain(
      "no regions or scalability described",
    );
    expect(
      architecture("If HubSpot operate with 2 (or more) availability zones, then what about DepositFix?"),
    ).toContain("no regions or scalability described");
  });

  it("reads a release post the blog index titles 'Announcing … Support'", () => {
    const reading = deliveryVelocity(
      factsAbout(
        [
          {
            path: "/blog",
            title: "Blog",
            text: "Announcing Google Cloud Storage Support",
            namedLinks: [
              {
                href: "/blog/2015/06/12/announcing-google-cloud-storage-support",
                text: "Announcing Google Cloud Storage Support",
              },
            ],
          },
          {
            path: "/blog/2015/06/12/announcing-google-cloud-storage-support",
            title: "Blog post",
            text: "We added a connector.",
            dates: ["2015-06-12"],
          },
        ],
        "delivery_velocity",
        "2015-08-01T00:00:00.000Z",
      ),
    );
    expect(said(reading)).toContain("release announcements among the posts (1 dated post)");
  });

  it("reads support by email and in-app, a users' mailing list, onboarding training and consulting services", () => {
    const success = (text: string) =>
      said(customerSuccess(factsAbout([page("/pricing", text, "Pricing")], "customer_success")));
    expect(success("Pro\n$49/month\nEmail & In-App Support")).toContain("support channels: email, live chat");
    expect(success("The acme-users mailing list is for users of the server.").join(" ")).toMatch(/mailing list/);
    expect(success("Onboarding Training is designed to get new customers moving quickly.")).toContain(
      "customer success or onboarding services",
    );
    expect(success("Premium\n40h of consulting services")).toContain("customer success or onboarding services");
    expect(success("Send message broadcasts through email, SMS and in-app messages.")).toContain(
      "no support channels stated",
    );
  });

  it("reads a standing invitation to contribute, and IRC as a community channel", () => {
    const community = (text: string) =>
      said(communityEcosystem(factsAbout([page("/community", text, "Community")], "community_ecosystem")));
    expect(community("We welcome all contributions!")).toContain("contributions from the community");
    expect(
      community(
        "If your language is missing, you are more than welcome to contribute: just add another config and create a pull request.",
      ),
    ).toContain("contributions from the community");
    expect(community("Chat on IRC at Freenode/#Brackets").join(" ")).toMatch(/community channels: IRC/);
  });

  it("reads a commissioned survey of users as research", () => {
    const reading = said(
      marketIntelligence(
        factsAbout(
          [
            page(
              "/about",
              "We recently commissioned a survey of Acme users. Over 500 responses to the survey were received.",
              "About",
            ),
          ],
          "market_intelligence",
        ),
      ),
    ).join(" ");
    expect(reading).toMatch(/reports or research on 1 page/);
  });
});

describe("the seventh audit's readings that needed more than a pattern (framework 2.11.0)", () => {
  it("reads a launch post on the company's own blog subdomain, linked from its newsroom, as a release", () => {
    const reading = deliveryVelocity(
      syntheticFacts(
        [
          { path: "/", title: "Acme", text: "Security for everyone." },
          {
            path: "/company/newsroom",
            title: "Newsroom",
            text: "Press",
            externalLinks: [],
            namedLinks: [
              {
                href: "https://blog.acme.example/product-tech/2024/05/17/introducing-fim-4-0",
                text: "Introducing FIM 4.0 with File Access Monitoring",
              },
              { href: "https://news.other.example/2024/05/16/acme-is-great", text: "Introducing Acme's rival" },
            ],
          },
        ],
        { crawledAt: "2024-05-19T00:00:00.000Z" },
      ).about("delivery_velocity"),
    );
    expect(said(reading)).toContain("release announcements among the posts (1 dated post)");
  });

  it("does not count a sign-up button on a site that says registration is not open yet", () => {
    const text =
      "Sign up now.\nWe're still building the service, making certain it is rock-solid. Once it's ready we'll open up registration. In the meantime, register your interest by getting in touch.";
    const facts = syntheticFacts([{ path: "/", title: "Acme", text, links: ["/signup"] }]);
    expect(said(onboardingActivation(facts.about("onboarding_activation")))).toContain(
      "no sign-up yet: registration is not open",
    );
    expect(said(growthDistribution(facts.about("growth_distribution")))).toContain(
      "no self-serve sign-up: registration is not open yet",
    );
  });

  it("dates the company from a copyright range in the home page's footer", () => {
    const reading = companyMomentum(
      syntheticFacts(
        [
          {
            path: "/",
            title: "Overv.io",
            text: "Build smarter.",
            boilerplate: ["Copyright © 2009 - 2016 Mirumee Software"],
          },
        ],
        {
          crawledAt: "2016-06-01T00:00:00.000Z",
        },
      ).about("company_momentum"),
    );
    expect(said(reading).join(" ")).toMatch(/founded or active since 2009 \(the home page's copyright range\)/);
  });

  it("reads plans named on price lines ('Personal - Free', 'Organization - $10 per user') as plans named for segments", () => {
    const reading = targetSegments(
      factsAbout(
        [page("/pricing", "Personal - Free\nOrganization - $10 per user\nEnterprise - $50 per user", "Pricing")],
        "target_segments",
      ),
    );
    expect(said(reading).join(" ")).toMatch(/3 plans named for a segment/);
  });

  it("reads a docs page laid out as a component's reference (attributes, events, methods) as the API reference", () => {
    const table = {
      path: "/component/table",
      title: "Table - Element",
      text: 'Table\n<el-table :data="rows"></el-table>',
      headings: [
        { level: 2 as const, text: "Table" },
        { level: 3 as const, text: "Table Attributes" },
        { level: 3 as const, text: "Table Events" },
        { level: 3 as const, text: "Table Methods" },
      ],
    };
    expect(said(developerPlatform(factsAbout([table], "developer_platform"))).join(" ")).toMatch(
      /API reference \(1 page\)/,
    );
    expect(said(documentationQuality(factsAbout([table], "documentation_quality"))).join(" ")).toMatch(
      /API reference \(1 page\)/,
    );
  });

  it("reads the home page's sections headed by a segment, and not a product or a quality headed the same way", () => {
    const segments = (text: string) =>
      said(targetSegments(syntheticFacts([{ path: "/", title: "FreeRADIUS", text }]).about("target_segments"))).join(
        " ",
      );
    expect(
      segments(
        "Internet Service Providers\nFreeRADIUS authenticates users for millions of DSL connections every day.\nEducational Institutions\nFreeRADIUS is commonly used in academic wireless networks, especially eduroam.",
      ),
    ).toMatch(/names 2 segments/);
    expect(
      segments(
        "Developer Experience\nA toolkit that keeps your contracts secure from the first line you write.\nEnterprise TruRisk Platform\nOne platform to see and fix every risk across your estate.",
      ),
    ).toMatch(/names no customer segment/);
  });
});
