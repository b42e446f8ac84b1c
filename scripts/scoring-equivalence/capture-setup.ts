// A vitest setup file for the scoring equivalence check (not part of the normal test run):
// records every crawl the scoring tests hand to SiteFacts or the heuristic scorer, so
// check.ts can score the same inputs with the old and the new code.
//
//   CAPTURE_FILE=/tmp/captured.jsonl npx vitest run test/unit/scoring test/integration/scoring \
//     --config scripts/scoring-equivalence/vitest.capture.mjs
import { appendFileSync } from "node:fs";
import { afterAll } from "vitest";
import type { CrawlResult } from "../../src/modules/crawl/crawl.types.js";
import { HeuristicScorer } from "../../src/modules/scoring/heuristic-scorer.js";
import { SiteFacts } from "../../src/modules/scoring/site-facts.js";
import type { ScoreInput } from "../../src/modules/scoring/scoring.types.js";

const file = process.env.CAPTURE_FILE;
if (file) {
  const seen = new Set<string>();
  const lines: string[] = [];
  const keep = (entry: { crawl: CrawlResult; context?: string; mode?: string; framework?: string }) => {
    const line = JSON.stringify(entry);
    if (!seen.has(line)) {
      seen.add(line);
      lines.push(line);
    }
  };
  const recorded = new WeakSet<CrawlResult>();
  const proto = SiteFacts.prototype as unknown as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(SiteFacts.prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(SiteFacts.prototype, name)!;
    if (name === "constructor" || typeof descriptor.value !== "function") continue;
    const original = descriptor.value as (...args: unknown[]) => unknown;
    proto[name] = function (this: SiteFacts, ...args: unknown[]) {
      if (!recorded.has(this.crawl) && !this.crawl.url.startsWith("context:")) {
        recorded.add(this.crawl);
        keep({ crawl: this.crawl });
      }
      return original.apply(this, args);
    };
  }
  const scoreSync = HeuristicScorer.prototype.scoreSync;
  HeuristicScorer.prototype.scoreSync = function (this: HeuristicScorer, input: ScoreInput) {
    keep({
      crawl: input.crawl,
      ...(input.context === undefined ? {} : { context: input.context }),
      mode: input.mode,
      framework: input.framework,
    });
    return scoreSync.call(this, input);
  };
  afterAll(() => {
    if (lines.length > 0) appendFileSync(file, `${lines.join("\n")}\n`);
  });
}
