import type { DimensionId } from "../../src/modules/scoring/scoring.types.js";
import { BARE_SITE } from "./rule-assertions.js";
import { syntheticFacts, type PageSpec } from "./synthetic-crawl.js";

/** Small builders for rule cases: a page, a dated blog post, and the facts a rule sees (the bare home page first). */
export const page = (path: string, text: string, title = ""): PageSpec => ({ path, title, text });

export const blogPost = (slug: string, title: string, date: string): PageSpec => ({
  path: `/blog/${slug}`,
  title,
  text: `${title}\nBy the team\nWhat we shipped this month.`,
  dates: [date],
});

/** The site (after the bare home page) as `dimension`'s rule reads it, crawled on `crawledAt`. */
export const factsAbout = (
  pages: readonly PageSpec[],
  dimension: DimensionId,
  crawledAt = "2024-01-17T00:00:00.000Z",
) => syntheticFacts([...BARE_SITE, ...pages], { crawledAt }).about(dimension);

/** Every line a rule wrote about what raised and lowered its reading. */
export const said = (assessment: { raised: readonly string[]; lowered: readonly string[] }): string[] => [
  ...assessment.raised,
  ...assessment.lowered,
];
