import { describe, expect, it } from "vitest";
import {
  lineCondition,
  matchStarts,
  requiredLiterals,
  WordIndex,
} from "../../../src/modules/scoring/word-prefilter.js";

/** The obvious reading of a text's words (`\b` is ASCII), as keys: whole (`=word`) and by their first one to six characters. */
function wordPrefixes(text: string): Set<string> {
  const keys = new Set<string>();
  for (const raw of new Set(text.split(/[^A-Za-z0-9_]+/))) {
    if (raw === "") continue;
    const word = raw.toLowerCase();
    keys.add(`=${word}`);
    for (let length = Math.min(6, word.length); length >= 1; length -= 1) keys.add(word.slice(0, length));
  }
  return keys;
}
import { rng } from "../../../bench/pages.js";
import { fuzzText, rubricPatterns, rubricPhrases } from "../../../scripts/scoring-equivalence/fuzz.js";

/**
 * The word index answers `pattern.test(text)` by trying the pattern only where a
 * match can start, and rules texts out by the words and literals a match needs.
 * Each shortcut must give the regex's own answer: checked here for every regex
 * literal of the scoring and crawl code on seeded random texts made of the
 * rubric's words, and on hand-picked edge cases.
 */
const patterns = [
  ...rubricPatterns(),
  /\b\d+%/,
  /\b(?:a|b)?c/,
  /\b(?:built |made )?for (?:teams|you)\b/i,
  /(?:©|\(c\)|copyright)\s*(\d{4})/i,
  /\b[1-5]\.\d\s?stars?/i,
  /(^|[\s(\[])(TODO|FIXME)(?=$|[\s:).\]])/,
  /^(?=.*\bnever\b)(?=.*\btrain)/im,
  /\bstra(?:ß|ss)e\b/i,
  /\bk\b/i,
  /café/i,
  /\bµs\b/i,
  /\x41pi/i,
];
const texts = (() => {
  const random = rng(20261125);
  const phrases = rubricPhrases();
  const generated = Array.from({ length: 160 }, (_, i) => fuzzText(random, phrases, 40 + (i % 8) * 300));
  return [
    ...generated,
    "",
    "x",
    "İstanbul İİİ api docs",
    "\u212Aelvin ſecure K k",
    "µs μs ΜS 120µs",
    "café CAFÉ straße STRASSE",
    "© 2019 (c) 2014 Copyright2011",
    "TODO: fix (FIXME) todo",
    "We never train on your data.\nTraining never",
    "4.8 stars 4.5/5",
    "Built for teams, for you",
    "x\u2028y\rz\u00a0docs",
  ];
})();

describe("word index", () => {
  it("answers test() as the regex does, for every pattern and text", () => {
    const wrong: string[] = [];
    for (const text of texts) {
      const index = new WordIndex(text);
      for (const pattern of patterns) {
        pattern.lastIndex = 0;
        const expected = pattern.test(text);
        if (index.test(pattern) !== expected) wrong.push(`${pattern} on ${JSON.stringify(text.slice(0, 80))}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("never rules out a text a pattern matches (starts, line conditions, literals)", () => {
    const wrong: string[] = [];
    for (const text of texts) {
      const index = new WordIndex(text);
      for (const pattern of patterns) {
        pattern.lastIndex = 0;
        const starts = matchStarts(pattern);
        if (pattern.test(text) && starts !== null && !starts.some((key) => index.has(key)))
          wrong.push(`starts ${pattern} ${JSON.stringify(starts)}`);
        // As SiteFacts tries sentence-anchored and link patterns: a line at a time.
        const multiline = new RegExp(pattern.source, `${pattern.flags.replace(/[gym]/g, "")}m`);
        if (!multiline.test(text)) continue;
        if (!index.satisfies(pattern))
          wrong.push(`line condition ${pattern} ${JSON.stringify(lineCondition(pattern))}`);
        const literals = requiredLiterals(pattern);
        if (literals !== null && !index.mayContain(literals))
          wrong.push(`literals ${pattern} ${JSON.stringify(literals)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("knows the same words as the prefix set", () => {
    for (const text of texts.slice(0, 40)) {
      const index = new WordIndex(text);
      for (const key of wordPrefixes(text)) expect(index.has(key), key).toBe(true);
      for (const key of ["=zzqx", "zzqx", "=the", "th"]) expect(index.has(key), key).toBe(wordPrefixes(text).has(key));
    }
  });

  it("reads starts, line conditions and literals from a pattern's source", () => {
    expect(matchStarts(/\b(?:founded|since)\s+\d{4}|(?:©|\(c\)|copyright)\s*\d{4}/i)).toEqual([
      "founded",
      "since",
      "#©",
      "#(",
      "#copyright",
    ]);
    expect(matchStarts(/\b(?:built |made )?for teams\b/i)).toEqual(["=built", "=made", "=for"]);
    expect(matchStarts(/\b\d+%/)).toEqual(["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]);
    expect(matchStarts(/(?:^|\s)vs\b/i)).toBeNull();
    expect(lineCondition(/^(?=.*\b(fallbacks?|failover)\b)(?=.*\b(models?|llms?)\b)/i)).toEqual([
      [
        ["fallback", "failover"],
        ["model", "llm"],
      ],
    ]);
    expect(
      requiredLiterals(/\/(?:docs|documentation|developers?)(?:[/?#]|$)|^https?:\/\/(?:docs|developers?)\./i),
    ).toEqual(["/docs", "/documentation", "/developer", "://docs", "://developer"]);
    expect(requiredLiterals(/(?:^|[\s/-])(?:vs\.?|versus)(?=[\s/-]|$)|\/compare/i)).toEqual([
      "vs",
      "versus",
      "/compare",
    ]);
  });
});
