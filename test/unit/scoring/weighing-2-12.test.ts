import { describe, expect, it } from "vitest";
import { aggregate } from "../../../src/modules/scoring/aggregate.js";
import { dimensionById } from "../../../src/modules/scoring/framework/dimensions.js";
import { maturityFramework } from "../../../src/modules/scoring/framework/frameworks.js";
import { HeuristicScorer } from "../../../src/modules/scoring/heuristic-scorer.js";
import { companyMomentum, growthDistribution } from "../../../src/modules/scoring/rules/growth-organization.js";
import { bodyOfProof, customerProof } from "../../../src/modules/scoring/rules/market-strategy.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { factsAbout, page, said } from "../../support/scoring-cases.js";
import { syntheticCrawl, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Framework 2.12.0. Customer proof weighs by what the proof found costs to gather: a first user's quote and a first case
 * study weigh like docs and community, a body of proof (three case studies, a thousand customers, six signed quotes)
 * like openings and dated news. And a blog's dated articles that never say whose blog they are on are not the company's
 * news.
 */

const QUOTE = "“Acme cut our release checks from a day to an hour, and our auditors finally stopped asking.”";
const story = (slug: string, customer: string): PageSpec => ({
  path: `/customers/${slug}`,
  title: `${customer} case study`,
  text: `How ${customer} ships faster with Acme\nThe challenge\n${customer} needed weekly releases.`,
});
const signed = (count: number): string =>
  Array.from({ length: count }, (_, index) => `${QUOTE}\n— Jane Roe${"x".repeat(index)}, CTO, Globex ${index}`).join(
    "\n",
  );
const proof = (pages: readonly PageSpec[]) => customerProof(factsAbout(pages, "customer_proof"));

describe("customer_proof weighs as costly only with a body of proof (framework 2.12.0)", () => {
  it("is moderate evidence by default, as docs and community are", () => {
    expect(dimensionById.get("customer_proof")!.evidenceCost).toBe("moderate");
    expect(dimensionById.get("talent_organization")!.evidenceCost).toBe("costly");
  });

  it("keeps the default weight for what first users give: one case study and a few signed quotes", () => {
    const reading = proof([page("/", `Trusted by\n${signed(3)}`, "Acme"), story("globex", "Globex")]);
    expect(said(reading)).toContain("1 case study");
    expect(reading.weighsAs).toBeUndefined();
  });

  it("weighs three case studies as costly, and says why in words", () => {
    const reading = proof([story("globex", "Globex"), story("initech", "Initech"), story("umbrella", "Umbrella")]);
    expect(said(reading)).toContain("3 case studies");
    expect(reading.weighsAs).toEqual({
      cost: "costly",
      why: "3 case studies make a body of proof, which takes years to gather, so this dimension weighs in the total like openings and dated news.",
    });
  });

  it("weighs a stated base of a thousand customers, or six signed quotes, as costly", () => {
    const base = proof([page("/", "More than 10,000 subscription customers in 130 countries rely on Acme.", "Acme")]);
    expect(base.weighsAs?.why).toMatch(/^A stated base of 10,000 customers makes a body of proof/);
    // One word of any kind may qualify the count: "9,000 sales teams" is a stated base.
    expect(proof([page("/", "Used by 9,000 sales teams.", "Acme")]).weighsAs?.why).toMatch(
      /^A stated base of 9,000 customers makes a body of proof/,
    );
    const wall = proof([page("/", `What our customers say\n${signed(6)}`, "Acme")]);
    expect(said(wall)).toContain("6 testimonials signed with a name");
    expect(wall.weighsAs?.why).toMatch(/^6 signed testimonials make a body of proof/);
  });

  it("keeps the default below each threshold: two stories, 999 customers, five quotes", () => {
    expect(bodyOfProof(2, 999, 5)).toBeUndefined();
    expect(bodyOfProof(3, undefined, 0)).toMatch(/^3 case studies/);
    expect(bodyOfProof(0, 1000, 0)).toMatch(/^A stated base of 1,000 customers/);
    expect(bodyOfProof(0, undefined, 6)).toMatch(/^6 signed testimonials/);
  });

  it("carries the weight into the scored result and the total: a first user's proof counts, but less than a body of proof", async () => {
    const scorer = new HeuristicScorer();
    const score = (pages: readonly PageSpec[]) =>
      scorer.score({
        crawl: syntheticCrawl([...BARE_SITE, ...pages], { crawledAt: "2024-01-17T00:00:00.000Z" }),
        framework: "maturity",
        mode: "full",
      });
    const few = await score([story("globex", "Globex")]);
    const many = await score([story("globex", "Globex"), story("initech", "Initech"), story("umbrella", "Umbrella")]);
    const fewProof = few.dimensions.find((dimension) => dimension.dimensionId === "customer_proof")!;
    const manyProof = many.dimensions.find((dimension) => dimension.dimensionId === "customer_proof")!;
    expect(fewProof.evidenceCost).toBeUndefined();
    expect(manyProof.evidenceCost).toBe("costly");
    expect(manyProof.reasoning).toContain("3 case studies make a body of proof, which takes years to gather");
    expect(many.totalScore).toBeGreaterThan(few.totalScore);
    // The aggregate reads the class the result carries: the same reading weighs more as costly.
    const asModerate = aggregate(
      many.dimensions.map((dimension) =>
        dimension.dimensionId === "customer_proof" ? { ...dimension, evidenceCost: undefined } : dimension,
      ),
      maturityFramework,
    ).totalScore;
    expect(many.totalScore).toBeGreaterThan(asModerate);
  });
});

describe("company_momentum counts a blog's dated pages as news only when they are the company's (framework 2.12.0)", () => {
  const essay = (slug: string, title: string, date: string, body: string): PageSpec => ({
    path: `/blog/${slug}`,
    title,
    text: `${title}\nNeed help with this for your business? Get a FREE consultation!\n${body}`,
    dates: [date],
  });
  const essays = [
    essay(
      "what-is-crm",
      "What is CRM? A Complete Guide",
      "2019-02-11",
      "CRM stands for Customer Relationship Management.",
    ),
    essay("customer-loyalty", "Customer Loyalty", "2019-03-07", "Customer loyalty is the faithfulness of a customer."),
    essay("customer-satisfaction", "Customer Satisfaction", "2019-02-20", "Satisfied customers buy again."),
  ];
  const crawledAt = "2019-03-07T00:00:00.000Z";

  it("does not count articles that never name the company as its news, and says what they are", () => {
    const reading = companyMomentum(factsAbout(essays, "company_momentum", crawledAt));
    expect(said(reading).join(" ")).not.toMatch(/posts? dated in the last year/);
    expect(reading.lowered).toContain(
      "no news in the last year: 3 dated articles on the blog, none naming the company",
    );
    // They are still the blog's cadence: growth_distribution counts them.
    const growth = growthDistribution(factsAbout(essays, "growth_distribution", crawledAt));
    expect(said(growth).join(" ")).toMatch(/3 posts dated in the last (?:90|365) days/);
  });

  it("counts the same posts when they name the company or open in its voice", () => {
    const named = essays.map((spec) => ({ ...spec, text: `${spec.text}\nAcme sends the survey for you.` }));
    expect(companyMomentum(factsAbout(named, "company_momentum", crawledAt)).raised).toContain(
      "3 posts dated in the last year on the blog",
    );
    const ours = essays.map((spec) => ({ ...spec, text: `Our notes\n${spec.text}` }));
    expect(companyMomentum(factsAbout(ours, "company_momentum", crawledAt)).raised).toContain(
      "3 posts dated in the last year on the blog",
    );
  });
});
