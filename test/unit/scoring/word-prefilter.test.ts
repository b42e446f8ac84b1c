import { describe, expect, it } from "vitest";
import { mayMatch, startingWords, wordPrefixes } from "../../../src/modules/scoring/word-prefilter.js";

describe("word prefilter", () => {
  it("reads the words a match must start with, whole where a space or boundary follows", () => {
    expect(startingWords(/\b(webinars?|podcasts?|virtual events?)\b/i)).toEqual(["webina", "podcas", "=virtual"]);
    expect(startingWords(/\bper (\d+ )?(api calls?|requests?)\b/i)).toEqual(["=per"]);
    expect(startingWords(/(?:\b(?:agents?|agentic)\b)|(?:\bdocker\b)/i)).toEqual(["agent", "agenti", "=docker"]);
    expect(startingWords(/\b(?:industry|annual) reports?\b/i)).toEqual(["indust", "annual"]);
  });

  it("gives up (always runs the regex) where the start is not a literal word", () => {
    for (const pattern of [/\b\d+%/, /^(?=.*\btrain)/i, /(^|\s)(TODO|FIXME)/, /\b(?:a|b)?c/, /foo/, /\b(?!x)y/, /\b[a-z]+ ipsum/i, /\bcafé/iu]) {
      expect(startingWords(pattern), String(pattern)).toBeNull();
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
    ];
    const texts = [
      "Join our Webinar on Tuesday.", "Priced PER 1000 API calls.", "Data is Encrypted at rest.", "AES-256 everywhere.",
      "Our A.I. reads it.", "SOC2 audited.", "Quickstart: install it.", "Hello world!", "Permission to request", "Podcast",
      "persona requests", "webinarsX", "no match here at all", "xper api calls", "the_per api calls",
    ];
    for (const pattern of patterns) {
      for (const text of texts) {
        if (pattern.test(text)) expect(mayMatch(pattern, wordPrefixes(text)), `${pattern} on "${text}"`).toBe(true);
      }
    }
  });

  it("rules out texts where no match can start", () => {
    expect(mayMatch(/\bper (api calls?|requests?)\b/i, wordPrefixes("Permissions for every request"))).toBe(false);
    expect(mayMatch(/\b(webinars?|podcasts?)\b/i, wordPrefixes("A page about pricing and security"))).toBe(false);
    expect(mayMatch(/\b(webinars?|podcasts?)\b/i, wordPrefixes("Our WEBINAR series"))).toBe(true);
  });
});
