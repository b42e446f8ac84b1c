import type { ExtractedPage, OutboundLink } from "./crawl.types.js";
import { classifyOutbound } from "./page-priority.js";

const MAX_OUTBOUND = 100;

/**
 * Characters of text analysed. Navigation, header and footer blocks repeat on
 * every page; each distinct block counts once, so a 25-page crawl of a thin site
 * does not look 25 times richer than it is.
 */
export function contentLengthOf(pages: readonly ExtractedPage[]): number {
  const blocks = new Set<string>();
  let length = 0;
  for (const page of pages) {
    length += page.text.length;
    for (const block of page.boilerplate) {
      if (blocks.has(block)) continue;
      blocks.add(block);
      length += block.length;
    }
  }
  return length;
}

/** Links that leave the site and say something about it (status page, GitHub, app stores …), not crawled. */
export function collectOutbound(pages: readonly ExtractedPage[]): OutboundLink[] {
  const found = new Map<string, OutboundLink>();
  for (const page of pages) {
    for (const link of page.externalLinks) {
      if (found.size >= MAX_OUTBOUND || found.has(link.url)) continue;
      const kind = classifyOutbound(link.url);
      if (kind !== "other") found.set(link.url, { url: link.url, kind, foundOn: page.url });
    }
  }
  return [...found.values()];
}
