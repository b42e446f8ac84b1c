import { describe, expect, it } from "vitest";
import { announcedEnd } from "../../../src/modules/scoring/announced-end.js";
import { quotable, traitsOf } from "../../../src/modules/scoring/evidence-relevance.js";
import { ownCodeHostLinks } from "../../../src/modules/scoring/rules/code-hosts.js";
import { siteProfile } from "../../../src/modules/scoring/site-profile.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticCrawl, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Misreadings an audit of the 32-site calibration corpus found in what every rule
 * shares (framework 2.5.0): each case is the general shape of what a real site showed.
 */
const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });

describe("the © year on the home page (framework 2.5.0)", () => {
  const year = (text: string, crawledAt = "2026-11-01T00:00:00.000Z") =>
    syntheticFacts([page("/", text, "Acme")], { crawledAt }).copyrightYear();

  it("reads '© Acme 2026' as well as '© 2019–2026 Acme'", () => {
    expect(year("Built by Acme. © Acme Sheets 2026")).toBe(2026);
    expect(year("© 2019–2025 Acme Inc.")).toBe(2025);
    expect(year("Copyright © 2024 Acme")).toBe(2024);
  });

  it("does not take a year after the crawl: a script wrote the reader's clock", () => {
    expect(year("© 2026 Acme", "2022-03-01T00:00:00.000Z")).toBeUndefined();
  });
});

describe("a privacy policy is read whole (framework 2.5.0)", () => {
  it("finds a retention clause past the first 8,000 characters of a policy", () => {
    const policy = `${"We collect the information you give us when you use the service. ".repeat(200)}\nData Retention\nWe will only retain your data for as long as reasonably necessary.`;
    const facts = syntheticFacts([...BARE_SITE, page("/privacy-policy", policy, "Privacy Policy")]);
    expect(facts.about("data_privacy").mentions(/retain your data/i)).toHaveLength(1);
    expect(facts.about("data_privacy").mentions(/^Data Retention$/)).toHaveLength(1);
  });

  it("but other long pages are still read to 8,000 characters", () => {
    const post = `${"A long essay about the market and its history. ".repeat(200)}\nWe will only retain your data for as long as needed.`;
    const facts = syntheticFacts([...BARE_SITE, page("/about", post, "About")]);
    expect(facts.mentions(/retain your data/i)).toHaveLength(0);
  });

  it("a middle initial does not end a sentence", () => {
    const facts = syntheticFacts([...BARE_SITE, page("/contact", "Chief Financial Officer Gerard L. Pennefather")]);
    expect(facts.mentions(/Chief Financial Officer/)[0]?.text).toBe("Chief Financial Officer Gerard L. Pennefather");
  });
});

describe("which sentences may evidence a dimension (framework 2.5.0)", () => {
  it("a job ad's 'Responsible for …' and 'Proficient in …' lines are hiring text", () => {
    expect(traitsOf("Responsible for the design of the wallet, blockchain browser and SDK").hiring).toBe(true);
    expect(traitsOf("Proficient in Rust and Go").hiring).toBe(true);
    expect(traitsOf("Fluent API for building queries").hiring).toBe(false);
  });

  it("documentation is read for its code lines, other dimensions are not", () => {
    const docs = { url: `${SYNTHETIC_ORIGIN}/docs/install`, category: "docs" } as const;
    expect(quotable("documentation_quality", docs, "import Proxeine")).toBe(true);
    expect(quotable("documentation_quality", docs, "var menu = Menus.addMenu(name, id);")).toBe(true);
    expect(quotable("developer_platform", docs, "var menu = Menus.addMenu(name, id);")).toBe(false);
  });
});

describe("the product's own end, named as the site writes it (framework 2.5.0)", () => {
  it("'Overvio will be phased out' on the site overv.io", () => {
    const crawl = syntheticCrawl(
      [page("/", "Overvio will be phased out by March 31, 2018 and is no longer supported.")],
      {
        companyName: "overv.io",
      },
    );
    expect(announcedEnd(crawl)?.text).toMatch(/^Overvio will be phased out/);
  });

  it("not another product's end", () => {
    const crawl = syntheticCrawl([page("/", "Legacy Tool will be phased out next year; move to Acme.")], {
      companyName: "overv.io",
    });
    expect(announcedEnd(crawl)).toBeUndefined();
  });
});

describe("a sales path is not read from legal text (framework 2.5.0)", () => {
  it("a terms page's 'certificate authorized by the appropriate taxing authority' is not a regulated seller", () => {
    const profile = siteProfile(
      syntheticFacts([
        page("/", "Acme sends text messages for your app. Sign up now.", "Acme"),
        page(
          "/policies/terms",
          "You must provide a valid tax exemption certificate authorized by the appropriate taxing authority.",
          "Terms",
        ),
      ]),
    );
    expect(profile.salesLed).toBe(false);
  });

  it("a licence on the about page still is", () => {
    const profile = siteProfile(
      syntheticFacts([
        ...BARE_SITE,
        page("/about", "Acme is licensed by the Labuan Financial Services Authority as an underwriting manager."),
      ]),
    );
    expect(profile.salesLed).toBe(true);
  });
});

describe("the site's own code, one link per repository (framework 2.5.0)", () => {
  const own = (links: string[]) =>
    ownCodeHostLinks(syntheticFacts([{ path: "/", title: "Acme", text: "We build things.", externalLinks: links }]));

  it("a repository's issues, wiki and files are one repository", () => {
    expect(
      own([
        "https://github.com/acme/acme",
        "https://github.com/acme/acme/issues",
        "https://github.com/acme/acme/wiki/Start",
        "https://github.com/acme",
      ]),
    ).toEqual(["https://github.com/acme/acme", "https://github.com/acme"]);
  });

  it("not someone's app built on the product, nor a repository of job posts", () => {
    expect(own(["https://github.com/jane/acme-music-app", "https://github.com/acme/careers"])).toEqual([]);
    expect(own(["https://github.com/adobe/acme"])).toEqual(["https://github.com/adobe/acme"]);
  });
});

describe("a page headed as the team page is the about page (framework 2.5.0)", () => {
  it("whatever its address", () => {
    const facts = syntheticFacts([
      ...BARE_SITE,
      {
        path: "/stake-pool-team",
        title: "Acme",
        headings: [{ level: 1, text: "Our team" }],
        text: "Jane Doe, operator.",
      },
    ]);
    expect(facts.pagesIn("about").map((item) => item.url)).toEqual([`${SYNTHETIC_ORIGIN}/stake-pool-team`]);
  });
});
