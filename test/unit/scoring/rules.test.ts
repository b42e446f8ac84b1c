import { describe, expect, it } from "vitest";
import { allRules } from "../../../src/modules/scoring/rules/index.js";
import { dimensionIds } from "../../../src/modules/scoring/scoring.types.js";
import { BARE_SITE } from "../../support/rule-assertions.js";
import { syntheticFacts } from "../../support/synthetic-crawl.js";

describe("the rule set", () => {
  it("has a rule for each of the 27 dimensions, and nothing else", () => {
    expect(Object.keys(allRules).sort()).toEqual([...dimensionIds].sort());
  });

  it.each(dimensionIds)("%s sees nothing on a site that shows nothing about it, and says what is missing", (id) => {
    const assessment = allRules[id]!(syntheticFacts(BARE_SITE));
    expect(assessment.coverage).toBe(0);
    expect(assessment.raw).toBe(0);
    expect(assessment.evidence).toEqual([]);
    expect(assessment.lowered.length).toBeGreaterThan(0);
    expect(assessment.toRaise).not.toBe("");
  });
});
