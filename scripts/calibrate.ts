import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { CrawlResult } from "../src/modules/crawl/crawl.types.js";
import { pino } from "pino";
import { createCrawler, createRenderer } from "../src/modules/crawl/crawler.factory.js";
import { detectCompanyName } from "../src/modules/crawl/extract.js";
import { locateBrowser } from "../src/platform/browser-locator.js";
import { HeuristicScorer, type DimensionReading } from "../src/modules/scoring/heuristic-scorer.js";
import { SiteFacts } from "../src/modules/scoring/site-facts.js";
import { dimensions } from "../src/modules/scoring/framework/dimensions.js";
import type { ScoreResult } from "../src/modules/scoring/scoring.types.js";
import { readManifest, snapshotDate, type CorpusSite } from "./calibration/manifest.js";
import { toSnapshot } from "./calibration/snapshot.js";
import { halves, misorderings, spearman } from "./calibration/stats.js";
import { precisionOf, quotesOf, readLabels } from "./calibration/evidence-labels.js";
import { StaticHost } from "./calibration/static-host.js";

/**
 * npm run calibrate  (CORPUS_DIR=<built sites> [MANIFEST=calibration/sites.tsv] [MIRROR_DIR=../.mirror] [CALIBRATE_CRAWL_CACHE=<dir>])
 *   [--only a,b] [--dump name] [--json out.json] [--snapshot dir --snapshot-sites a,b]
 *
 * Serves each real site of the corpus on 127.0.0.1 like a static host, crawls it
 * with the real crawler (full and quick), scores it as of its snapshot date, and
 * prints the table, Spearman ρ (all, commercial; whole corpus, fit half, held-out
 * half), the spread, the costliest misorderings and the targets (docs/calibration.md).
 */
const { values } = parseArgs({
  options: {
    only: { type: "string" },
    dump: { type: "string" },
    json: { type: "string" },
    snapshot: { type: "string" },
    "snapshot-sites": { type: "string" },
    fit: { type: "boolean" },
    evidence: { type: "string" },
  },
});

const corpusDir = process.env.CORPUS_DIR;
if (!corpusDir) {
  console.error("set CORPUS_DIR to the folder of built calibration sites (see calibration/README.md)");
  process.exit(2);
}
const manifestPath = process.env.MANIFEST ?? "calibration/sites.tsv";
const mirrorDir = process.env.MIRROR_DIR ?? resolve("../.mirror");
const only = values.only?.split(",");
const sites = readManifest(manifestPath).filter(
  (site) => (!only || only.includes(site.name)) && existsSync(join(corpusDir, site.name)),
);

interface Row {
  site: CorpusSite;
  asOf: string;
  full: ScoreResult;
  quick: ScoreResult;
  seconds: number;
  deterministic: boolean;
  dishonest: string[];
  readings: DimensionReading[];
}

// Client-rendered sites are read in the browser the service would use (CHROMIUM_PATH, PATH or Playwright's cache).
const browser = locateBrowser(process.env);
if (!browser)
  console.error(
    "no browser found (CHROMIUM_PATH, chromium on PATH, Playwright's cache): client-rendered sites will fail to crawl",
  );
const calibrationConfig = { version: "calibrate", crawl: { maxPages: 25, ssrfAllowlist: ["127.0.0.1/32"], browser } };
// Every site is scored as of its snapshot (the commit's date): without it, recency would be judged against today and
// every dated reading would be wrong, so a missing date stops the run instead of scoring quietly as of now.
const undated = sites.filter((site) => snapshotDate(site, mirrorDir) === undefined).map((site) => site.name);
if (undated.length > 0) {
  console.error(
    `no snapshot date for ${undated.join(", ")}: their repositories are not in MIRROR_DIR=${mirrorDir}. ` +
      "Set MIRROR_DIR to the folder calibration/build.sh built from (<owner>+<name>/repo).",
  );
  process.exit(2);
}
const renderer = createRenderer(calibrationConfig, pino({ level: "warn" }));
const crawler = createCrawler(calibrationConfig, { budgetMs: 60_000, renderer });
const scorer = new HeuristicScorer();

async function run(site: CorpusSite): Promise<Row> {
  const host = new StaticHost(resolve(corpusDir!, site.name), site.originalHosts);
  const origin = await host.start();
  try {
    const started = performance.now();
    const asOf = snapshotDate(site, mirrorDir)!;
    const datedAs = (crawl: CrawlResult): CrawlResult => ({ ...crawl, crawledAt: asOf });
    const fullCrawl = datedAs(await cachedCrawl(site, "full", origin, () => crawler.crawl(origin + site.startPath)));
    const quickCrawl = datedAs(
      await cachedCrawl(site, "quick", origin, () => crawler.crawl(origin + site.startPath, { mode: "quick" })),
    );
    const seconds = (performance.now() - started) / 1000;
    // Scored as the service would see the live site: at its own address, not the local server's.
    const fullSite = atOriginalAddress(fullCrawl, origin, site);
    const quickSite = atOriginalAddress(quickCrawl, origin, site);
    const full = scorer.scoreSync({ crawl: fullSite, framework: "maturity", mode: "full" });
    const quick = scorer.scoreSync({ crawl: quickSite, framework: "maturity", mode: "quick" });
    const again = scorer.scoreSync({ crawl: structuredClone(fullSite), framework: "maturity", mode: "full" });
    if (values.snapshot && values["snapshot-sites"]?.split(",").includes(site.name)) {
      mkdirSync(values.snapshot, { recursive: true });
      writeFileSync(
        join(values.snapshot, `${site.name}.json`),
        `${JSON.stringify(toSnapshot(site, fullCrawl, origin))}\n`,
      );
    }
    const readings = scorer.read(new SiteFacts(fullSite));
    return {
      site,
      asOf,
      full,
      quick,
      seconds,
      deterministic: JSON.stringify(again) === JSON.stringify(full),
      dishonest: dishonestEvidence(full, fullSite),
      readings,
    };
  } finally {
    await host.stop();
  }
}

/**
 * The crawl as the service reads the live site: every address on the local server moved to the
 * site's first original host (https), and the company name worked out again from that host, as the
 * crawler does (a title's brand is matched against the host's name). Without it, rules that tell the
 * site's own domain or brand from another's (a help centre, a blog host, its GitHub organisation)
 * would see 127.0.0.1, and a name taken from the host would read "127".
 */
function atOriginalAddress(crawl: CrawlResult, origin: string, site: CorpusSite): CrawlResult {
  const [host] = site.originalHosts;
  if (!host) return crawl;
  const moved = JSON.parse(JSON.stringify(crawl).split(origin).join(`https://${host}`)) as CrawlResult;
  const home = moved.pages.find((page) => page.url === moved.url) ?? moved.pages[0];
  return home ? { ...moved, companyName: detectCompanyName(home, host) } : moved;
}

/**
 * CALIBRATE_CRAWL_CACHE=<dir> keeps each site's crawls there and reuses them, so a change to the scorer
 * alone is re-scored in seconds instead of re-crawled (a crawler change needs an empty cache). The cached
 * crawl names the origin it was served on, so the same origin is reused for it.
 */
async function cachedCrawl(
  site: CorpusSite,
  mode: "full" | "quick",
  origin: string,
  crawl: () => Promise<CrawlResult>,
): Promise<CrawlResult> {
  const dir = process.env.CALIBRATE_CRAWL_CACHE;
  if (!dir) return crawl();
  const file = join(dir, `${site.name}.${mode}.json`);
  if (existsSync(file)) {
    const cached = JSON.parse(readFileSync(file, "utf8")) as { origin: string; crawl: CrawlResult };
    return JSON.parse(JSON.stringify(cached.crawl).split(cached.origin).join(origin)) as CrawlResult;
  }
  const result = await crawl();
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify({ origin, crawl: result }));
  return result;
}

/** Quotes that are not a substring of the page they cite (an ellipsis marks a cut quote; the part before it must match). */
function dishonestEvidence(result: ScoreResult, crawl: CrawlResult): string[] {
  const pages = new Map(
    crawl.pages.map((page) => [
      page.url,
      `${page.title}\n${page.headings.map((heading) => heading.text).join("\n")}\n${page.text}`,
    ]),
  );
  const bad: string[] = [];
  for (const dimension of result.dimensions) {
    for (const item of dimension.evidenceItems) {
      if (!item.url || item.selfReported || !item.quoted) continue; // an observed fact ("careers page: …"), not a quote
      const text = pages.get(item.url);
      if (text === undefined) {
        bad.push(`${dimension.dimensionId}: "${item.text}" quotes ${item.url}, which was not crawled`);
        continue;
      }
      const quote = item.text.endsWith("…") ? item.text.slice(0, -1) : item.text;
      if (!text.includes(quote)) bad.push(`${dimension.dimensionId}: "${item.text}" (${item.url})`);
    }
  }
  return bad;
}

const rows: Row[] = [];
const failed: string[] = [];
for (const site of sites) {
  try {
    const row = await run(site);
    rows.push(row);
    if (values.dump === site.name || values.dump === "all") dump(row.full);
  } catch (error) {
    failed.push(`${site.name}: ${(error as Error).message}`);
  }
}
await renderer.close();
for (const line of failed) console.log(`NOT CRAWLED ${line}`);

const fmt = (value: number) => (Number.isNaN(value) ? "  n/a" : value.toFixed(2).padStart(5));
console.log(
  `\ncorpus: ${manifestPath} · ${rows.length} sites · heuristic scorer · framework ${rows[0]?.full.frameworkVersion ?? "?"}\n`,
);
console.log("site             kind         judged  total stage         quick  pages  rendered  high  seconds");
for (const row of [...rows].sort((a, b) => b.site.judged - a.site.judged || b.full.totalScore - a.full.totalScore)) {
  const high = row.full.dimensions.filter((dimension) => dimension.confidence === "high").length;
  console.log(
    `${row.site.name.padEnd(16)} ${row.site.kind.padEnd(12)} ${String(row.site.judged).padStart(6)}  ${String(row.full.totalScore).padStart(5)} ${row.full.stageName.padEnd(12)} ${String(row.quick.totalScore).padStart(6)}  ${String(row.full.crawlStats.pagesAnalyzed).padStart(5)}  ${String(row.full.crawlStats.pagesRendered ?? 0).padStart(8)}  ${String(high).padStart(4)}  ${row.seconds.toFixed(1).padStart(7)}`,
  );
}

const rho = (subset: Row[], mode: "full" | "quick" = "full") =>
  spearman(
    subset.map((row) => row.site.judged),
    subset.map((row) => row[mode].totalScore),
  );
const commercial = (subset: Row[]) => subset.filter((row) => row.site.kind === "commercial");
const split = halves(rows.map((row) => ({ name: row.site.name, judged: row.site.judged, row })));
const fit = split.fit.map((entry) => entry.row);
const heldOut = split.heldOut.map((entry) => entry.row);
console.log("\nSpearman ρ          all   commercial   (quick, commercial)");
for (const [label, subset] of [
  ["whole corpus", rows],
  ["fit half", fit],
  ["held-out half", heldOut],
] as const) {
  console.log(
    `${label.padEnd(16)} ${fmt(rho(subset))}   ${fmt(rho(commercial(subset)))}        ${fmt(rho(commercial(subset), "quick"))}`,
  );
}
console.log(
  `halves: fit = ${fit.map((row) => row.site.name).join(", ")}\n        held-out = ${heldOut.map((row) => row.site.name).join(", ")}`,
);

const totals = rows.map((row) => row.full.totalScore);
const spread = Math.max(...totals) - Math.min(...totals);
console.log(`\nspread: ${spread} points (${Math.min(...totals)}–${Math.max(...totals)})`);
const worst = misorderings(
  rows.map((row) => ({ name: row.site.name, judged: row.site.judged, total: row.full.totalScore })),
);
console.log(`misorderings: ${worst.length}${worst.length ? "; costliest:" : ""}`);
for (const item of worst.slice(0, 8))
  console.log(`  ${item.lower} (judged lower) scores ${item.points} above ${item.higher}`);

const level5 = rows.filter((row) => row.site.judged === 5);
const level1 = rows.filter((row) => row.site.judged === 1);
const nondeterministic = rows.filter((row) => !row.deterministic).map((row) => row.site.name);
const dishonest = rows.flatMap((row) => row.dishonest.map((item) => `${row.site.name} ${item}`));
// The evidence selector against the labelled set (calibration/evidence-labels.tsv): full and quick results.
const quotes = rows.flatMap((row) => [...quotesOf(row.site.name, row.full), ...quotesOf(row.site.name, row.quick)]);
const labels = readLabels();
const evidence = precisionOf(quotes, labels);
console.log(
  `\nevidence: ${labels.length} labelled pairs (${labels.filter((label) => label.label === 1).length} relevant, ${labels.filter((label) => label.label === 0).length} not, ${new Set(labels.map((label) => label.dimension)).size} dimensions); ` +
    `${evidence.quotes} quotes shown, ${evidence.labelled} labelled: precision ${fmt(evidence.precision)} (${evidence.relevant} relevant)`,
);
for (const quote of evidence.irrelevant.slice(0, 12))
  console.log(`  beside the point: ${quote.dimension} ← "${quote.sentence.slice(0, 110)}" (${quote.site})`);
if (evidence.unlabelled.length > 0)
  console.log(`  ${evidence.unlabelled.length} quotes not labelled yet (--evidence FILE lists them)`);
if (values.evidence) {
  const seen = new Set<string>();
  const lines = quotes
    .filter((quote) => {
      const key = `${quote.dimension}\u0000${quote.sentence}`;
      return !seen.has(key) && seen.add(key);
    })
    .map(
      (quote) =>
        `${evidence.unlabelled.includes(quote) ? "?" : ""}\t${quote.dimension}\t${quote.site}\t${quote.sentence.replace(/\s+/g, " ")}`,
    );
  writeFileSync(values.evidence, `label\tdimension\tsite\tsentence\n${lines.join("\n")}\n`);
}

const targets: Array<[string, boolean]> = [
  ["ρ commercial ≥ 0.85 (whole and held-out)", rho(commercial(rows)) >= 0.85 && rho(commercial(heldOut)) >= 0.85],
  ["ρ all ≥ 0.75 (whole and held-out)", rho(rows) >= 0.75 && rho(heldOut) >= 0.75],
  ["spread ≥ 50", spread >= 50],
  [
    `every level-5 site ≥ 65 (${level5.length} sites)`,
    level5.length > 0 && level5.every((row) => row.full.totalScore >= 65),
  ],
  [`every level-1 site ≤ 25 (${level1.length} sites)`, level1.every((row) => row.full.totalScore <= 25)],
  ["quick mode ρ commercial ≥ 0.7", rho(commercial(rows), "quick") >= 0.7],
  ["same crawl, same score", nondeterministic.length === 0],
  ["every quote is a substring of its page", dishonest.length === 0],
  [
    "no dimension is both a strength and a gap (full and quick)",
    rows.every((row) =>
      [row.full, row.quick].every((result) => !result.strengths.some((id) => result.gaps.includes(id))),
    ),
  ],
  [`every site crawled (${failed.length} not)`, failed.length === 0],
  [
    `evidence precision ≥ 0.9 on ≥ 300 labelled pairs, every dimension, both kinds, ≥ 90% of quotes labelled`,
    evidence.precision >= 0.9 &&
      labels.length >= 300 &&
      new Set(labels.map((label) => label.dimension)).size === 27 &&
      labels.some((label) => label.label === 0) &&
      evidence.labelled >= 0.9 * evidence.quotes,
  ],
];
console.log("\ntargets");
for (const [label, met] of targets) console.log(`  ${met ? "MET   " : "MISSED"} ${label}`);
if (nondeterministic.length) console.log(`  not deterministic: ${nondeterministic.join(", ")}`);
for (const item of dishonest.slice(0, 10)) console.log(`  not a substring: ${item}`);

if (process.env.CALIBRATE_MATRIX) {
  const sorted = [...rows].sort((a, b) => b.site.judged - a.site.judged);
  console.log(`\n${"".padEnd(26)} ${sorted.map((row) => row.site.name.slice(0, 5).padStart(5)).join(" ")}`);
  console.log(`${"judged".padEnd(26)} ${sorted.map((row) => String(row.site.judged).padStart(5)).join(" ")}`);
  for (const definition of dimensions) {
    const cells = sorted.map((row) => {
      const reading = row.readings.find((entry) => entry.definition.id === definition.id)!;
      return reading.silence
        ? reading.silence.means === "early"
          ? "    ."
          : "    -"
        : String(Math.round(reading.site.raw)).padStart(5);
    });
    const xs = sorted.map((row) => row.site.judged);
    const ys = sorted.map((row) => row.readings.find((entry) => entry.definition.id === definition.id)!.site.raw);
    console.log(`${definition.id.padEnd(26)} ${cells.join(" ")}  ρ=${spearman(xs, ys).toFixed(2)}`);
  }
}

if (process.env.CALIBRATE_MATRIX) {
  const sorted = [...rows].sort((a, b) => b.site.judged - a.site.judged);
  for (const definition of dimensions) {
    const xs = sorted.map((row) => row.site.judged);
    const ys = sorted.map((row) => row.full.dimensions.find((entry) => entry.dimensionId === definition.id)!.score);
    console.log(
      `${definition.id.padEnd(26)} ${ys.map((y) => String(y).padStart(5)).join(" ")}  ρ=${spearman(xs, ys).toFixed(2)}`,
    );
  }
}

if (values.fit) {
  // Control points for framework/population.ts: per dimension, the median and p90 of the
  // evidence strength over the FIT half's sites that showed anything for it.
  const quantile = (sorted: number[], q: number) =>
    sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1) + 0.5))]!;
  console.log("\npopulation curves from the fit half (dimension: [median, p90], n)");
  for (const definition of dimensions) {
    const strengths = fit
      .map((row) => row.readings.find((reading) => reading.definition.id === definition.id)!.site)
      .filter((site) => site.coverage > 0)
      .map((site) => site.raw)
      .sort((a, b) => a - b);
    const median = strengths.length ? Math.max(1, Math.round(quantile(strengths, 0.5))) : 20;
    const p90 = strengths.length ? Math.max(median + 5, Math.round(quantile(strengths, 0.9))) : 50;
    console.log(`  ${definition.id}: [${median}, ${p90}], // n=${strengths.length}`);
  }
}

/** Each dimension's score, confidence, applicability, pillar and evidence-cost override: enough to recompute a total. */
function dimensionDetail(result: ScoreResult) {
  return Object.fromEntries(
    result.dimensions.map((d) => [
      d.dimensionId,
      {
        score: d.score,
        confidence: d.confidence,
        applicable: d.applicable !== false,
        pillar: d.pillar,
        ...(d.evidenceCost ? { evidenceCost: d.evidenceCost } : {}),
      },
    ]),
  );
}

if (values.json) {
  writeFileSync(
    values.json,
    JSON.stringify(
      rows.map((row) => ({
        name: row.site.name,
        kind: row.site.kind,
        judged: row.site.judged,
        asOf: row.asOf,
        total: row.full.totalScore,
        quick: row.quick.totalScore,
        stage: row.full.stageName,
        pages: row.full.crawlStats.pagesAnalyzed,
        dimensions: Object.fromEntries(row.full.dimensions.map((d) => [d.dimensionId, d.score])),
        detail: dimensionDetail(row.full),
        quickDetail: dimensionDetail(row.quick),
        readings: Object.fromEntries(
          row.readings.map((r) => [
            r.definition.id,
            { raw: r.site.raw, coverage: r.site.coverage, silence: r.silence?.means ?? null },
          ]),
        ),
      })),
      null,
      2,
    ),
  );
}

function dump(result: ScoreResult): void {
  console.log(
    `\n${result.url} total ${result.totalScore} ${result.stageName}; strengths ${result.strengths.join(", ")}; gaps ${result.gaps.join(", ")}`,
  );
  for (const page of result.crawledPages) console.log(`  read ${page}`);
  for (const dimension of result.dimensions) {
    console.log(
      `  ${dimension.dimensionId.padEnd(26)} ${String(dimension.score).padStart(3)} ${dimension.confidence.padEnd(6)} ${dimension.reasoning}`,
    );
    // What the reasoning rests on: each quote and where it was read, so a misreading can be traced to its page.
    for (const item of dimension.evidenceItems)
      console.log(`      ← ${item.text}${"url" in item && item.url ? `  (${item.url})` : ""}`);
  }
}
