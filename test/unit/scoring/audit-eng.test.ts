import { describe, expect, it } from "vitest";
import { classifyPage, describePage } from "../../../src/modules/crawl/page-priority.js";
import {
  architectureSystems,
  deliveryVelocity,
  documentationQuality,
  reliabilityOperations,
} from "../../../src/modules/scoring/rules/engineering-delivery.js";
import { at, BARE_SITE } from "../../support/rule-assertions.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Misreadings the audit of the calibration corpus found in the engineering rules and
 * the page categories (framework 2.5.0): each case is the general shape of what a
 * real site showed, and its counterpart the reading that must still hold.
 */
const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });

describe("page categories (framework 2.5.0)", () => {
  it("reads a blog's topic listing as the blog, whatever the topic is called", () => {
    expect(classifyPage(at("/categories/crm-integrations/"), "Crm Integrations")).toBe("blog");
    expect(classifyPage(at("/tags/tutorials"), "Tutorials")).toBe("blog");
    expect(classifyPage(at("/category/news"))).toBe("blog");
  });

  it("still reads an integrations directory, and a component named 'tag' below a docs folder, as before", () => {
    expect(classifyPage(at("/integrations/crm"), "CRM")).toBe("integrations");
    expect(describePage(`${at("/")}#/en-US/component/tag`, "Tag").category).toBe("other");
  });

  it("reads a privacy notice under a longer name as the privacy policy", () => {
    expect(classifyPage(at("/privacy-and-cookies-policy"))).toBe("privacy");
    expect(classifyPage(at("/data-privacy-policy"))).toBe("privacy");
    expect(classifyPage(at("/legal/privacy-statement"))).toBe("privacy");
  });

  it("does not read a page merely starting with 'privacy-' as the policy", () => {
    expect(classifyPage(at("/privacy-first-analytics"), "Privacy-first analytics for your whole team")).toBe("other");
    expect(classifyPage(at("/privacy"))).toBe("privacy");
  });

  it("reads a quickstart or getting-started page as documentation", () => {
    expect(classifyPage(at("/quickstart"), "Quickstart | Acme")).toBe("docs");
    expect(classifyPage(at("/getting-started"))).toBe("docs");
    expect(classifyPage(at("/component/quick-start"))).toBe("docs");
    expect(classifyPage(at("/tutorial-page"), "Quick Start")).toBe("docs");
  });

  it("keeps a blog post about getting started a blog post, and a 'Get started' button's page unread as docs", () => {
    expect(classifyPage(at("/blog/getting-started-with-acme"), "Getting Started with Acme")).toBe("blog");
    expect(classifyPage(at("/get-started"), "Get started")).toBe("other");
  });

  it("reads a docs page titled as a reference as the API reference", () => {
    expect(classifyPage(at("/docs/current/modules/editor/Editor.html"), "Editor - Brackets API")).toBe("api_reference");
    expect(classifyPage(at("/docs/Classes/HTTPProxy.html"), "HTTPProxy Class Reference")).toBe("api_reference");
  });

  it("keeps a docs guide a guide: a bare 'Reference' title, or a sentence ending in 'our API'", () => {
    expect(classifyPage(at("/docs/ABTesting.html"), "Reference")).toBe("docs");
    expect(classifyPage(at("/docs/guides/start"), "How to call our API")).toBe("docs");
    expect(classifyPage(at("/pricing"), "Pricing API")).toBe("pricing");
  });

  it("reads 'man' pages as documentation", () => {
    expect(classifyPage(at("/server/man/clients.conf.html"), "Server 'man' pages")).toBe("docs");
    expect(classifyPage(at("/server/manifesto"), "Our manifesto")).toBe("other");
  });

  it("reads a page headed 'Our team' as the about page, when its heading is given", () => {
    expect(classifyPage(at("/acme-stake-pool-team"), "Acme Stake Pool", "Our team")).toBe("about");
    expect(classifyPage(at("/who"), "Acme", "About us")).toBe("about");
  });

  it("does not read a page about teams, or one whose address names its category, as the about page", () => {
    expect(classifyPage(at("/for-teams"), "Acme for teams", "Built for your team")).toBe("other");
    expect(classifyPage(at("/careers"), "Careers", "Our team")).toBe("careers");
  });
});

describe("documentation_quality code samples (framework 2.5.0)", () => {
  const docs = (text: string): PageSpec[] => [...BARE_SITE, page("/docs", text, "Docs")];

  it("counts install commands, #import, markup, declarations and one-call lines as code", () => {
    const assessment = documentationQuality(
      syntheticFacts(
        docs(
          [
            "Install the tool first.",
            "brew install Carthage",
            "Then import the framework.",
            "import Proxeine",
            "In Objective-C:",
            "#import <Proxeine/Proxeine-Swift.h>",
            "Start the proxy:",
            "CaffeineHTTPProxy.start()",
            "A button:",
            '<el-button type="primary">Primary</el-button>',
            "A menu:",
            'var menu = Menus.addMenu("File");',
            "A handler:",
            "function handleClick(tab, event) { console.log(tab); }",
          ].join("\n"),
        ),
      ),
    );
    expect(assessment.raised.join(" ")).toMatch(/7 code samples in the docs/);
  });

  it("does not read prose as code: 'import your data', 'Let us help', 'Function list:'", () => {
    const assessment = documentationQuality(
      syntheticFacts(
        docs(
          [
            "Import your data from a spreadsheet.",
            "Let us help you set up.",
            "Function list: what each screen does.",
            "See the <Company Name> field.",
          ].join("\n"),
        ),
      ),
    );
    expect(assessment.lowered).toContain("no code samples in the docs");
  });

  it("counts a component page with an Attributes section and code among the documentation pages", () => {
    const component = (name: string): PageSpec => ({
      path: `/component/${name}`,
      title: "Component | Acme UI",
      headings: [
        { level: 2, text: name },
        { level: 3, text: `${name} Attributes` },
      ],
      text: `Use the ${name}.\n<el-${name} type="primary"></el-${name}>\nAttribute Description Type`,
    });
    const assessment = documentationQuality(
      syntheticFacts([
        ...BARE_SITE,
        page("/guide/design", "Design principles.", "Guide"),
        ...["button", "card", "tag"].map(component),
      ]),
    );
    expect(assessment.raised.join(" ")).toMatch(/4 documentation pages/);
    expect(assessment.raised.join(" ")).toMatch(/3 code samples in the docs/);
  });

  it("does not count a product page with an Events heading but no code", () => {
    const assessment = documentationQuality(
      syntheticFacts([
        ...BARE_SITE,
        { path: "/community", title: "Community", headings: [{ level: 2, text: "Upcoming Events" }], text: "Meet us." },
      ]),
    );
    expect(assessment.lowered).toContain("no documentation");
  });
});

describe("documentation_quality versioning (framework 2.5.0)", () => {
  it("does not read the docs generator's version as docs versioning", () => {
    const assessment = documentationQuality(
      syntheticFacts([
        ...BARE_SITE,
        page(
          "/docs",
          "The following classes are available.\nGenerated by jazzy ♪♫ v0.7.3, a Realm project.",
          "Classes",
        ),
      ]),
    );
    expect(assessment.lowered).toContain("no docs search, versioning or feedback");
  });

  it("still reads the docs' own versions", () => {
    const assessment = documentationQuality(
      syntheticFacts([...BARE_SITE, page("/docs", "You are reading the docs for v2.3 of the SDK.", "Docs")]),
    );
    expect(assessment.raised).toContain("docs tooling: versioning");
  });
});

describe("delivery_velocity from release posts (framework 2.5.0)", () => {
  const post = (slug: string, title: string, date: string): PageSpec => ({
    path: `/blog/${slug}`,
    title,
    text: `${title}\nBy the team\nWhat we shipped this month.`,
    dates: [date],
  });
  const options = { crawledAt: "2024-01-17T00:00:00.000Z" };

  it("reads dated, versioned release posts as the changelog when the site keeps no changelog page", () => {
    const assessment = deliveryVelocity(
      syntheticFacts(
        [
          ...BARE_SITE,
          page("/blog", "Read our blog", "Blog"),
          post("acme-new-release", "Acme | Acme New Release", "2023-05-30"),
          post("redis-and-postgres-acme-v0.6", "Acme | Redis and Postgres - Acme v0.6", "2023-11-09"),
          post("queues-acme-v0.7", "Acme | Collaboration and Queues - Acme v0.7", "2023-12-18"),
        ],
        options,
      ),
    );
    expect(assessment.raised).toContain("release announcements among the posts (3 dated posts)");
    expect(assessment.raised.join(" ")).toMatch(/newest release post 30 days old \(2023-12-18\)/);
    expect(assessment.evidence.map((item) => item.url)).toContain(at("/blog/queues-acme-v0.7"));
  });

  it("does not read another product's version, a raise or a 'Release' verb as a release", () => {
    const assessment = deliveryVelocity(
      syntheticFacts(
        [
          ...BARE_SITE,
          post("net-5", "Why We Upgraded Our Application to .NET 5.0", "2023-12-01"),
          post("seed", "Acme raises $2.5 million", "2023-11-01"),
          post("report", "Acme and Partner Release Joint Report on Attacks", "2023-10-01"),
        ],
        options,
      ),
    );
    expect(assessment.lowered).toContain("no changelog or release notes found");
  });

  it("still prefers a changelog page over release posts", () => {
    const assessment = deliveryVelocity(
      syntheticFacts(
        [
          ...BARE_SITE,
          { path: "/changelog", title: "Changelog", text: "Fixed the export.", dates: ["2024-01-10"] },
          post("acme-v0-7", "Acme v0.7", "2023-12-18"),
        ],
        options,
      ),
    );
    expect(assessment.raised).toContain("a changelog or release notes page");
  });
});

describe("delivery_velocity empty changelog page (framework 2.5.0)", () => {
  it("reads a changelog page with no text as linked, not read", () => {
    const assessment = deliveryVelocity(
      syntheticFacts([...BARE_SITE, { path: "/whats-new", title: "| Acme", text: "-->" }]),
    );
    expect(assessment.raised).toContain("a changelog is linked but its entries were not read");
    expect(assessment.raised).not.toContain("a changelog or release notes page");
  });

  it("still credits a changelog page with entries", () => {
    const assessment = deliveryVelocity(
      syntheticFacts([
        ...BARE_SITE,
        { path: "/whats-new", title: "What's new", text: "Faster exports for every plan." },
      ]),
    );
    expect(assessment.raised).toContain("a changelog or release notes page");
  });
});

describe("reliability_operations backups (framework 2.5.0)", () => {
  it("reads 'backups are automatically created every day' as a practice", () => {
    const assessment = reliabilityOperations(
      syntheticFacts([
        ...BARE_SITE,
        page("/security", "Database backups are automatically created every day and kept for 7 days.", "Security"),
      ]),
    );
    expect(assessment.raised).toContain("operational practices described (backups, failover, DR)");
  });

  it("does not read 'backups are really not your problem' as a practice", () => {
    const assessment = reliabilityOperations(
      syntheticFacts([...BARE_SITE, page("/features", "With Acme, backups are really not your problem.", "Features")]),
    );
    expect(assessment.lowered).toContain("no operational practices described");
  });
});

describe("architecture_systems hosting (framework 2.5.0)", () => {
  it("names the cloud the product is said to run on", () => {
    const assessment = architectureSystems(
      syntheticFacts([
        ...BARE_SITE,
        page("/security", "All production systems are hosted on Google Cloud Platform, encrypted at rest.", "Security"),
        page("/platform", "Our backend is backed by Amazon AWS which is proven infrastructure.", "Platform"),
      ]),
    );
    expect([...assessment.raised, ...assessment.lowered].join(" ")).toMatch(/stack named: AWS, Google Cloud/);
  });

  it("does not read a list of providers, an investor or a customer's deployment as the host", () => {
    const assessment = architectureSystems(
      syntheticFacts([
        ...BARE_SITE,
        page("/legal", "We use Amazon Web Services, Google Cloud Compute and Azure.", "Legal"),
        page("/about", "Acme is backed by Amazon's Alexa Fund.", "About"),
        page("/cloud", "Acme protects container runtimes deployed on AWS ECS and EKS.", "Cloud"),
      ]),
    );
    expect(assessment.lowered).toContain("no infrastructure or stack named");
  });
});

describe("architecture_systems engineering writing (framework 2.5.0)", () => {
  it("does not read 'our infrastructure provider' as an architecture write-up", () => {
    const assessment = architectureSystems(
      syntheticFacts([
        ...BARE_SITE,
        page(
          "/our-partners/x",
          "Operated in partnership with our Infrastructure Provider Example Group.",
          "Project partnership",
        ),
      ]),
    );
    expect(assessment.lowered).toContain("no engineering blog or architecture write-ups");
  });

  it("still reads 'our infrastructure is …' as one", () => {
    const assessment = architectureSystems(
      syntheticFacts([
        ...BARE_SITE,
        page("/about", "Our infrastructure is split into cells that fail independently.", "About"),
      ]),
    );
    expect(assessment.raised.join(" ")).toMatch(/engineering or architecture writing/);
  });
});

describe("a product's incremental backups are a feature, not the company's practice (framework 2.5.0)", () => {
  it("'works just like our Incremental Backups' is not an operational practice", () => {
    const feature = reliabilityOperations(
      syntheticFacts([
        ...BARE_SITE,
        {
          path: "/security",
          title: "Security",
          text: "Sync works just like our Incremental Backups, copying only changed files.",
        },
      ]),
    );
    expect(feature.raised).not.toContain("operational practices described (backups, failover, DR)");
    expect(feature.lowered).toContain("no operational practices described");
  });
});

describe("delivery_velocity: a link to one tagged release (framework 2.6.0)", () => {
  const linked = (href: string, text: string) =>
    deliveryVelocity(syntheticFacts([{ ...BARE_SITE[0]!, namedLinks: [{ href, text }] }]).about("delivery_velocity"));
  it("does not read a link to one release tag or its download as a changelog", () => {
    for (const href of [
      "https://github.com/acme/paper-privacy-nfts/releases/tag/v1.01",
      "https://github.com/acme/acme/releases/download/v2.0/acme.zip",
    ])
      expect(linked(href, "NFT Paper").lowered).toContain("no changelog or release notes found");
  });

  it("still reads a link to the list of releases as a changelog linked", () => {
    expect(linked("https://github.com/acme/acme/releases", "Releases").raised).toContain(
      "a changelog is linked but its entries were not read",
    );
  });
});
