import { describe, expect, it } from "vitest";
import { ifNoneMatchNames } from "../../../src/net/if-none-match.js";

const ETAG = '"q1w2e3"';

describe("If-None-Match (RFC 9110 §13.1.2)", () => {
  it.each([
    ["the tag itself", '"q1w2e3"'],
    ["the tag weakened by a cache on the way", 'W/"q1w2e3"'],
    ["a list holding it", '"a", "q1w2e3"'],
    ["a list without spaces, weak and strong mixed", 'W/"a",W/"q1w2e3","b"'],
    ["any answer at all", "*"],
    ["the header sent twice", ['"a"', '"q1w2e3"']],
  ])("names the answer: %s", (_name, header) => {
    expect(ifNoneMatchNames(header, ETAG)).toBe(true);
  });

  it.each([
    ["no header", undefined],
    ["another tag", '"q1w2e4"'],
    ["the tag unquoted", "q1w2e3"],
    ["a prefix of it", '"q1w2"'],
    ["an empty header", ""],
    ["a list of others", '"a", W/"b"'],
    ["a star inside a list (not the wildcard)", '"a", *'],
  ])("does not name it: %s", (_name, header) => {
    expect(ifNoneMatchNames(header, ETAG)).toBe(false);
  });

  it("compares weakly from either side, and keeps a comma inside a tag", () => {
    expect(ifNoneMatchNames('"q1w2e3"', `W/${ETAG}`)).toBe(true);
    expect(ifNoneMatchNames('"x,y", "z"', '"x,y"')).toBe(true);
    expect(ifNoneMatchNames('"x,y"', '"x"')).toBe(false);
  });
});
