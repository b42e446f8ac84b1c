import { describe, expect, it } from "vitest";
import { companyMomentum, talentOrganization } from "../../../src/modules/scoring/rules/growth-organization.js";
import { factsAbout, page, said } from "../../support/scoring-cases.js";
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
