import { describe, expect, it } from "vitest";
import { aggregate } from "../../../src/modules/scoring/aggregate.js";
import { maturityFramework } from "../../../src/modules/scoring/framework/frameworks.js";
import { dimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { DELIVERY_RECORD_MONTHS, deliveryVelocity } from "../../../src/modules/scoring/rules/engineering-delivery.js";
import { companyMomentum } from "../../../src/modules/scoring/rules/growth-organization.js";
import { customerProof } from "../../../src/modules/scoring/rules/market-strategy.js";
import { blogPost, factsAbout, page, said } from "../../support/scoring-cases.js";
import { type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Framework 2.9.0: what takes time to show is read as time. A delivery record of a few months weighs like docs, not
 * like years of releases; news is the last year's; a company's own count of its years is a track record; and a
 * careers page's backers are funding. The misreadings fixed beside these are in audit-round4.test.ts.
 */
const facts = factsAbout;

describe("delivery_velocity weighs by the length of its record (framework 2.9.0)", () => {
  const post = blogPost;
  const releases = (dates: readonly string[]) =>
    deliveryVelocity(
      facts(
        [
          page("/blog", "Read our blog", "Blog"),
          ...dates.map((date, index) => post(`acme-v0-${index + 1}`, `Acme v0.${index + 1}`, date)),
        ],
        "delivery_velocity",
      ),
    );

  it("weighs releases spanning seven months like documentation, and says why in words", () => {
    const assessment = releases(["2023-05-30", "2023-11-09", "2023-12-18"]);
    expect(assessment.weighsAs?.cost).toBe("moderate");
    expect(assessment.weighsAs?.why).toBe(
      "Its dated entries span 7 months, under the year that makes a delivery record costly to show, so this dimension weighs in the total like documentation and community.",
    );
  });

  it("keeps a record of a year or more costly", () => {
    expect(DELIVERY_RECORD_MONTHS).toBe(12);
    expect(releases(["2022-11-01", "2023-06-01", "2023-12-18"]).weighsAs).toBeUndefined();
  });

  it("reads a changelog page the same way: a few months of entries weigh moderately, years do not", () => {
    const changelog = (dates: readonly string[]) =>
      deliveryVelocity(
        facts([{ path: "/changelog", title: "Changelog", text: "What's new", dates }], "delivery_velocity"),
      );
    expect(changelog(["2023-12-20", "2023-10-02", "2023-09-01"]).weighsAs?.cost).toBe("moderate");
    expect(changelog(["2023-12-20", "2022-06-02", "2021-01-10"]).weighsAs).toBeUndefined();
  });

  it("does not mark a site with no dated releases: its silence already weighs as it should", () => {
    expect(deliveryVelocity(facts([], "delivery_velocity")).weighsAs).toBeUndefined();
  });
});

describe("the total weighs a dimension at the class its evidence says (framework 2.9.0)", () => {
  const withScores = (score: number) =>
    dimensions.map((definition) => ({ dimensionId: definition.id, score, confidence: "high" as const }));
  const delivery = (extra: object) =>
    withScores(30).map((result) =>
      result.dimensionId === "delivery_velocity" ? { ...result, score: 90, ...extra } : result,
    );

  it("counts a moderate delivery reading for less than a costly one, and the pillar likewise", () => {
    const costly = aggregate(delivery({}), maturityFramework);
    const moderate = aggregate(delivery({ evidenceCost: "moderate" as const }), maturityFramework);
    expect(moderate.totalScore).toBeLessThan(costly.totalScore);
    expect(moderate.totalScore).toBeGreaterThan(30);
    expect(moderate.pillarScores.engineering_delivery).toBeLessThan(costly.pillarScores.engineering_delivery);
  });
});

describe("company_momentum reads the last year's news (framework 2.9.0)", () => {
  const momentum = (pages: readonly PageSpec[], crawledAt?: string) =>
    companyMomentum(facts(pages, "company_momentum", crawledAt));
  const dated = (date: string, slug: string): PageSpec => ({
    path: `/blog/${date.replaceAll("-", "/")}/${slug}`,
    title: slug,
    text: "Notes from the team.",
  });

  it("does not count posts more than a year old as news, and says how old the newest is", () => {
    const old = [dated("2015-11-19", "why-hubspot-is-slow"), dated("2015-12-15", "tips")];
    const assessment = momentum(old, "2018-03-26T00:00:00.000Z");
    expect(assessment.lowered).toContain("no news in the last year (newest dated post 2015-12-15)");
    expect(said(assessment).join(" ")).not.toMatch(/dated news post/);
  });

  it("counts the same posts as news when they are recent", () => {
    const recent = [dated("2018-01-19", "launch"), dated("2018-02-15", "tips")];
    expect(momentum(recent, "2018-03-26T00:00:00.000Z").raised).toContain("2 dated news posts in the last year");
  });

  it("counts posts dated on the blog's own list, as the growth reading does", () => {
    const blog: PageSpec = {
      path: "/blog",
      title: "Blog",
      text: "About privacy\nOur security\nHow verification works\nMeet the team",
      dates: ["2021-01-07", "2020-11-20", "2020-10-02", "2020-08-15"],
    };
    const assessment = momentum([blog], "2021-06-18T00:00:00.000Z");
    expect(assessment.raised).toContain("4 posts dated in the last year on the blog");
    expect(assessment.evidence.map((item) => item.text)).toContain(
      "4 posts dated in the last year on the blog, newest 2021-01-07",
    );
  });
});

describe("company_momentum reads a company's own count of its years as a track record (framework 2.9.0)", () => {
  const record = (text: string) =>
    said(companyMomentum(facts([page("/about", text, "About us")], "company_momentum"))).find((line) =>
      /in business for|founded or active|dated history/.test(line),
    );

  it("reads 'we've been … for over five years' in the company's voice", () => {
    expect(record("We’ve been in the security space for over five years now.")).toBe(
      "in business for over 5 years (in its own words)",
    );
    expect(record("We have been building payment tools for 12 years.")).toBe(
      "in business for 12 years (in its own words)",
    );
  });

  it("reads the team's or the company's own name counting its years", () => {
    expect(
      record(
        "The team started out with outstanding research ability and has been delivering threat intelligence for more than 5 years.",
      ),
    ).toBe("in business for more than 5 years (in its own words)");
    expect(record("Acme has been building payment tools for 12 years.")).toBe(
      "in business for 12 years (in its own words)",
    );
  });

  it("does not read a person's career, or a wish, as the company's years", () => {
    expect(record("He has been working in security for over 20 years.")).toBe("no founding year or dated history");
    expect(record("Jane has been with Qualys for more than two years.")).toBe("no founding year or dated history");
  });
});

describe("a careers page tells applicants who backs the company (framework 2.9.0)", () => {
  it("reads investors named on the careers page as funding", () => {
    const careers: PageSpec = {
      path: "/careers",
      title: "Careers",
      text: "We are a team of 30 and are supported by Mosaic and BlueYard, two of the best VCs in Europe.\nSoftware Engineer\nProduct Manager",
    };
    expect(companyMomentum(facts([careers], "company_momentum")).raised).toContain("funding or investors named");
  });

  it("still keeps a careers page's job ads out of the other dimensions", () => {
    const careers = page(
      "/careers",
      "We are hiring a Senior Security Engineer to own our SOC 2 Type II audit.",
      "Careers",
    );
    expect(customerProof(facts([careers], "customer_proof")).evidence).toEqual([]);
  });
});
