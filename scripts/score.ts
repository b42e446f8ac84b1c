import { parseArgs } from "node:util";
import { ConfigError, loadConfigFromProcess } from "../src/config.js";
import { AppError } from "../src/errors.js";
import { createCrawler } from "../src/modules/crawl/crawler.factory.js";
import { createScorer } from "../src/modules/scoring/scorer.factory.js";
import type { ScoreResult } from "../src/modules/scoring/scoring.types.js";

/**
 * npm run score -- <url> [--quick] [--product] [--context "text"]
 * Crawls and scores an address with the configured scorer and prints a readable report.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { quick: { type: "boolean" }, product: { type: "boolean" }, context: { type: "string" } },
});

async function main(): Promise<number> {
  const url = positionals[0];
  if (!url) {
    console.error('usage: npm run score -- <url> [--quick] [--product] [--context "text"]');
    return 2;
  }
  const config = loadConfigFromProcess();
  const mode = values.quick ? "quick" : "full";
  const crawl = await createCrawler(config).crawl(url, {
    mode,
    onProgress: ({ n, of, url: page }) => process.stderr.write(`crawled ${n}/${of} ${page}\n`),
  });
  const result = await createScorer(config).score({
    crawl,
    context: values.context,
    framework: values.product ? "product" : "maturity",
    mode,
  });
  process.stdout.write(report(result));
  return 0;
}

function report(result: ScoreResult): string {
  const lines = [
    `${result.companyName} — ${result.url}`,
    `Total ${result.totalScore}/100 · ${result.stageName} · ${result.framework} framework ${result.frameworkVersion} · ${result.mode} · ${result.scorer.engine}${result.scorer.model ? ` (${result.scorer.model})` : ""}`,
    `Pages read: ${result.crawlStats.pagesAnalyzed}${result.crawlStats.partial ? " (partial)" : ""} · strengths: ${result.strengths.join(", ")} · gaps: ${result.gaps.join(", ")}`,
    "",
  ];
  let pillar = "";
  for (const dimension of result.dimensions) {
    if (dimension.pillar !== pillar) {
      pillar = dimension.pillar;
      lines.push(pillar);
    }
    lines.push(
      `  ${dimension.dimensionName.padEnd(28)} ${String(dimension.score).padStart(3)}  ${dimension.confidence.padEnd(6)}  ${dimension.evidence.split(" · ")[0]}`,
    );
  }
  if (result.antiPatternsDetected.length > 0)
    lines.push("", "Anti-patterns:", ...result.antiPatternsDetected.map((item) => `  - ${item}`));
  if (result.crossDimensionNotes) lines.push("", `Notes: ${result.crossDimensionNotes}`);
  return `${lines.join("\n")}\n`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof AppError || error instanceof ConfigError) {
      console.error(error instanceof AppError ? `${error.code}: ${error.message}` : error.message);
      process.exit(1);
    }
    throw error;
  },
);
