import { describe, expect, it } from "vitest";
import type { OutboundLink } from "../../../src/modules/crawl/crawl.types.js";
import {
  communityEcosystem,
  companyMomentum,
  customerSuccess,
  growthDistribution,
  jobOpenings,
  talentOrganization,
} from "../../../src/modules/scoring/rules/growth-organization.js";
import { BARE_SITE, expectSignal } from "../../support/rule-assertions.js";
import { SYNTHETIC_ORIGIN, syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

const bare = BARE_SITE;
const product = (text: string, path = "/product"): PageSpec => ({ path, title: "Product", text });
type Options = Parameters<typeof syntheticFacts>[1];
/** The synthetic crawl runs on 2026-11-01; these are days before it. */
const daysAgo = (days: number) =>
  new Date(Date.parse("2026-11-01T00:00:00Z") - days * 86_400_000).toISOString().slice(0, 10);
const blog = (dates: string[]): PageSpec => ({ path: "/blog", title: "Blog", dates });

describe("growth_distribution", () => {
  it("rises with blog cadence, and more with more recent posts", () => {
    const url = `${SYNTHETIC_ORIGIN}/blog`;
    const stale = growthDistribution(syntheticFacts([...bare, blog([daysAgo(400), daysAgo(500)])]));
    const monthly = expectSignal(growthDistribution, [blog([daysAgo(5), daysAgo(35), daysAgo(65), daysAgo(100)])], url);
    const weekly = growthDistribution(
      syntheticFacts([...bare, blog(Array.from({ length: 12 }, (_, i) => daysAgo(3 + i * 7)))]),
    );
    expect(weekly.raw).toBeGreaterThan(monthly.raw);
    expect(monthly.raw).toBeGreaterThan(stale.raw);
    expect(monthly.raised).toContain("blog: 3 posts dated in the last 90 days");
    expect(stale.lowered).toContain("blog: 0 posts dated in the last 90 days");
    expect(monthly.evidence[0]).toEqual({
      url,
      text: `blog: 3 posts dated in the last 90 days (newest ${daysAgo(5)})`,
    });
  });

  it("observes a blog without dates as a weak signal", () => {
    const assessment = growthDistribution(syntheticFacts([...bare, blog([])]));
    expect(assessment.coverage).toBeGreaterThan(0);
    expect(assessment.lowered).toContain("blog found, but its posts carry no dates");
  });

  it.each<[string, PageSpec[], string]>([
    ["a newsletter", [product("Subscribe to our newsletter.")], `${SYNTHETIC_ORIGIN}/product`],
    ["webinars", [product("Join our monthly webinars.")], `${SYNTHETIC_ORIGIN}/product`],
    ["a partner programme", [product("Become a partner and earn revenue share.")], `${SYNTHETIC_ORIGIN}/product`],
    ["an affiliate link", [{ path: "/about", links: ["/affiliates"] }], `${SYNTHETIC_ORIGIN}/affiliates`],
    ["a self-serve sign-up", [product("Start your free trial today.")], `${SYNTHETIC_ORIGIN}/product`],
  ])("rises with %s", (_name, pages, url) => {
    expectSignal(growthDistribution, pages, url);
  });
});

describe("community_ecosystem", () => {
  it.each<[string, PageSpec[], string, Options?]>([
    ["a Discord invite", [{ path: "/about", externalLinks: ["https://discord.gg/acme"] }], "https://discord.gg/acme"],
    ["a forum", [{ path: "/about", links: ["/community"] }], `${SYNTHETIC_ORIGIN}/community`],
    ["a Slack community in words", [product("Join our Slack community of builders.")], `${SYNTHETIC_ORIGIN}/product`],
    [
      "GitHub (outbound)",
      [],
      "https://github.com/acme",
      { outbound: [{ url: "https://github.com/acme", kind: "github", foundOn: `${SYNTHETIC_ORIGIN}/` }] },
    ],
    ["events", [product("Monthly meetups and a champions program.")], `${SYNTHETIC_ORIGIN}/product`],
    // People building on the product (that the product is open source is not itself a community).
    ["contributors", [product("Acme is built with 120 contributors on GitHub.")], `${SYNTHETIC_ORIGIN}/product`],
    ["community size", [product("A community of 12,000 developers.")], `${SYNTHETIC_ORIGIN}/product`],
  ])("rises with %s", (_name, pages, url, options) => {
    expectSignal(communityEcosystem, pages, url, options);
  });

  it("does not read a Discord integration as a community", () => {
    expect(communityEcosystem(syntheticFacts([...bare, product("Send alerts to Discord or Slack.")])).coverage).toBe(0);
  });

  it("scores three channels above one, and more GitHub links above one", () => {
    const one = communityEcosystem(
      syntheticFacts([...bare, { path: "/about", externalLinks: ["https://discord.gg/acme"] }]),
    );
    const three = communityEcosystem(
      syntheticFacts([
        ...bare,
        {
          path: "/about",
          externalLinks: ["https://discord.gg/acme", "https://www.reddit.com/r/acme"],
          links: ["/forum"],
        },
      ]),
    );
    expect(three.raw).toBeGreaterThan(one.raw);
    const gh = (urls: string[]) =>
      communityEcosystem(
        syntheticFacts(bare, {
          outbound: urls.map((url): OutboundLink => ({ url, kind: "github", foundOn: `${SYNTHETIC_ORIGIN}/` })),
        }),
      ).raw;
    expect(
      gh(["https://github.com/acme", "https://github.com/acme/sdk", "https://github.com/acme/cli"]),
    ).toBeGreaterThan(gh(["https://github.com/acme"]));
  });
});

describe("customer_success", () => {
  it.each<[string, PageSpec[], string]>([
    ["a help centre", [{ path: "/help", title: "Help Center" }], `${SYNTHETIC_ORIGIN}/help`],
    [
      "a linked help centre",
      [{ path: "/about", externalLinks: ["https://support.acme.example/"] }],
      "https://support.acme.example/",
    ],
    [
      "support channels",
      [product("Email us at support@acme.example or use live chat.")],
      `${SYNTHETIC_ORIGIN}/product`,
    ],
    ["support hours", [product("Support is available 24/7.")], `${SYNTHETIC_ORIGIN}/product`],
    [
      "a customer success manager",
      [product("Every account gets a dedicated customer success manager.")],
      `${SYNTHETIC_ORIGIN}/product`,
    ],
    [
      "a support SLA",
      [product("Priority support with a one-hour first response time.")],
      `${SYNTHETIC_ORIGIN}/product`,
    ],
    ["a response SLA", [product("24/7 support with a 1-hour response SLA.")], `${SYNTHETIC_ORIGIN}/product`],
  ])("rises with %s", (_name, pages, url) => {
    expectSignal(customerSuccess, pages, url);
  });

  it("scores more support channels above one", () => {
    const one = customerSuccess(syntheticFacts([...bare, product("Email support@acme.example.")]));
    const three = customerSuccess(
      syntheticFacts([
        ...bare,
        product("Email support@acme.example.\nLive chat in the app.\nPhone support for Enterprise."),
      ]),
    );
    expect(three.raw).toBeGreaterThan(one.raw);
  });
});

describe("talent_organization", () => {
  const careers = (extra: Partial<PageSpec> = {}): PageSpec => ({
    path: "/careers",
    title: "Careers",
    text: "Join us.",
    ...extra,
  });

  it("finds job titles in headings, lines and links, with their function", () => {
    const openings = jobOpenings(
      syntheticFacts([
        ...bare,
        careers({
          headings: ["Open roles", "Senior Backend Engineer", "Product Designer"],
          text: "Join us.\nAccount Executive, EMEA\nWe are looking for engineers who love the craft.",
          namedLinks: [{ href: "https://jobs.lever.co/acme/1", text: "Product Marketing Manager" }],
        }),
      ]),
    );
    expect(openings.map((opening) => [opening.title, opening.function])).toEqual([
      ["Senior Backend Engineer", "engineering"],
      ["Product Designer", "design"],
      ["Account Executive, EMEA", "sales"],
      ["Product Marketing Manager", "marketing"],
    ]);
  });

  it("rises with a careers page, with openings, and with openings across functions", () => {
    const url = `${SYNTHETIC_ORIGIN}/careers`;
    const empty = expectSignal(talentOrganization, [careers()], url);
    const oneFunction = talentOrganization(
      syntheticFacts([
        ...bare,
        careers({ headings: ["Backend Engineer", "Frontend Engineer", "Site Reliability Engineer"] }),
      ]),
    );
    const spread = talentOrganization(
      syntheticFacts([...bare, careers({ headings: ["Backend Engineer", "Account Executive", "Product Designer"] })]),
    );
    expect(empty.lowered).toContain("careers page lists no openings");
    expect(oneFunction.raw).toBeGreaterThan(empty.raw);
    expect(spread.raw).toBeGreaterThan(oneFunction.raw);
    expect(spread.raised).toContain("openings in 3 functions: engineering, sales, design");
    expect(spread.evidence.map((item) => item.url)).toContain(url);
  });

  it("scores more openings higher", () => {
    const few = talentOrganization(syntheticFacts([...bare, careers({ headings: ["Backend Engineer"] })]));
    const many = talentOrganization(
      syntheticFacts([
        ...bare,
        careers({ headings: Array.from({ length: 12 }, (_, i) => `Backend Engineer ${i + 1}`) }),
      ]),
    );
    expect(many.raw).toBeGreaterThan(few.raw);
  });

  it("credits openings hosted on a job board", () => {
    const board = talentOrganization(
      syntheticFacts([...bare, careers({ externalLinks: ["https://jobs.ashbyhq.com/acme"] })]),
    );
    const empty = talentOrganization(syntheticFacts([...bare, careers()]));
    expect(board.raw).toBeGreaterThan(empty.raw);
    expect(board.evidence.map((item) => item.url)).toContain("https://jobs.ashbyhq.com/acme");
  });

  it.each<[string, PageSpec[], string]>([
    ["a linked careers page", [{ path: "/about-x", links: ["/jobs"] }], `${SYNTHETIC_ORIGIN}/jobs`],
    ["an about page", [{ path: "/about", title: "About" }], `${SYNTHETIC_ORIGIN}/about`],
    [
      "values",
      [{ path: "/company/careers", text: "Our values: ownership and candour." }],
      `${SYNTHETIC_ORIGIN}/company/careers`,
    ],
  ])("rises with %s", (_name, pages, url) => {
    expectSignal(talentOrganization, pages, url);
  });
});

describe("company_momentum", () => {
  it.each<[string, PageSpec[], string]>([
    [
      "announcements",
      [{ path: "/blog/launch", title: "News", text: "Acme announces its new agent platform." }],
      `${SYNTHETIC_ORIGIN}/blog/launch`,
    ],
    ["funding", [product("Acme raised a $20M Series B led by Accel.")], `${SYNTHETIC_ORIGIN}/product`],
    ["growth figures", [product("Trusted by 10,000 customers worldwide.")], `${SYNTHETIC_ORIGIN}/product`],
    ["recent dated content", [{ path: "/changelog", dates: [daysAgo(10)] }], `${SYNTHETIC_ORIGIN}/changelog`],
  ])("rises with %s", (_name, pages, url) => {
    expectSignal(companyMomentum, pages, url);
  });

  it("scores recent content above old content", () => {
    const score = (days: number) =>
      companyMomentum(syntheticFacts([...bare, { path: "/blog", dates: [daysAgo(days)] }])).raw;
    expect(score(10)).toBeGreaterThan(score(150));
    expect(score(150)).toBeGreaterThan(score(700));
  });

  it("rises with a current copyright year and is penalised by a stale one", () => {
    const current = companyMomentum(syntheticFacts([{ ...bare[0]!, boilerplate: ["© 2026 Acme Inc."] }]));
    const stale = companyMomentum(syntheticFacts([{ ...bare[0]!, boilerplate: ["© 2022 Acme Inc."] }]));
    const none = companyMomentum(syntheticFacts(bare));
    expect(current.raw).toBeGreaterThan(none.raw);
    expect(current.evidence[0]).toEqual({ url: `${SYNTHETIC_ORIGIN}/`, text: "© 2026 on the home page (current)" });
    expect(stale.coverage).toBeGreaterThan(0);
    expect(stale.raw).toBe(0);
    expect(stale.lowered).toContain("stale copyright year: © 2022 on the home page, 4 years before the crawl");
    expect(stale.evidence[0]?.url).toBe(`${SYNTHETIC_ORIGIN}/`);
  });
});
