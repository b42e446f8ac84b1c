import { describe, expect, it } from "vitest";
import { storableDeep, storableText } from "../../../src/db/pg-text.js";

describe("text Postgres can store", () => {
  it("drops NUL and replaces each lone surrogate, keeping pairs and ordinary text as they are", () => {
    expect(storableText("Stack\u0000form")).toBe("Stackform");
    const emoji = "ship it \u{1F680} now";
    expect(storableText(emoji)).toBe(emoji);
    // A quote cut to length in the middle of the pair.
    expect(storableText(emoji.slice(0, 9))).toBe("ship it \uFFFD");
    expect(storableText("\uDE80 trailing half")).toBe("\uFFFD trailing half");
  });

  it("cleans every string of a value, keys included, and leaves numbers, nulls and dates alone", () => {
    const at = new Date(0);
    expect(storableDeep({ "a\u0000": ["x\u0000y", 1, null, { at }] })).toEqual({ a: ["xy", 1, null, { at }] });
  });
});
