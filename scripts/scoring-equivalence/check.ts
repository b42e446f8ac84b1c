// Scoring equivalence: scores every input of inputs.ts with the old scorer (a checkout
// of an older commit, e.g. `git worktree add --detach /tmp/score-head HEAD` with
// node_modules symlinked) and with this tree's, and requires the same JSON to the
// character: the ScoreResult, the rules' readings (raw strength, coverage, evidence,
// raised and lowered) and the site profile.
//
//   npx tsx scripts/scoring-equivalence/check.ts /tmp/score-head [--fuzz 600] [captured.jsonl …]
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { HeuristicScorer } from "../../src/modules/scoring/heuristic-scorer.js";
import { SiteFacts } from "../../src/modules/scoring/site-facts.js";
import { siteProfile } from "../../src/modules/scoring/site-profile.js";
import type { ScoreInput } from "../../src/modules/scoring/scoring.types.js";
import { equivalenceInputs } from "./inputs.js";

interface ScoringModules {
  HeuristicScorer: typeof HeuristicScorer;
  SiteFacts: typeof SiteFacts;
  siteProfile: typeof siteProfile;
}

const args = process.argv.slice(2);
const oldRoot = args[0];
if (!oldRoot) throw new Error("usage: check.ts <old checkout> [--fuzz N] [captured.jsonl …]");
const fuzzAt = args.indexOf("--fuzz");
const fuzz = fuzzAt >= 0 ? Number(args[fuzzAt + 1]) : 600;
const captureFiles = args.slice(1).filter((arg, i, all) => arg !== "--fuzz" && all[i - 1] !== "--fuzz");

const load = async (rootDir: string): Promise<ScoringModules> => {
  const at = (file: string) => pathToFileURL(join(resolve(rootDir), "src/modules/scoring", file)).href;
  const [scorer, facts, profile] = await Promise.all([
    import(at("heuristic-scorer.ts")),
    import(at("site-facts.ts")),
    import(at("site-profile.ts")),
  ]);
  return { HeuristicScorer: scorer.HeuristicScorer, SiteFacts: facts.SiteFacts, siteProfile: profile.siteProfile };
};

function run(modules: ScoringModules, input: ScoreInput): string {
  const scorer = new modules.HeuristicScorer();
  const result = scorer.scoreSync(input);
  const facts = new modules.SiteFacts(input.crawl);
  const profile = modules.siteProfile(facts);
  const readings = scorer
    .read(facts, profile)
    .map((reading) => ({ id: reading.definition.id, site: reading.site, silence: reading.silence }));
  // Scored twice on one scorer: nothing a first run caches may change a second.
  const again = scorer.scoreSync(input);
  return JSON.stringify({ result, again, readings, profile });
}

const oldModules = await load(oldRoot);
const newModules = await load(join(import.meta.dirname, "../.."));
if (oldModules.HeuristicScorer === newModules.HeuristicScorer)
  throw new Error("old and new resolve to the same module");

const inputs = equivalenceInputs({ fuzz, captureFiles });
let differing = 0;
let oldMs = 0;
let newMs = 0;
for (const input of inputs) {
  const scoreInput: ScoreInput = {
    crawl: input.crawl,
    framework: input.framework,
    mode: input.mode,
    ...(input.context === undefined ? {} : { context: input.context }),
  };
  let start = performance.now();
  const before = run(oldModules, scoreInput);
  oldMs += performance.now() - start;
  start = performance.now();
  const after = run(newModules, scoreInput);
  newMs += performance.now() - start;
  if (before !== after) {
    differing += 1;
    let at = 0;
    while (before[at] === after[at]) at += 1;
    console.log(
      `DIFFERS: ${input.name}\n  old: …${before.slice(Math.max(0, at - 200), at + 200)}\n  new: …${after.slice(Math.max(0, at - 200), at + 200)}`,
    );
  }
}
const pages = inputs.reduce((sum, input) => sum + input.crawl.pages.length, 0);
console.log(
  `${inputs.length} inputs (${pages} pages): ${differing === 0 ? "all identical" : `${differing} DIFFER`}; old ${oldMs.toFixed(0)} ms, new ${newMs.toFixed(0)} ms`,
);
process.exitCode = differing === 0 ? 0 : 1;
