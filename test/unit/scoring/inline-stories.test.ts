import { describe, expect, it } from "vitest";
import { customerProof } from "../../../src/modules/scoring/rules/market-strategy.js";
import { factsAbout, page, said } from "../../support/scoring-cases.js";

/**
 * Framework 2.10.0: stories a customers page tells in its own text are case studies. effect-network's /cases told four
 * (the United Nations in Rustavi, "Case Study #12", Cosine …) and caffeine's /customers is one whole story (challenge,
 * solution, figures, the CEO's signed quote); both were read as "a customers page without individual case studies".
 */
const proof = (pages: Parameters<typeof factsAbout>[0]) => customerProof(factsAbout(pages, "customer_proof"));
const storyLine = (assessment: ReturnType<typeof customerProof>) =>
  said(assessment).find((line) => /case stud|customers page/.test(line));

const un =
  "The United Nations in Rustavi is running a project focused on reducing plastic bottle usage and enhancing the recycling process.\nTheir current intervention aims to raise awareness about plastic pollution and increase the amount of collected plastic by creating a competition between local schools.";
const invoices =
  "Case Study #12 is based on a client that operates globally and offers several products and services in the mail and delivery sector. Being a large and innovative company, one of the many processes this client has been exploring is the automation of data entry for incoming invoices.";
const cosine =
  "Cosine has an extensive history and track record in the aerospace market and are most notably recognized for their excellence in developing projects for the European Space Agency, and they needed thousands of satellite images labelled.";
const intro =
  "With nearly 8 million tasks completed, we know our business. We proudly serve many clients worldwide, including young innovative startups and large global enterprises from a wide range of industries and every continent.";

describe("customer_proof reads stories told on a customers page (framework 2.10.0)", () => {
  it("counts each titled section about a client, in the third person, as a case study", () => {
    const assessment = proof([
      page(
        "/cases",
        [
          "Case studies",
          "From Innovative Startups to Multinational Companies",
          intro,
          "Plastic Bottle Counting",
          un,
          "Invoice Processing",
          invoices,
          "Satellite Cloud Annotations",
          cosine,
        ].join("\n"),
        "Cases",
      ),
    ]);
    expect(storyLine(assessment)).toBe("3 case studies");
    expect(assessment.evidence.map((item) => item.text)).toContain(
      "case study told on the page: Plastic Bottle Counting",
    );
    // The page's own introduction ("we proudly serve many clients") is not a story.
    expect(assessment.evidence.map((item) => item.text)).not.toContain(
      "case study told on the page: From Innovative Startups to Multinational Companies",
    );
  });

  it("counts a customers page laid out as one story (challenge, solution, results) as one case study", () => {
    const assessment = proof([
      page(
        "/customers",
        [
          "Cheers uses Acme to improve its App Speed 300%",
          "Cheers Challenge:",
          "Cheers realized that the slower user experience of their app resulted in lower engagement.",
          "The Solution:",
          "Cheers used Acme to improve the performance of their application.",
          "18%",
          "More messages sent",
        ].join("\n"),
        "Acme Customers",
      ),
    ]);
    expect(storyLine(assessment)).toBe("1 case study");
  });

  it.each([
    ["a short blurb", ["Plastic Bottle Counting", "The UN counts bottles with our help."]],
    ["a paragraph in the company's own voice", ["Our Clients", intro]],
    ["a feature list", ["Fast", "Secure", "Simple"]],
  ])("does not count %s as a story", (_kind, lines) => {
    expect(storyLine(proof([page("/customers", lines.join("\n"), "Customers")]))).toBe(
      "a customers page without individual case studies",
    );
  });

  it("counts linked story pages, not the index's summaries of them, when the index links to its stories", () => {
    const assessment = proof([
      page("/customers", ["Globex", un].join("\n"), "Customers"),
      page("/customers/globex", "Globex cut its costs by 40% with Acme.", "Globex case study"),
    ]);
    expect(storyLine(assessment)).toBe("1 case study");
  });

  it("does not count an awards page filed under the customers section as a case study", () => {
    const assessment = proof([
      page("/customers/awards", "Acme Ranks #1 in the SC Awards 2022.", "Awards and Recognition | Acme"),
      page("/customers/globex", "Globex cut its costs by 40% with Acme.", "Globex case study"),
    ]);
    expect(storyLine(assessment)).toBe("1 case study");
  });
});

describe("customer_proof reads a quote a story attributes in its prose (framework 2.10.0)", () => {
  const story = (lines: readonly string[]) =>
    customerProof(factsAbout([page("/customers/peoples-care", lines.join("\n"), "People's Care")], "customer_proof"));
  const signed = (assessment: ReturnType<typeof customerProof>) =>
    said(assessment).find((line) => /testimonial/.test(line));

  it("signs '… ,” said Fabro' with the role the story gives Ray Fabro", () => {
    const assessment = story([
      "Using collaborative technology was an obvious win for Director of IT Services, Ray Fabro.",
      "“Simply put, this was the easiest and smoothest migration I have ever been involved in.” said Fabro.",
      "“Everyone in the IT department was impressed with Acme,” remarks Fabro, and the rest followed.",
    ]);
    expect(signed(assessment)).toBe("1 testimonial signed with a name, fewer than the usual 2");
    expect(assessment.evidence.map((item) => item.text)).toContain(
      "quote attributed to Ray Fabro, Director of IT Services",
    );
  });

  it("does not count the vendor's own people quoted in a story", () => {
    const assessment = story([
      "The migration was run by Acme's CEO, Jane Doe, and the customer's team.",
      "“We moved every file over one weekend,” said Doe.",
    ]);
    expect(signed(assessment)).toBe("no testimonials signed with a name and role or company");
  });

  it("does not sign a quote whose speaker the story gives no role", () => {
    const assessment = story([
      "Ray Fabro moved the company to the cloud last spring.",
      "“Simply put, this was the easiest migration I have ever been involved in.” said Fabro.",
    ]);
    expect(signed(assessment)).toBe("no testimonials signed with a name and role or company");
  });
});
