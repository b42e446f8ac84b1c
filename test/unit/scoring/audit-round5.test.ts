import { describe, expect, it } from "vitest";
import { architectureSystems, deliveryVelocity } from "../../../src/modules/scoring/rules/engineering-delivery.js";
import {
  companyMomentum,
  customerSuccess,
  jobOpenings,
  talentOrganization,
} from "../../../src/modules/scoring/rules/growth-organization.js";
import { blogPost, factsAbout, page, said } from "../../support/scoring-cases.js";
import { syntheticFacts } from "../../support/synthetic-crawl.js";

/** Framework 2.10.0: misreadings left by the fourth audit (docs/known-gaps.md) that a pattern can fix. */
const talent = (text: string, path = "/careers") =>
  said(talentOrganization(factsAbout([page(path, text, "Careers")], "talent_organization")));

describe("talent_organization reads a values section however it is headed (framework 2.10.0)", () => {
  it("reads a section headed 'We believe in' over the values it lists (centrifuge's careers page)", () => {
    expect(talent("We believe in\nNo boundaries\nAutonomy and Accountability")).toContain(
      "values, culture or benefits described",
    );
  });

  it("reads 'we foster a culture of sharing and transparency' as culture described", () => {
    expect(
      talent(
        "We believe that a collective brain is more valuable, so we foster a culture of sharing and transparency.",
      ),
    ).toContain("values, culture or benefits described");
  });

  it("does not read 'We believe in the power of technology' in a sentence, or a customer's culture, as the team's values", () => {
    expect(talent("We believe in the power of technology to change the world.")).toContain(
      "no values or culture described",
    );
    expect(talent("Our clients include companies that share our values.")).toContain("no values or culture described");
  });
});

describe("company_momentum reads a footer's legal name and year as its copyright year (framework 2.10.0)", () => {
  const footer = (line: string) =>
    said(
      companyMomentum(
        syntheticFacts(
          [{ path: "/", title: "Caffeine", text: "Faster apps.", boilerplate: [`About\nPrivacy Policy\n${line}`] }],
          { crawledAt: "2017-11-13T00:00:00.000Z" },
        ).about("company_momentum"),
      ),
    );

  it.each(["Caffeine Computing Inc. • 2017", "2017 Caffeine Computing Inc.", "Caffeine GmbH, 2017"])(
    "reads '%s' as © 2017",
    (line) => {
      expect(footer(line)).toContain("© 2017 on the home page (current)");
    },
  );

  it("does not read a year beside words that are no company's legal name", () => {
    expect(footer("Founded 2017")).toContain("no copyright year on the home page");
    expect(footer("Call us 2017")).toContain("no copyright year on the home page");
  });
});

describe("a job ad's shape names its title, whatever the title is (framework 2.10.0)", () => {
  const about = [
    "Join us",
    "Blockchain Development (Rust)",
    "Responsibilities:",
    "Design and build the chain.",
    "Requirements:",
    "4. Experience working with blockchain;",
    "Apply Now",
    "Technical Educator",
    "Responsibilities:",
    "Write documents, tutorials and screencasts.",
    "Apply Now",
    "Community Operation",
    "Responsibilities:",
    "Plan online and offline activities.",
    "Apply Now",
  ].join("\n");

  it("reads each title directly over 'Responsibilities:' as an opening (itering's /about: six, not four)", () => {
    const titles = jobOpenings(factsAbout([page("/about", about, "About")], "talent_organization")).map(
      (opening) => opening.title,
    );
    expect(titles).toEqual(["Blockchain Development (Rust)", "Technical Educator", "Community Operation"]);
  });

  it("does not read a requirement's list item or 'Apply Now' as a title", () => {
    const titles = jobOpenings(factsAbout([page("/careers", about, "Careers")], "talent_organization")).map(
      (opening) => opening.title,
    );
    expect(titles).not.toContain("Apply Now");
    expect(titles.some((title) => title.startsWith("4."))).toBe(false);
  });
});

describe("company_momentum: prize money and more volumes (framework 2.10.0)", () => {
  const momentum = (pages: Parameters<typeof factsAbout>[0]) =>
    said(companyMomentum(factsAbout(pages, "company_momentum")));

  it("reads prize money taken home as start-up funds as funding named with an amount", () => {
    expect(
      momentum([
        page(
          "/newsroom/2019/06/09/acme-wins",
          "Acme’s technology wins the finals of the Grand Challenge, taking home TWD 5 million in prize money as start-up funds.",
          "Acme wins",
        ),
      ]),
    ).toContain("funding named with an amount");
  });

  it.each([
    ["a live counter", "/pricing", "7449074931\n— FILES AND COUNTING —"],
    ["a badge line", "/", "Trusted To Manage $430m+ of Revenue"],
    [
      "a stat line on the company's own post",
      "/blog/2016-recap",
      "General Acme Stats\nOver 120,000,000 events processed",
    ],
    ["'tens of billions' in the company's voice", "/about", "Acme safeguards tens of billions of dollars in funds."],
    ["a figure done, in the company's voice", "/about", "With nearly 8 million tasks completed, we know our business."],
  ])("reads %s as a scale figure", (_kind, path, text) => {
    // On the home page, the text is the home page's own; elsewhere, a page beside the bare home page.
    const facts =
      path === "/"
        ? syntheticFacts([{ path, title: "Acme", text: `Acme\n${text}` }], { crawledAt: "2024-01-17T00:00:00.000Z" })
        : undefined;
    const reading = facts
      ? said(companyMomentum(facts.about("company_momentum")))
      : momentum([page(path, text, "Page")]);
    expect(reading).toContain("1 growth or scale figure stated");
  });

  it("does not read a plan's allowance or a figure without a verb of scale as one", () => {
    expect(momentum([page("/pricing", "3,000,000 errors processed per month on the Pro plan", "Pricing")])).toContain(
      "no growth or scale figures",
    );
    expect(momentum([page("/about", "24\nAND COUNTING", "About")])).toContain("no growth or scale figures");
  });
});

describe("delivery_velocity: release announcements, and what a short record weighs (framework 2.10.0)", () => {
  const delivery = (posts: ReadonlyArray<readonly [string, string]>, crawledAt = "2017-11-13T00:00:00.000Z") =>
    deliveryVelocity(
      factsAbout(
        [
          page("/blog", "Read our blog", "Blog"),
          ...posts.map(([title, date], index) => blogPost(`post-${index}`, title, date)),
        ],
        "delivery_velocity",
        crawledAt,
      ),
    );

  it.each(["Announcing HTTP Keep-Alive Support", "EffectDAO Proposal System is now LIVE"])(
    "reads '%s' as a release post",
    (title) => {
      expect(delivery([[title, "2017-10-06"]]).evidence.map((item) => item.text)).toContain(`release post: ${title}`);
    },
  );

  it("does not read an announcement of funding or a hire as a release", () => {
    expect(delivery([["Announcing our Series A", "2017-10-06"]]).evidence).toEqual([]);
  });

  it("keeps the costly weight for a short record with nothing in the last quarter, and lightens a recent burst", () => {
    expect(delivery([["Announcing HTTP Keep-Alive Support", "2016-12-06"]]).weighsAs).toBeUndefined();
    expect(delivery([["Announcing HTTP Keep-Alive Support", "2017-10-06"]]).weighsAs?.cost).toBe("moderate");
  });

  it("reads a roadmap's periods marked 'Launched' as dated launches (darwinia), and not its plans", () => {
    const roadmap = (text: string) =>
      deliveryVelocity(
        syntheticFacts([{ path: "/", title: "Acme", text }], { crawledAt: "2020-10-28T00:00:00.000Z" }).about(
          "delivery_velocity",
        ),
      );
    const assessment = roadmap(
      [
        "Roadmap",
        "2019-07",
        "Launched",
        "2019-11",
        "Launched",
        "2020-Q1",
        "Launched",
        "2020-Q3",
        "2020 Q3-Q4",
        "Mainnet",
      ].join("\n"),
    );
    expect(said(assessment)).toContain("launches marked on a dated roadmap (3 milestones)");
    expect(said(assessment)).toContain("roadmap launches: 6 months of dated entries (2019-07-01 to 2020-01-01)");
    // A roadmap of plans only ("2021-Q1 / Mainnet") shows no launch.
    expect(said(roadmap(["Roadmap", "2021-Q1", "Mainnet", "2021-Q2", "Parachain"].join("\n")))).toContain(
      "no changelog or release notes found",
    );
  });
});

describe("architecture_systems: where the product runs, said with an adjective between (framework 2.10.0)", () => {
  const stack = (text: string) =>
    said(architectureSystems(factsAbout([page("/platforms", text, "Platforms")], "architecture_systems"))).find(
      (line) => /stack named|no infrastructure or stack named/.test(line),
    );

  it.each([
    ["SignalCloud runs on the cutting-edge Heroku computing service, providing a self-healing foundation.", "Heroku"],
    ["SignalCloud builds upon the Twilio communication framework to power our SMS pipeline.", "Twilio"],
  ])("reads '%s' as its stack", (text, name) => {
    expect(stack(text)).toContain(name);
  });

  it("does not read the customer's cloud as the company's stack", () => {
    expect(stack("The agent runs in your own AWS account.")).toBe("no infrastructure or stack named");
  });
});

describe("customer_success: a bare support address on the contact page (framework 2.10.0)", () => {
  const success = (path: string, text: string) =>
    customerSuccess(factsAbout([page(path, text, "Contact")], "customer_success"));

  it("reads 'M: support@acme.tw' on /contact-us as an email support channel", () => {
    const assessment = success("/contact-us", "Global Support\nM: support@acme.tw\nT: +886 2 1234 5678");
    expect(said(assessment)).toContain("only one support channel (email)");
    expect(assessment.evidence.map((item) => item.text)).toContain(
      "support address on the contact page: support@acme.tw",
    );
  });

  it("does not read a sales address, or a support address on another page, that way", () => {
    expect(said(success("/contact-us", "M: sales@acme.tw"))).toContain("no support channels stated");
    expect(said(success("/team", "M: support@acme.tw"))).toContain("no support channels stated");
  });
});
