import { describe, expect, it } from "vitest";
import { customerProof, targetSegments, valueProposition } from "../../../src/modules/scoring/rules/market-strategy.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { syntheticFacts, type PageSpec } from "../../support/synthetic-crawl.js";

/**
 * Misreadings an audit of the calibration corpus found in the market & strategy rules: each case is
 * the general shape of what a real site showed. Rules read the facts as the scorer hands them over
 * (facts.about(dimension)), so a two-word line is a fragment here as it is there.
 */
const page = (path: string, text: string, headings?: PageSpec["headings"]): PageSpec => ({
  path,
  title: "",
  text,
  ...(headings ? { headings } : {}),
});
const home = (text: string, headings?: PageSpec["headings"]): PageSpec[] => [
  { ...page("/", text, headings), title: "Acme" },
];
const proof = (pages: PageSpec[]) => customerProof(syntheticFacts(pages).about("customer_proof"));
const proposition = (pages: PageSpec[]) => valueProposition(syntheticFacts(pages).about("value_proposition"));
const segments = (pages: PageSpec[]) => targetSegments(syntheticFacts(pages).about("target_segments"));
/** The testimonial fact, without the "fewer than the usual N" a count under the norm carries. */
const testimonials = (result: ReturnType<typeof customerProof>) =>
  [...result.raised, ...result.lowered]
    .find((reason) => /testimonial/.test(reason))
    ?.replace(/, fewer than the usual \d+$/, "");
const QUOTE = "“Globex cut its month-end close from ten days to three with this tool, and our auditors noticed.”";

describe("customer_proof reads testimonials however they are signed (framework 2.5.0)", () => {
  it.each([
    ["a dash and a spelled-out chief officer", `${QUOTE}\n— Jane Roe - Chief Financial Officer, Globex Capital`],
    ["an ASCII dash opener", `${QUOTE}\n- Sam Lee, CEO & Co-Founder, Initech`],
    ["a role at a company, without a comma", `${QUOTE}\nKen Park Software Engineer at Initech`],
    ["a developer's role", `${QUOTE}\nJay Stone, Full Stack Developer`],
    ["a name and a company under a quote", `${QUOTE}\nMaria Lopez, Lake Credit Union`],
    ["a post quoted with its author's handle", `${QUOTE}\nKelly Hart @kellyhart`],
    [
      "a name line and a role line under a customer's own words",
      "This platform has transformed our workflow and lets us focus on patients again.\nDr. Anna Weber\nChief Radiologist, City Hospital",
    ],
    ["a name and role under a Testimonials label", "TESTIMONIALS\nMia Cole\nGlobex's Director of Fleet Management"],
  ])("counts %s", (_, text) => {
    expect(testimonials(proof(home(text)))).toBe("1 testimonial signed with a name");
  });

  it("counts a person once however many pages repeat the quote", () => {
    const text = `${QUOTE}\nMaria Lopez, Lake Credit Union`;
    expect(testimonials(proof([...home(text), page("/pricing", text)]))).toBe("1 testimonial signed with a name");
  });

  it.each([
    ["a heading under a quote", `${QUOTE}\nSwitching Clouds`, ["Switching Clouds"]],
    ["a call to action under a quote", `${QUOTE}\nRead The Full Story`, undefined],
    [
      "a phrase in quotes, then a feature name",
      "“What-if” analysis on contracted leases and amendments.\nCollateral Security",
    ],
    [
      "a team list: names and roles with no quote above",
      "OUR TEAM\nJean Dupont\nDirector of Operations\nAnna Berg\nLead Engineer",
    ],
    ["a speaker list: a role, then a name", "CISO at Initech\nMike Stone\nGlobal VP & Product Security at Globex"],
    ["a quote signed by the company's own chief executive", `${QUOTE}\n— Alan Moss, Acme CEO`],
    [
      "a sentence whose words before a comma are not a name",
      "Simply put, Acme makes developer life easier by reporting bugs in real time so you can act.",
    ],
    [
      "a speaker line that goes on to the talk's title",
      "Clara Holt, Vulnerability Management Lead, Globex Management Track Streamlining Operations with Consolidation and Automation",
    ],
  ])("does not count %s", (_, text, headings?: PageSpec["headings"]) => {
    expect(testimonials(proof(home(text, headings)))).toBe("no testimonials signed with a name and role or company");
  });

  it("a quote signed for a company counts once, as a testimonial, not also as a wall of named customers", () => {
    const signed = proof(home(`${QUOTE}\nMaria Lopez, Lake Credit Union`));
    // One signed quote is read (below the two that are common), once.
    expect(testimonials(signed)).toBe("1 testimonial signed with a name");
    expect(signed.lowered).toContain('no logo wall or customer list ("trusted by …")');
  });
});

describe("customer_proof: case studies filed under a prefix (framework 2.5.0)", () => {
  it("counts /case-study-… on the site's own domain, a landing subdomain included", () => {
    const result = proof([
      {
        path: "/",
        title: "Acme",
        text: "We build things for teams.",
        links: ["https://try.acme.example/case-study-faster-releases"],
      },
    ]);
    // One story reads as weak (below the midpoint) but is read: it is no longer "no case studies".
    expect(result.lowered).toContain("1 case study");
  });

  it("not another site's", () => {
    const result = proof([
      {
        path: "/",
        title: "Acme",
        text: "We build things for teams.",
        links: ["https://globex.example/case-study-faster-releases"],
      },
    ]);
    expect(result.lowered).toContain("no customers page or case studies");
  });
});

describe("customer_proof: awards and stated customer bases (framework 2.5.0)", () => {
  it("an award is not a customer choosing the product", () => {
    const award = proof([
      ...BARE_SITE,
      page("/awards", "Trade Weekly has selected Acme as the winner for Best Scanner in its 2020 Trust Awards."),
    ]);
    expect(award.lowered).toContain('no logo wall or customer list ("trusted by …")');
    const chose = proof([
      ...BARE_SITE,
      page("/news", "Globex, the largest airline in Europe, selected Acme for maintenance."),
    ]);
    expect(chose.raised).toContain('names customers ("trusted by …")');
  });

  it("a customer count with a qualifier that relies on the product", () => {
    const base = proof([
      ...BARE_SITE,
      page("/customers", "More than 10,000 subscription customers in 130 countries rely on Acme, including banks."),
    ]);
    expect(base.raised).toContain("claims 10,000 customers");
    const share = proof([...BARE_SITE, page("/product", "80% of customers use Acme for reporting every single week.")]);
    expect(share.lowered).toContain('no logo wall or customer list ("trusted by …")');
  });

  it("a 'Used by' label over a logo strip on the home page", () => {
    const strip = proof(
      home("Acme keeps every team focused on the numbers that matter.\nUsed by\nTeams lose focus as they grow"),
    );
    expect(strip.raised).toContain('names customers ("trusted by …")');
    const sentence = proof(
      home("Acme keeps every team focused on the numbers that matter.\nThe standard used by banks."),
    );
    expect(sentence.lowered).toContain('no logo wall or customer list ("trusted by …")');
  });
});

describe("value_proposition reads the real headline and the product's own outcomes (framework 2.5.0)", () => {
  it("skips an h1 that is the mobile menu's toggle", () => {
    const result = proposition(
      home("Customer messaging that helps teams grow retention.", [
        { level: 1, text: "Menu" },
        { level: 1, text: "Customer messaging for product teams" },
      ]),
    );
    expect(result.evidence.map((item) => item.text)).toContain('headline: "Customer messaging for product teams"');
  });

  it("a figure someone else states is neither a specific headline nor the product's outcome", () => {
    const headline = "75% Apps Fail Basic Security Checks, says Gartner";
    const result = proposition(home(`${headline}\nScan every build before it ships.`, [{ level: 1, text: headline }]));
    expect(result.lowered).toContain("a vague headline (no outcome or audience, or buzzwords)");
    expect(result.lowered).toContain("no quantified outcomes on the home page");
  });

  it("still credits a headline with an outcome and an audience, and the product's own figure", () => {
    const headline = "Ship releases 3x faster for engineering teams";
    const result = proposition(
      home(`${headline}\nCustomers cut their release time by 40% in the first month.`, [{ level: 1, text: headline }]),
    );
    expect(result.raised).toContain("a specific headline (outcome and audience)");
    // The headline's own "3x faster" and the customers' "40%".
    expect(result.raised).toContain("2 quantified outcomes on the home page");
  });
});

describe("target_segments reads professions as segments (framework 2.5.0)", () => {
  it("'for finance professionals' and a list of roles", () => {
    const result = segments(
      home("Built Specifically For Finance Professionals\nAccountants, FP&A Pros, Bookkeepers & CFOs"),
    );
    expect(result.raised).toContain("names 2 segments (finance, accounting)");
  });

  it("not a list of other things", () => {
    const result = segments(home("Vote, Stake and Earn Tokens\nPricing, Docs, Blog & Careers"));
    expect(result.lowered).toContain('names no customer segment ("for startups", "for healthcare")');
  });
});

describe("customer_proof reads a signed quote on a security page (framework 2.6.0)", () => {
  it("counts a customer's signed quote on a security vendor's /security service page", () => {
    const audits = page(
      "/security",
      `Verify that your smart contract system works as intended\n“The audit report was like Christmas morning for all the engineers. Our team is very pleased.”\nTom Kysar\nProduct Manager at Augur`,
    );
    expect(testimonials(proof([...home("Acme builds audits."), audits]))).toBe("1 testimonial signed with a name");
  });

  it("still reads nothing else of a security page as customer proof", () => {
    const trust = page("/security", "Trusted by 500 companies worldwide. We encrypt data at rest with AES-256.");
    expect(proof([...home("Acme builds audits."), trust]).raised).toEqual([]);
  });
});
