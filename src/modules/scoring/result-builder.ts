import type { CrawlResult, CrawlStats } from "../crawl/crawl.types.js";
import { aggregate, inDimensionOrder } from "./aggregate.js";
import { announcedEnd } from "./announced-end.js";
import { stageFor } from "./framework/stages.js";
import type { Framework } from "./framework/frameworks.js";
import type { DimensionResult, ScoreMode, ScoreResult, ScorerInfo } from "./scoring.types.js";

/**
 * Both scorers end here: the 27 dimension results become the total, stage,
 * strengths, gaps and notes in one place, so a heuristic and an LLM result are
 * shaped and aggregated identically.
 */
export function buildScoreResult(input: {
  crawl: CrawlResult;
  framework: Framework;
  mode: ScoreMode;
  dimensions: readonly DimensionResult[];
  antiPatterns: readonly string[];
  notes: readonly string[];
  scorer: ScorerInfo;
}): ScoreResult {
  const dimensions = inDimensionOrder(honestConfidence(input.dimensions, input.crawl.crawlStats));
  const summary = endOfProduct(aggregate(dimensions, input.framework), input.crawl);
  const notes = [...summary.gateNotes, ...crawlNotes(input.crawl, input.mode), ...input.notes];
  return {
    url: input.crawl.url,
    companyName: input.crawl.companyName,
    framework: input.framework.id,
    frameworkVersion: input.framework.version,
    mode: input.mode,
    totalScore: summary.totalScore,
    stageName: summary.stageName,
    dimensions,
    strengths: summary.strengths,
    gaps: summary.gaps,
    crossDimensionNotes: notes.join(" "),
    antiPatternsDetected: input.antiPatterns,
    crawledPages: input.crawl.crawledPages,
    crawlStats: input.crawl.crawlStats,
    ...(summary.lifecycleStageId ? { lifecycleStageId: summary.lifecycleStageId } : {}),
    scorer: input.scorer,
  };
}

/** The highest total a product that announces its own end can have: Foundation, whatever it once built. */
export const ENDING_PRODUCT_CAP = 25;

/**
 * A product whose home page announces its end (shut down, phased out, end of support) is no going
 * concern, whatever its site shows of better days: its total is capped at ENDING_PRODUCT_CAP, and
 * crossDimensionNotes quotes the announcement.
 */
function endOfProduct<T extends ReturnType<typeof aggregate>>(summary: T, crawl: CrawlResult): T {
  const end = announcedEnd(crawl);
  if (!end) return summary;
  const note = `The site announces the product's end ("${end.text}"), so the total is capped at ${ENDING_PRODUCT_CAP}: a product being shut down is not a going concern.`;
  if (summary.totalScore <= ENDING_PRODUCT_CAP) return { ...summary, gateNotes: [...summary.gateNotes, note] };
  return {
    ...summary,
    totalScore: ENDING_PRODUCT_CAP,
    stageName: stageFor(ENDING_PRODUCT_CAP),
    gateNotes: [...summary.gateNotes, note],
  };
}

/** Characters of page text (boilerplate counted once) below which a crawl saw too little to read absences. */
export const THIN_TEXT = 3_000;

/** A crawl that saw one or two pages, or little text: what it did not find may simply not have been in view. */
export function thinCrawl(stats: CrawlStats): boolean {
  return stats.pagesAnalyzed <= 2 || stats.contentLength < THIN_TEXT;
}

/**
 * Confidence says how much the crawl could see (docs/api.md §12), whichever scorer
 * wrote it: on a thin crawl, a dimension with no evidence to show for it is low,
 * never medium.
 */
function honestConfidence(dimensions: readonly DimensionResult[], stats: CrawlStats): DimensionResult[] {
  if (!thinCrawl(stats)) return [...dimensions];
  return dimensions.map((dimension) => {
    // Evidence, the site's or the caller's own (self-reported context may lift a thin reading to medium), keeps its rating.
    return dimension.evidenceItems.length > 0 || dimension.confidence === "low"
      ? dimension
      : { ...dimension, confidence: "low" };
  });
}

/** How the site was read, always; then what limited the reading. */
function crawlNotes(crawl: CrawlResult, mode: ScoreMode): string[] {
  const stats = crawl.crawlStats;
  const notes = [howRead(stats)];
  if (mode === "quick")
    notes.push(`Quick score: ${stats.pagesAnalyzed} pages read, so no dimension is rated above medium confidence.`);
  if (stats.partial) notes.push("The crawl ran out of time before it read every planned page; a rescore may see more.");
  if (stats.pagesAnalyzed === 1)
    notes.push("Only the home page could be read: most dimensions rest on little evidence.");
  else if (thinCrawl(stats))
    notes.push(
      `The crawl saw little (${plural(stats.pagesAnalyzed, "page")}, ${stats.contentLength.toLocaleString("en-US")} characters of text): dimensions with nothing to show for them are rated with low confidence, since what was not seen may simply not have been in view.`,
    );
  return notes;
}

/** "Read 11 pages: 2 as HTML, 9 rendered in headless Chromium because their HTML was an empty shell; 1 page blocked by a bot wall." */
function howRead(stats: CrawlStats): string {
  const rendered = stats.pagesRendered ?? 0;
  const blocked = stats.pagesBlocked ?? 0;
  const html = stats.pagesAnalyzed - rendered;
  const parts =
    rendered === 0
      ? `Read ${plural(stats.pagesAnalyzed, "page")} as HTML`
      : html === 0
        ? `Read ${plural(stats.pagesAnalyzed, "page")}, all rendered in headless Chromium: the site builds its pages in the browser with JavaScript`
        : `Read ${plural(stats.pagesAnalyzed, "page")}: ${html} as HTML, ${rendered} rendered in headless Chromium because their HTML was an empty shell`;
  const walls =
    blocked > 0
      ? `; ${plural(blocked, "page")} answered by a bot wall instead of the page ${blocked === 1 ? "was" : "were"} not read`
      : "";
  return `${parts}${walls}.`;
}

const plural = (count: number, noun: string): string => `${count} ${count === 1 ? noun : `${noun}s`}`;
