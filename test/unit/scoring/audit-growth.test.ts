import { describe, expect, it } from "vitest";
import {
  communityEcosystem,
  companyMomentum,
  customerSuccess,
  growthDistribution,
  jobOpenings,
  talentOrganization,
} from "../../../src/modules/scoring/rules/growth-organization.js";
import type { DimensionId } from "../../../src/modules/scoring/scoring.types.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Misreadings of the growth & organisation rules found by the audit of the calibration corpus: each case is the
 * general shape of what a real site showed, read as the scorer reads it (facts scoped to the dimension).
 */
const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });
const facts = (
  pages: readonly PageSpec[],
  dimension: DimensionId,
  options: Parameters<typeof syntheticFacts>[1] = {},
) => syntheticFacts(pages, options).about(dimension);
const talent = (pages: readonly PageSpec[]) =>
  talentOrganization(facts([...BARE_SITE, ...pages], "talent_organization"));
const people = (pages: readonly PageSpec[]) =>
  [...talent(pages).raised, ...talent(pages).lowered].find((line) =>
    / named (?:on a team list or )?with a role$|^no team shown$/.test(line),
  );

describe("talent_organization: job boards and openings (framework 2.5.0)", () => {
  it("reads a Workday or Breezy link on the careers page as openings on a job board", () => {
    for (const board of [
      "https://acme.wd5.myworkdayjobs.com/Careers",
      "https://acme.breezy.hr/p/84b69-golang-engineer",
    ]) {
      const assessment = talent([
        {
          path: "/careers",
          title: "Careers",
          text: "Join us",
          namedLinks: [{ href: board, text: "Search open positions" }],
        },
      ]);
      expect(assessment.raised).toContain("openings hosted on a job board (not crawled)");
      expect(assessment.lowered).not.toContain("careers page lists no openings");
    }
  });

  it("still reads a careers page without openings or a job board as listing none", () => {
    const assessment = talent([
      {
        path: "/careers",
        title: "Careers",
        text: "Join us",
        namedLinks: [{ href: "https://jobs.example.org/x", text: "Jobs" }],
      },
    ]);
    expect(assessment.lowered).toContain("careers page lists no openings");
  });

  it("counts an opening once when its card repeats the title with its terms", () => {
    const careers: PageSpec = {
      path: "/careers",
      title: "Careers",
      text: "Open Positions\nRails Developer\nfull-time\nTaipei, Taiwan\nResearch Engineer\nfull-time\nTaipei, Taiwan",
      namedLinks: [
        { href: "/positions/rails-developer", text: "Rails Developer full-time Taipei, Taiwan" },
        { href: "/positions/research-engineer", text: "Research Engineer full-time Taipei, Taiwan" },
      ],
    };
    const openings = jobOpenings(facts([...BARE_SITE, careers], "talent_organization"));
    expect(openings.map((opening) => opening.title)).toEqual(["Rails Developer", "Research Engineer"]);
  });

  it("keeps two openings whose titles only share words", () => {
    const careers = page(
      "/careers",
      "Open Positions\nSoftware Engineer\nSenior Software Engineer\nEngineering Manager",
      "Careers",
    );
    expect(jobOpenings(facts([...BARE_SITE, careers], "talent_organization"))).toHaveLength(3);
  });
});

describe("talent_organization: the team shown (framework 2.5.0)", () => {
  it("counts an officer named under a functional title ('Operations and Claims Cheung Ngai Kay')", () => {
    const contact = page(
      "/contact",
      "Contact\nPrincipal Officer Anthony Egerton\nCompliance Officer Iain Herbert\nOperations and Claims Cheung Ngai Kay\nnkcheung@acme.example",
    );
    expect(people([contact])).toBe("3 people named with a role");
  });

  it("does not read a department heading as a person ('Sales and Marketing Team Members')", () => {
    const contact = page("/contact", "Contact\nCompliance Officer Iain Herbert\nSales and Marketing Team Members");
    expect(people([contact])).toBe("1 person named with a role");
  });

  it("counts people in bios of any length and a founder named in a sentence, each once", () => {
    const about = page(
      "/about",
      [
        "Acme was founded in beautiful Chicago, IL by Denis Lunev to help businesses connect e-commerce and marketing.",
        "Denis is an e-commerce consultant with more than 10 years of experience in software development for a variety of companies, including fast growing startups.",
        "Yaroslav is an enterprise developer with multiple years of experience working on integrations and business applications for banks and telecommunication companies.",
        "Sam is a HubSpot certified inbound/email marketer and an IT graduate, with more than 10 years of combined experience in customer success and sales.",
      ].join("\n"),
      "About",
    );
    expect(people([about])).toBe("3 people named with a role");
  });

  it("counts a co-founder named in a long sentence", () => {
    const about = page(
      "/about",
      "Acme was born from co-founder Drew Crawford's famous blog post Why mobile web apps are slow, which was picked up by many outlets around the world.",
      "About",
    );
    expect(people([about])).toBe("1 person named with a role");
  });

  it("does not read the company, a product or a pronoun as a person in a bio", () => {
    const about = page(
      "/about",
      [
        "Acme Limited is a software developer with offices in London and Dublin, serving the insurance market since its beginning in the nineties.",
        "He is a developer with twenty years of experience in the insurance market and a long record of shipping software to customers.",
        "Globex is a developer platform for teams that want to ship faster with fewer mistakes and better tooling across the board.",
      ].join("\n"),
      "About Acme",
    );
    expect(people([about])).toBe("no team shown");
  });

  it("counts two people with the same role, and roles such as analyst, AVP, tech lead and partner", () => {
    const about = page(
      "/about",
      [
        "Team",
        "Viren Nadkarni",
        "Prod-Dev Engineer",
        "Hemansu Kumar Tanty",
        "Prod-Dev Engineer",
        "Syed Khalid",
        "Security Analyst",
        "Amit Subodh",
        "AVP, Global Sales",
        "Dhilip Siva",
        "Tech Lead, Full-Stack & DevOps",
        "Our Advisors",
        "Tiang Lim Foo",
        "Operating Partner",
        "Michael Smith Jr",
        "Partner",
      ].join("\n"),
      "About",
    );
    expect(people([about])).toBe("7 people named with a role");
  });

  it("does not read 'partner' or 'analysts' in a sentence as a person", () => {
    const about = page(
      "/about",
      "We are a trusted partner for banks.\nIndustry analysts recognise our work.\nBecome a Partner",
      "About",
    );
    expect(people([about])).toBe("no team shown");
  });

  it("counts a card's person once, not again for the bio sentences under it", () => {
    const about = page(
      "/about",
      [
        "Meet The Team",
        "Alan DeKok Project Leader",
        "Alan co-founded Acme in 1999. He has been a developer since 1995. Alan is the CEO of Acme SARL.",
        "Alexander Clouter Developer",
        "Alex is the Director of Clouter Limited.",
      ].join("\n"),
      "About",
    );
    expect(people([about])).toBe("2 people named with a role");
  });
});

describe("talent_organization: values and culture (framework 2.5.0)", () => {
  it.each([
    "Core principles of our business",
    "Be a part of a fast-growing team that values teamwork, inclusivity and integrity.",
    "People & Culture",
  ])("reads '%s' as values described", (text) => {
    expect(talent([page("/about", `About us\n${text}`, "About")]).raised).toContain(
      "values, culture or benefits described",
    );
  });

  it("does not read an about page without values as describing them", () => {
    expect(talent([page("/about", "About us\nWe build software for insurers.", "About")]).lowered).toContain(
      "no values or culture described",
    );
  });
});

describe("community_ecosystem (framework 2.5.0)", () => {
  const community = (pages: readonly PageSpec[]) =>
    communityEcosystem(facts([...BARE_SITE, ...pages], "community_ecosystem"));

  it.each([
    "We accept patches for everything.",
    "Submit your code back to the project and have it maintained by the community.",
    "Contributions are very welcome: see the guide.",
  ])("reads '%s' as community contributions", (text) => {
    expect(community([page("/community", text)]).raised).toContain("contributions from the community");
  });

  it("does not read a review tool's 'submit your code for review' as contributions", () => {
    expect(community([page("/product", "Submit your code for review and get feedback in minutes.")]).lowered).toContain(
      "no contributions from the community",
    );
  });

  it("reads Gitter, Telegram, Matrix and Zulip links and a 'Forum' link as channels", () => {
    const assessment = community([
      {
        path: "/",
        title: "Acme",
        text: "We build things for teams.",
        namedLinks: [
          { href: "https://gitter.im/acme/Lobby", text: "Gitter" },
          { href: "https://t.me/acmenetwork", text: "Telegram" },
          { href: "https://matrix.to/#/#acme:matrix.org", text: "Matrix" },
          { href: "https://acme.zulipchat.com/", text: "Zulip" },
          { href: "https://talk.acme.example/", text: "Forum" },
        ],
      },
    ]);
    expect(assessment.raised).toContain("community channels: forum, Gitter, Telegram, Matrix, Zulip");
  });

  it("does not read a Telegram share button as a channel", () => {
    const assessment = community([
      { path: "/post", namedLinks: [{ href: "https://t.me/share/url?url=https://acme.example", text: "Share" }] },
    ]);
    expect(assessment.lowered).toContain("no community forum, Discord or Slack");
  });
});

describe("customer_success (framework 2.5.0)", () => {
  const success = (pages: readonly PageSpec[]) => customerSuccess(facts(pages, "customer_success"));

  it("does not read a standard's title or a negated offer as support", () => {
    const assessment = success([
      ...BARE_SITE,
      page("/rfc", "RFC 4675 RADIUS Attributes for Virtual LAN and Priority Support"),
      page("/older", "There is no community support for version 1.1 of the server."),
    ]);
    expect(assessment.lowered).toContain("no support SLA");
    expect(assessment.lowered).toContain("no support channels stated");
  });

  it("still reads an offer of priority support and a community support forum", () => {
    const assessment = success([
      ...BARE_SITE,
      page("/support", "We offer priority support to every paying customer.\nAsk in our community forum for help."),
    ]);
    expect(assessment.raised).toContain("a support SLA or priority support");
    expect(assessment.lowered).toContain("only one support channel (community support)");
  });

  it("reads help@ and a support address in the footer as an email channel", () => {
    expect(
      success([...BARE_SITE, page("/docs", "Contact our engineers at help@acme.example for a trial.")]).lowered,
    ).toContain("only one support channel (email)");
    const footer = success([
      { ...BARE_SITE[0]!, boilerplate: ["Product\nAbout\nsupport@acme.example\n(312) 809-9487"] },
    ]);
    expect(footer.lowered).toContain("only one support channel (email)");
    expect(footer.evidence).toContainEqual({
      url: `${SYNTHETIC_ORIGIN}/`,
      text: "support address on the home page: support@acme.example",
    });
  });

  it("does not read a sales address in the footer as support", () => {
    const footer = success([{ ...BARE_SITE[0]!, boilerplate: ["Product\nsales@acme.example"] }]);
    expect(footer.lowered).toContain("no support channels stated");
  });

  it("reads a dedicated account executive and a plan's title-case feature as customer success", () => {
    expect(
      success([...BARE_SITE, page("/pricing", "Enterprise\nDedicated account executive\nExpanded technical support")])
        .raised,
    ).toContain("customer success or onboarding services");
    const plan = success([
      ...BARE_SITE,
      page("/pricing", "Enterprise\nDedicated Customer Success Manager\nPriority Support"),
    ]);
    expect(plan.raised).toContain("customer success or onboarding services");
    expect(plan.raised).toContain("a support SLA or priority support");
  });
});

describe("growth_distribution (framework 2.5.0)", () => {
  const growth = (pages: readonly PageSpec[]) => growthDistribution(facts(pages, "growth_distribution"));

  it("reads a newsletter sign-up in the home page's footer", () => {
    for (const block of [
      "Product\nSubscribe to Newsletter\nSubscribe",
      "Follow our updates.\nSubscribe\nThanks for subscribing.",
    ]) {
      const assessment = growth([{ ...BARE_SITE[0]!, boilerplate: [block] }]);
      expect(assessment.raised).toContain("a newsletter");
    }
  });

  it("does not read a footer without a newsletter as one", () => {
    const assessment = growth([{ ...BARE_SITE[0]!, boilerplate: ["Product\nAbout\nSubscribe"] }]);
    expect(assessment.lowered).toContain("no newsletter");
  });

  it("reads the site's own events or webinars page, crawled or linked", () => {
    const crawled = growth([...BARE_SITE, page("/company/events", "Join experts from Acme.", "Acme Calendar")]);
    expect(crawled.raised).toContain("webinars, podcasts or events");
    const linked = growth([{ ...BARE_SITE[0]!, namedLinks: [{ href: "/webinars", text: "Webinars" }] }]);
    expect(linked.raised).toContain("webinars, podcasts or events");
  });

  it("does not read a link to another company's webcast as the site's events", () => {
    const assessment = growth([
      { ...BARE_SITE[0]!, namedLinks: [{ href: "https://www.brighttalk.com/webcast/11673/614420", text: "Read" }] },
    ]);
    expect(assessment.lowered).toContain("no webinars or events");
  });
});

describe("company_momentum (framework 2.5.0)", () => {
  const momentum = (pages: readonly PageSpec[], options: Parameters<typeof syntheticFacts>[1] = {}) =>
    companyMomentum(facts(pages, "company_momentum", options));

  it("reads a title-case news headline on the home page as an announcement", () => {
    const assessment = momentum([{ ...BARE_SITE[0]!, headings: ["Acme Network Launches Bionic Report Explainer"] }]);
    expect(assessment.raised.concat(assessment.lowered)).toContain("1 announcement (launches, partnerships)");
  });

  it("does not read a call to action heading as news", () => {
    const assessment = momentum([{ ...BARE_SITE[0]!, headings: ["Partner With Us", "Launch Faster"] }]);
    expect(assessment.lowered).toContain("no news or announcements");
  });

  it("reads a growth figure with a qualifier ('10,000 subscription customers')", () => {
    const assessment = momentum([
      ...BARE_SITE,
      page("/about", "More than 10,000 subscription customers in 130 countries rely on Acme.", "About"),
    ]);
    expect(assessment.raised).toContain("1 growth or scale figure stated");
  });

  it("does not read another company's users as a growth figure", () => {
    const assessment = momentum([
      ...BARE_SITE,
      page("/about", "A scandal exposed data of more than 87 million Facebook users without consent.", "About"),
    ]);
    expect(assessment.lowered).toContain("no growth or scale figures");
  });

  it("does not read a table's sample rows as dated history", () => {
    const rows = ["2016-05-03", "2016-05-02", "2016-05-04", "2016-05-01"].map(
      (date) => `${date}\nTom\nNo. 189, Grove St, Los Angeles`,
    );
    const assessment = momentum([
      ...BARE_SITE,
      { path: "/changelog", text: "2.5.0\n2019-02-01\nFixes", dates: ["2019-02-01", "2018-12-01"] },
      {
        path: "/component/table",
        text: `Basic table\nDate\nName\nAddress\n${rows.join("\n")}`,
        dates: ["2016-05-01", "2016-05-02", "2016-05-03", "2016-05-04"],
      },
    ]);
    expect(assessment.lowered).toContain("no founding year or dated history");
  });

  it("keeps the dates of a news list whose rows repeat only a category", () => {
    const list = ["2018-03-28", "2019-04-01", "2020-04-02"].map(
      (date, index) => `Post number ${index}\n${date}\nArtificial Intelligence\nSummary ${index}`,
    );
    const assessment = momentum(
      [...BARE_SITE, { path: "/research", text: list.join("\n"), dates: ["2018-03-28", "2019-04-01", "2020-04-02"] }],
      { crawledAt: "2020-05-01T00:00:00.000Z" },
    );
    expect([...assessment.raised, ...assessment.lowered]).toContain("dated content spans 2 years (2018–2020)");
  });

  it("does not read a product's announced end as recent activity or news", () => {
    const home: PageSpec = {
      path: "/",
      title: "Acme",
      text: "Acme will be phased out by March 31, 2018 and is no longer supported. Through our partnership with Globex, we encourage users to migrate to Globex Cloud.\nAgile project management for teams.",
      dates: ["2018-03-31"],
    };
    const assessment = momentum([home], { crawledAt: "2018-05-28T00:00:00.000Z" });
    expect(assessment.lowered).toContain("no dated content");
    expect(assessment.lowered).toContain("no news or announcements");
  });

  it("still reads a dated home page and its partnership news when no end is announced", () => {
    const home: PageSpec = {
      path: "/",
      title: "Acme",
      text: "Acme partners with Globex to bring planning to every team, from March 31, 2018.\nAgile project management for teams.",
      dates: ["2018-03-31"],
    };
    const assessment = momentum([home], { crawledAt: "2018-05-28T00:00:00.000Z" });
    expect(assessment.lowered).not.toContain("no dated content");
    expect(assessment.lowered.concat(assessment.raised)).toContain("1 announcement (launches, partnerships)");
  });

  it("does not read a person's 'experience since 2003' as the company's founding", () => {
    const team = page(
      "/about",
      "Tomáš has an Information Technology experience since 2003, when he established his own wireless provider.",
      "About",
    );
    expect(momentum([...BARE_SITE, team]).lowered).toContain("no founding year or dated history");
  });

  it("still reads the company's own 'since 2005'", () => {
    const about = page("/about", "Acme has served insurers since 2005.", "About");
    expect(momentum([...BARE_SITE, about]).raised).toContain("founded or active since 2005");
  });
});

describe("more misreadings from the audit of the corpus (framework 2.5.0)", () => {
  it("the site's menu on the careers page is not an opening", () => {
    const careers: PageSpec = {
      path: "/careers",
      title: "Careers",
      text: "Join us\nGolang Engineer - Core Infrastructure",
      namedLinks: [{ href: "/docs", text: "Developer Docs", inNav: true }],
    };
    expect(jobOpenings(syntheticFacts([...BARE_SITE, careers])).map((opening) => opening.title)).toEqual([
      "Golang Engineer - Core Infrastructure",
    ]);
  });

  it("reads funding from VCs that support the company, and a grant it won", () => {
    const said = (text: string) =>
      companyMomentum(facts([...BARE_SITE, page("/about", text)], "company_momentum")).raised;
    expect(said("We are supported by Mosaic and BlueYard, two of the best VCs in Europe.")).toContain(
      "funding or investors named",
    );
    expect(said("Acme wins funding from the Web3 Foundation.")).toContain("funding or investors named");
    expect(said("Our customers win awards every year.")).not.toContain("funding or investors named");
  });

  it("an FAQ page that says only 'Coming soon' is not an FAQ", () => {
    const soon = customerSuccess(
      facts([...BARE_SITE, page("/faqs", "Coming Soon. For now, ask us on Telegram.", "FAQs")], "customer_success"),
    );
    expect(soon.lowered).not.toContain("an FAQ, but no help centre");
    expect(soon.evidence.map((item) => item.text)).not.toContain("FAQ page: FAQs");
    const real = customerSuccess(
      facts(
        [...BARE_SITE, page("/faq", "How do I reset my password?\nUse the link.\nCan I export data?\nYes.", "FAQ")],
        "customer_success",
      ),
    );
    expect(real.evidence.map((item) => item.text)).toContain("FAQ page: FAQ");
  });

  it("'?type=referral' on a sign-up link is tracking, not a partner programme", () => {
    const tracked = growthDistribution(
      facts(
        [{ ...BARE_SITE[0]!, namedLinks: [{ href: "/signup?type=referral", text: "Sign up" }] }],
        "growth_distribution",
      ),
    );
    expect(tracked.lowered).toContain("no partner or affiliate programme");
    const programme = growthDistribution(
      facts([{ ...BARE_SITE[0]!, namedLinks: [{ href: "/referral", text: "Refer a friend" }] }], "growth_distribution"),
    );
    expect(programme.raised).toContain("a partner, affiliate or referral programme");
  });
});

describe("talent_organization: a roster under a team heading (framework 2.5.0)", () => {
  it("counts names listed under 'Our Team' though no role is written beside them", () => {
    const roster = page(
      "/about",
      "Our Team\nEveryone here shares one vision.\nAdair Houle\nEric Warnke\nGezim Hoxha\nGreg Bell\n7449074931\nSupport Home",
      "About",
    );
    expect(people([roster])).toBe("4 people named on a team list or with a role");
  });

  it("not a menu under a heading, nor two names", () => {
    expect(people([page("/about", "Our Team\nSupport Home\nAbout Acme\nContact Sales", "About")])).toBe(
      "no team shown",
    );
    expect(people([page("/about", "Our Team\nAdair Houle\nEric Warnke", "About")])).toBe("no team shown");
  });
});

describe("growth_distribution: a menu's 'Blog' to another host of the site (framework 2.5.0)", () => {
  it("counts a link whose text is 'Blog' on the site's own domain as a blog linked", () => {
    const linked = growthDistribution(
      facts(
        [{ ...BARE_SITE[0]!, namedLinks: [{ href: "https://text.acme.example/", text: "Blog" }] }],
        "growth_distribution",
      ),
    );
    expect(linked.lowered.join(" ")).toMatch(/blog linked but not crawled/);
    const elsewhere = growthDistribution(
      facts(
        [{ ...BARE_SITE[0]!, namedLinks: [{ href: "https://other.example/", text: "Blog" }] }],
        "growth_distribution",
      ),
    );
    expect([...elsewhere.raised, ...elsewhere.lowered].join(" ")).not.toMatch(/blog linked/);
  });
});

describe("talent_organization: a team grid whose roles are functions (framework 2.6.0)", () => {
  const grid = (cards: string) => page("/about", `Team\n${cards}\nwant to join us?`, "About");
  it("counts every card of a grid once two or more of its roles read as roles alone", () => {
    const cards = [
      "Demián Brener\nFounder & CEO",
      "Manuel Araoz\nFounder & CTO",
      "Francisco Giordano\nCore dev",
      "Martín Triay\nCommunications",
      "Martín Tellechea\nBiz dev",
      "Juan Bautista Carpanelli\nCore Dev",
      "Sofía Vissani\nFinance",
      "Carolina Jacob\nHR",
    ].join("\n");
    expect(people([grid(cards)])).toBe("8 people named with a role");
  });

  it("does not count a function under a name without a grid, nor a menu's labels", () => {
    expect(people([grid("Founder & CEO\nSofía Vissani\nFinance\nCarolina Jacob\nHR")])).toBe(
      "1 person named with a role",
    );
    expect(people([page("/about", "Acme Cloud\nFinance\nAbout Us\nMarketing\nSupport Home\nSales", "About")])).toBe(
      "no team shown",
    );
  });
});
