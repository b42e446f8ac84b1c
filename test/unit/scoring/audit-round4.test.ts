import { describe, expect, it } from "vitest";
import { architectureSystems, deliveryVelocity } from "../../../src/modules/scoring/rules/engineering-delivery.js";
import { talentOrganization } from "../../../src/modules/scoring/rules/growth-organization.js";
import { customerProof } from "../../../src/modules/scoring/rules/market-strategy.js";
import { enterpriseReadiness } from "../../../src/modules/scoring/rules/trust-enterprise.js";
import { at } from "../../support/rule-assertions.js";
import { blogPost, factsAbout, page, said } from "../../support/scoring-cases.js";
import { syntheticFacts } from "../../support/synthetic-crawl.js";

/**
 * The fourth audit of the calibration corpus (framework 2.9.0): two reviewers checked every costly and moderate
 * reading of the 22 commercial sites judged 2–5 against the pages. Each case is the general shape of a misreading
 * they found, fixed whichever way it moved a total, and the reading that must still hold.
 */
const facts = factsAbout;

describe("a dated 'Now Available' post", () => {
  const post = blogPost;

  it("reads a dated 'Now Available: …' post as a release, like a versioned one", () => {
    const assessment = deliveryVelocity(
      facts(
        [
          page("/blog", "Read our blog", "Blog"),
          post("now-available-neon-postgres", "Now Available: Neon Postgres", "2023-11-22"),
        ],
        "delivery_velocity",
      ),
    );
    expect(assessment.raised).toContain("release announcements among the posts (1 dated post)");
    expect(
      deliveryVelocity(facts([post("hiring-now", "Our Berlin office is now open", "2023-11-22")], "delivery_velocity"))
        .raised,
    ).not.toContain("release announcements among the posts (1 dated post)");
  });
});

describe("what a company does for its customers is not its own architecture or culture (framework 2.9.0)", () => {
  it("does not read 'deploy and auto-scale your application' as the company's own scalability", () => {
    const scale = (text: string) =>
      said(architectureSystems(facts([page("/product", text)], "architecture_systems"))).find((line) =>
        /regions or scalability/.test(line),
      );
    expect(
      scale(
        "We take care of the heavy lifting required to deploy and auto-scale your application on a serverless infrastructure.",
      ),
    ).toBe("no regions or scalability described");
    expect(scale("Our API runs in 3 regions and auto-scales with traffic.")).toBe("regions or scalability described");
  });

  it("does not read customers 'that share our values' as the company's values", () => {
    const values = (text: string) =>
      said(talentOrganization(facts([page("/about-us", text, "About us")], "talent_organization"))).find((line) =>
        /values/.test(line),
      );
    expect(
      values(
        "We jump at the opportunity to work with organizations that share our values of both end user experience and quality software development.",
      ),
    ).toBe("no values or culture described");
    expect(values("Our values: candour, care and craft.")).toBe("values, culture or benefits described");
  });
});

describe("a logo strip under customers called happy (framework 2.9.0)", () => {
  const home = (line: string) =>
    customerProof(
      syntheticFacts([
        { path: "/", title: "Acme", text: `We build things for teams.\n${line}\nAnd many more...` },
      ]).about("customer_proof"),
    );

  it("reads 'Supporting these happy teams' and 'Some of our happy customers' as a logo strip's label", () => {
    for (const label of ["Supporting these happy teams", "Some of our happy customers", "Our satisfied clients:"])
      expect(home(label).raised).toContain('names customers ("trusted by …")');
  });

  it("does not read a sentence about happy users as one", () => {
    expect(said(home("Happy users make happy teams, and we help you get there.")).join(" ")).toMatch(
      /no logo wall or customer list/,
    );
  });
});

describe("case studies titled as such, wherever they are filed", () => {
  const news = (links: ReadonlyArray<{ href: string; text: string }>) =>
    customerProof(facts([{ path: "/news", title: "News", text: "Latest news", namedLinks: links }], "customer_proof"));

  it("reads posts titled '… – Case Study' or 'Case Study: …' as case studies", () => {
    const assessment = news([
      {
        href: "/2016-08-29-identify-issue-case-study/",
        text: "Acme Helps Identify Issue Affecting 25,000 Users – Case Study",
      },
      {
        href: "/2014-08-21-server-expiration/",
        text: "Case Study: Server Expiration Error for Pre-Alpha Game Release",
      },
      { href: "/2015-06-29-lab-equipment/", text: "Acme Case Study – Scientific Lab Equipment" },
    ]);
    expect(assessment.raised).toContain("3 case studies");
    expect(assessment.evidence.map((item) => item.url)).toContain(at("/2014-08-21-server-expiration/"));
  });

  it("does not read a post about writing case studies, or another site's, as one", () => {
    const assessment = news([
      { href: "/blog/how-to-write-a-case-study", text: "How to write a case study your buyers will read" },
      { href: "https://other.example/story", text: "Case Study: Other Corp" },
    ]);
    expect(said(assessment)).toContain("no customers page or case studies");
  });
});

describe("self-hosting said in a FAQ's words", () => {
  const deployment = (text: string) =>
    said(enterpriseReadiness(facts([page("/pricing", text, "Pricing")], "enterprise_readiness"))).find((line) =>
      /self-hosted or dedicated/.test(line),
    );

  it("reads 'Can I host Acme myself?' and 'Self host for free' as a self-hosted deployment", () => {
    expect(deployment("Can I host Acme myself? Sure! Visit Acme on GitHub for hosting details.")).toBe(
      "self-hosted or dedicated deployment",
    );
    expect(deployment("Open source: self host for free!")).toBe("self-hosted or dedicated deployment");
  });

  it("does not read hosting in general as one", () => {
    expect(deployment("We host your data in Frankfurt and back it up nightly.")).toBe(
      "no self-hosted or dedicated deployment",
    );
  });
});

describe("quotes under a 'Testimonials' heading, signed the ways cards sign them", () => {
  const home = (lines: readonly string[]) =>
    customerProof(
      syntheticFacts([{ path: "/", title: "Acme", text: ["We build things for teams.", ...lines].join("\n") }]).about(
        "customer_proof",
      ),
    );
  const signed = (lines: readonly string[]) =>
    said(home(lines)).find((line) => /testimonials? signed|no testimonials signed/.test(line));
  const quote = "Acme is a highly reliable platform and their reporting services are always fast and accurate.";

  it("reads a name with where the person works, under the quote or over it, as a signed quote", () => {
    expect(
      signed([
        "Testimonials",
        quote,
        "Madan Prasad Mathur",
        "Technician, Alam Hospital",
        "Karnataka, India",
        "Acme has transformed our workflow, making report generation fast and accurate for every case we see.",
        "Neha Sharma",
        "Chief Radiologist, City Hospital",
      ]),
    ).toBe("2 testimonials signed with a name");
    expect(
      signed([
        "TESTIMONIALS",
        "Mimi Correa",
        "Globex's Director of Fleet Management",
        "Visit website",
        quote,
        "Swaran Sidhu",
        "EasyJet",
        "Visit website",
        "Acme monitors the systems using ACARS, so the root cause can be identified before the aircraft lands.",
      ]),
    ).toBe("2 testimonials signed with a name");
  });

  it("does not take a carousel's 'Previous Next' for where someone works, nor a name and a label outside the section", () => {
    expect(signed(["Testimonials", quote, "Chintan Gurjar", "Previous Next"])).toBe(
      "no testimonials signed with a name and role or company",
    );
    expect(signed(["Our platform", quote, "Madan Prasad Mathur", "Alam Hospital"])).toBe(
      "no testimonials signed with a name and role or company",
    );
  });
});

describe("the hosts a company says it uses for its own infrastructure", () => {
  const stack = (text: string) =>
    said(architectureSystems(facts([page("/platform", text, "Platform")], "architecture_systems"))).find((line) =>
      /stack named|no infrastructure or stack named/.test(line),
    );

  it("reads 'Acme uses Amazon EC2, Rackspace and Microsoft Azure … for our server infrastructure' as its stack", () => {
    expect(
      stack(
        "Acme uses Amazon EC2, Rackspace, Microsoft Azure, Google Cloud Compute, and other custom hosted servers for our server infrastructure.",
      ),
    ).toBe("stack named: AWS, Google Cloud, Azure");
  });

  it("still reads a bare list of providers, or what the product deploys to, as no stack of its own", () => {
    expect(stack("Acme deploys your code to AWS, Google Cloud and Azure.")).toBe("no infrastructure or stack named");
    expect(stack("Customers use AWS or Azure for their infrastructure, and Acme watches both.")).toBe(
      "no infrastructure or stack named",
    );
  });
});
