import { describe, expect, it } from "vitest";
import { findDates, findPrices } from "../../../src/modules/crawl/text-signals.js";

describe("dates written in a page's text", () => {
  it("reads the common forms", () => {
    expect(findDates("Released 2025-03-05, then March 5, 2025 and 5 March 2024.", [])).toEqual([
      "2024-03-05",
      "2025-03-05",
    ]);
  });

  it("reads a news card's 'October 21 - 2021' and '24 Nov, 2021' (framework 2.5.0)", () => {
    expect(findDates("October 21 - 2021 · Hackathon results · 24 Nov, 2021", [])).toEqual(["2021-10-21", "2021-11-24"]);
  });

  it("reads a release list's '2017.07.17' and '2015/09/16', not a longer version number (framework 2.7.0)", () => {
    expect(findDates("2.2.10 (2017.07.17) · 2.2.9 (2015/09/16)", [])).toEqual(["2015-09-16", "2017-07-17"]);
    expect(findDates("build 2017.07.17.1 · 2017.07/17 · 2017.13.01", [])).toEqual([]);
  });
});

describe("prices written in a page's text", () => {
  const amounts = (text: string) => findPrices(text).map((price) => price.amount);

  it("reads an amount whose billing period markup wrote against it ('$15Per Month', framework 2.5.0)", () => {
    expect(amounts("Basic $15Per Month · Premium $49Per Month")).toEqual([15, 49]);
  });

  it("does not read a figure as a price: '$1.9B', '$5M', '$8Perfect'", () => {
    expect(amounts("raised $1.9B in total, $5M last year, $8Perfect")).toEqual([]);
  });

  it("keeps prices with decimals, thousands and a period", () => {
    expect(amounts("$1,299.99 once, $49.5 a seat, $12/mo, costs $5. Next")).toEqual([1299.99, 49.5, 12, 5]);
  });
});
