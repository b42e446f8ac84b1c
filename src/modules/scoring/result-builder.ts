import type { CrawlResult } from "../crawl/crawl.types.js";
import { aggregate, inDimensionOrder } from "./aggregate.js";
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
  const dimensions = inDimensionOrder(input.dimensions);
  const summary = aggregate(dimensions, input.framework);
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

function crawlNotes(crawl: CrawlResult, mode: ScoreMode): string[] {
  const notes: string[] = [];
  if (mode === "quick") notes.push(`Quick score: ${crawl.crawlStats.pagesAnalyzed} pages read, so no dimension is rated above medium confidence.`);
  if (crawl.crawlStats.partial) notes.push("The crawl ran out of time before it read every planned page; a rescore may see more.");
  if (crawl.crawlStats.pagesAnalyzed === 1) notes.push("Only the home page could be read: most dimensions rest on little evidence.");
  return notes;
}
