import type { CrawlResult } from "../crawl/crawl.types.js";
import { SCORED_TEXT_PER_PAGE } from "./site-facts.js";

/**
 * The product's own end announced on its home page: "Overvio will be phased out by March 31", "On September 1,
 * Adobe will end support for Brackets", "We are shutting down". The sentence names the product (or speaks as "we",
 * "our", "this service"); a terms page's "we may discontinue the Service" and an old version's end of life are not it.
 */
const ENDING =
  /\b(?:will (?:be )?(?:phased out|shut(?:ting)? down|discontinued|sunset(?:ted)?|closed down|closing down)|will (?:end|stop) (?:support|supporting|operating|operations)|(?:is|are) (?:shutting down|being (?:shut down|discontinued|sunset(?:ted)?|phased out)|winding down|closing (?:its|our) doors|no longer (?:supported|maintained|accepting new (?:customers|sign-?ups|users)))|(?:has|have) (?:shut down|been (?:shut down|discontinued|sunset(?:ted)?|acquired and (?:will|is) (?:close|closing|shutting)))|(?:end(?:s|ed)?|ending) (?:of )?(?:support|life) for)\b/i;
const NOT_ENDING =
  /\b(?:may|might|could|reserves? the right|versions?|release series|series|v\d|browsers?|internet explorer|windows (?:xp|7)|python 2|node(?:\.js)? \d+)\b/i;

export function announcedEnd(
  crawl: Pick<CrawlResult, "pages" | "companyName">,
): { url: string; text: string } | undefined {
  const [home] = crawl.pages;
  if (!home) return undefined;
  const brand = crawl.companyName.trim().toLowerCase().split(/\s+/)[0] ?? "";
  // Letters and digits only: the site "overv.io" writes its name "Overvio".
  const key = (text: string) => text.replace(/[^a-z0-9]/g, "");
  const speaksForItself = (sentence: string) => {
    const lower = sentence.toLowerCase();
    return (
      (brand.length >= 3 && lower.includes(brand)) ||
      (key(brand).length >= 3 && lower.split(/\s+/).some((word) => key(word) === key(brand))) ||
      /\b(we|our|this (service|product|app|site|platform|tool))\b/.test(lower)
    );
  };
  for (const sentence of home.text.slice(0, SCORED_TEXT_PER_PAGE).split(/(?<=[.!?])\s+|\n/)) {
    if (sentence.length > 300 || !ENDING.test(sentence) || NOT_ENDING.test(sentence) || !speaksForItself(sentence))
      continue;
    return { url: home.url, text: sentence.trim().slice(0, 200) };
  }
  return undefined;
}
