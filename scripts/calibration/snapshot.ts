import type { CrawlResult, ExtractedPage } from "../../src/modules/crawl/crawl.types.js";
import { SCORED_TEXT_PER_PAGE } from "../../src/modules/scoring/site-facts.js";
import type { CorpusSite } from "./manifest.js";

/** A committed calibration snapshot: the crawler's extracted facts per page (no raw HTML), enough to score offline. */
export interface CalibrationSnapshot {
  readonly name: string;
  readonly kind: CorpusSite["kind"];
  readonly judged: number;
  readonly crawl: CrawlResult;
}

const LOCAL_ORIGIN = "https://site.calibration.test";

/**
 * The crawl with the local server's origin replaced by a fixed one (ports differ
 * per run) and each page's text cut to what the scorer reads.
 */
export function toSnapshot(site: CorpusSite, crawl: CrawlResult, origin: string): CalibrationSnapshot {
  const swap = (value: string) => value.split(origin).join(LOCAL_ORIGIN);
  const page = (entry: ExtractedPage): ExtractedPage => ({ ...entry, text: entry.text.slice(0, SCORED_TEXT_PER_PAGE) });
  const portable = JSON.parse(swap(JSON.stringify({ ...crawl, pages: crawl.pages.map(page), crawlStats: { ...crawl.crawlStats, durationMs: 0 } }))) as CrawlResult;
  return { name: site.name, kind: site.kind, judged: site.judged, crawl: portable };
}
