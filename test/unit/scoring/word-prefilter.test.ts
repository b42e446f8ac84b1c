import { describe, expect, it } from "vitest";
import { matchStarts, WordIndex } from "../../../src/modules/scoring/word-prefilter.js";

const mayStart = (pattern: RegExp, text: string): boolean => new WordIndex(text).mayStart(pattern);

describe("word prefilter", () => {
  it("reads the words a match must start with, whole where a space or boundary follows", () => {
    expect(matchStarts(/\b(webinars?|podcasts?|virtual events?)\b/i)).toEqual(["webinar", "podcast", "=virtual"]);
    expect(matchStarts(/\bper (\d+ )?(api calls?|requests?)\b/i)).toEqual(["=per"]);
    expect(matchStarts(/(?:\b(?:agents?|agentic)\b)|(?:\bdocker\b)/i)).toEqual(["agent", "agentic", "=docker"]);
    expect(matchStarts(/\b(?:industry|annual) reports?\b/i)).toEqual(["industry", "annual"]);
  });

  it("gives up (the regex runs over the whole text) where the start cannot be read", () => {
    for (const pattern of [/^(?=.*\btrain)/i, /\b(?!x)y/, /(?<=a)b/, /\bcafé/iu]) {
      expect(matchStarts(pattern), String(pattern)).toBeNull();
      expect(mayStart(pattern, "nothing alike"), String(pattern)).toBe(true);
    }
  });

  it("never rules out a text the regex matches", () => {
    const patterns = [
      /\b(webinars?|podcasts?|virtual events?)\b/i,
      /\bper (\d+ )?(api calls?|requests?)\b/i,
      /\b(?:encrypt(?:ed|ion)? (?:at rest|in transit)|aes[- ]?256)\b/i,
      /\b(AI|A\.I\.|machine learning)\b/,
      /\bSOC ?2\b/,
      /\b(?:quick ?start|getting started|hello,? world)\b/i,
      /(^|[\s(\[])(TODO|FIXME)(?=$|[\s:).\]])/,
      /\b\d+%/,
      /\b(?:a|b)?c/,
      /foo/,
    ];
    const texts = [
      "Join our Webinar on Tuesday.",
      "Priced PER 1000 API calls.",
      "Data is Encrypted at rest.",
      "AES-256 everywhere.",
      "Our A.I. reads it.",
      "SOC2 audited.",
      "Quickstart: install it.",
      "Hello world!",
      "Permission to request",
      "Podcast",
      "persona requests",
      "webinarsX",
      "no match here at all",
      "xper api calls",
      "the_per api calls",
      "TODO: ship",
      "(FIXME)",
      "up 40% this year",
      "bc",
      "c",
      "afoot",
    ];
    for (const pattern of patterns) {
      for (const text of texts) {
        if (pattern.test(text)) expect(mayStart(pattern, text), `${pattern} on "${text}"`).toBe(true);
      }
    }
  });

  it("rules out texts where no match can start", () => {
    expect(mayStart(/\bper (api calls?|requests?)\b/i, "Permissions for every request")).toBe(false);
    expect(mayStart(/\b(webinars?|podcasts?)\b/i, "A page about pricing and security")).toBe(false);
    expect(mayStart(/\b(webinars?|podcasts?)\b/i, "Our WEBINAR series")).toBe(true);
    expect(mayStart(/\b(lorem ipsum|dolor sit amet)\b/i, "Lorem ipsum dolor")).toBe(true);
    expect(mayStart(/\b(lorem ipsum|dolor sit amet)\b/i, "A real page")).toBe(false);
  });
});
