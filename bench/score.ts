// Heuristic scoring cost for a 25-page crawl (budget: under 50 ms of CPU),
// beside a floor measured in the same run: one full regex pass over the same
// pages' scored text. Two corpora: the generated marketing pages (~52k characters
// of text each, rubric words everywhere: a worst case) and the same pages cut to
// 6k characters (a typical product page's text).
//
//   npm run bench:score

import { HeuristicScorer } from "../src/modules/scoring/heuristic-scorer.js";
import { SCORED_TEXT_PER_PAGE } from "../src/modules/scoring/site-facts.js";
import { crawlOf, scoreBenchCorpora } from "./score-corpora.js";

const RUNS = 60;

const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)]!;

function measure(work: () => unknown): number[] {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.cpuUsage();
    work();
    samples.push(cpuMs(start));
  }
  return samples.slice(5); // first runs warm the JIT
}

const scorer = new HeuristicScorer();
const NO_MATCH = /\bzq(?:xv|wk)\b/i; // never matches: the regex engine reads every character

console.log("corpus                          target                              CPU ms median     p95");
for (const { name, pages } of scoreBenchCorpora()) {
  const crawl = crawlOf(pages);
  const floor = measure(() => pages.filter((page) => NO_MATCH.test(page.text.slice(0, SCORED_TEXT_PER_PAGE))).length);
  const scoring = measure(() => scorer.scoreSync({ crawl, framework: "maturity", mode: "full" }));
  console.log(
    `${name.padEnd(31)} one regex pass over the text (floor) ${median(floor).toFixed(3).padStart(10)} ${p95(floor).toFixed(3).padStart(7)}`,
  );
  console.log(
    `${"".padEnd(31)} heuristic scorer, 27 dimensions     ${median(scoring).toFixed(3).padStart(10)} ${p95(scoring).toFixed(3).padStart(7)}   budget < 50 ms: ${median(scoring) < 50 ? "MET" : "MISSED"}`,
  );
}
