// Old vs new scorer CPU on the bench's three corpora, interleaved run by run in one
// process so that load from elsewhere on the machine hits both alike.
//
//   npx tsx scripts/scoring-equivalence/compare-cpu.ts /tmp/score-head [runs]
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { HeuristicScorer } from "../../src/modules/scoring/heuristic-scorer.js";
import { equivalenceInputs } from "./inputs.js";

const oldRoot = process.argv[2];
if (!oldRoot) throw new Error("usage: compare-cpu.ts <old checkout> [runs]");
const runs = Number(process.argv[3] ?? 60);
const load = async (rootDir: string) =>
  new (
    (await import(pathToFileURL(join(resolve(rootDir), "src/modules/scoring/heuristic-scorer.ts")).href))
      .HeuristicScorer as typeof HeuristicScorer
  )();
const scorers = { old: await load(oldRoot), new: await load(join(import.meta.dirname, "../..")) };
const corpora = equivalenceInputs({ fuzz: 0, captureFiles: [] }).filter(
  (input) => input.name.startsWith("bench ") && !input.context,
);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const min = (values: number[]) => Math.min(...values);

for (const corpus of corpora) {
  const samples: Record<keyof typeof scorers, number[]> = { old: [], new: [] };
  for (let i = 0; i < runs; i += 1) {
    for (const name of (i % 2 === 0 ? ["old", "new"] : ["new", "old"]) as Array<keyof typeof scorers>) {
      const start = process.cpuUsage();
      scorers[name].scoreSync({ crawl: corpus.crawl, framework: "maturity", mode: "full" });
      const used = process.cpuUsage(start);
      if (i >= 5) samples[name].push((used.user + used.system) / 1000);
    }
  }
  const [before, after] = [median(samples.old), median(samples.new)];
  const [fastestBefore, fastestAfter] = [min(samples.old), min(samples.new)];
  console.log(
    `${corpus.name.padEnd(18)} median: old ${before.toFixed(1).padStart(6)} ms, new ${after.toFixed(1).padStart(6)} ms (${(before / after).toFixed(2)}x)` +
      `   fastest: old ${fastestBefore.toFixed(1).padStart(6)} ms, new ${fastestAfter.toFixed(1).padStart(6)} ms (${(fastestBefore / fastestAfter).toFixed(2)}x)`,
  );
}
