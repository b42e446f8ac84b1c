// Every crawl the equivalence check scores: the committed calibration snapshots, the
// calibration and crawler fixture sites (extracted like the crawler does), the bench's
// three corpora, crawls captured from the scoring tests (capture-setup.ts) and seeded
// random crawls whose text is stitched from the rubric patterns' own words.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CrawlResult, ExtractedPage, OutboundKind, OutboundLink } from "../../src/modules/crawl/crawl.types.js";
import { extractPage } from "../../src/modules/crawl/extract.js";
import { SCORED_TEXT_PER_PAGE } from "../../src/modules/scoring/site-facts.js";
import type { FrameworkId, ScoreMode } from "../../src/modules/scoring/scoring.types.js";
import { calibrationSites } from "../../test/fixtures/calibration-sites.js";
import { acmeSite } from "../../test/fixtures/crawl-sites.js";
import type { Site } from "../../test/support/fixture-sites.js";
import { syntheticCrawl, type PageSpec } from "../../test/support/synthetic-crawl.js";
import { crawlOf as benchCrawl, scoreBenchCorpora } from "../../bench/score-corpora.js";
import { rng } from "../../bench/pages.js";
import { fuzzText, rubricPhrases } from "./fuzz.js";

export interface EquivalenceInput {
  readonly name: string;
  readonly crawl: CrawlResult;
  readonly context?: string;
  readonly framework: FrameworkId;
  readonly mode: ScoreMode;
}

const root = join(import.meta.dirname, "../..");

function crawlOf(
  origin: string,
  pages: ExtractedPage[],
  crawledAt = "2026-11-01T00:00:00.000Z",
  outbound: OutboundLink[] = [],
): CrawlResult {
  return {
    url: `${origin}/`,
    crawledAt,
    companyName: "Fixture",
    pages,
    crawledPages: pages.map((page) => page.url),
    outboundLinks: outbound,
    crawlStats: {
      pagesAnalyzed: pages.length,
      contentLength: pages.reduce((sum, page) => sum + page.text.length, 0),
      failures: [],
      durationMs: 0,
      partial: false,
      pagesPlanned: pages.length,
      robotsTxt: "found",
      sitemapUrls: 0,
      securityTxt: pages.length % 2 === 0,
      skippedByRobots: 0,
    },
  };
}

function siteCrawl(origin: string, site: Site, crawledAt?: string): CrawlResult | undefined {
  const pages: ExtractedPage[] = [];
  // The home page first, as the crawler answers it.
  const entries = Object.entries(site).sort(([a], [b]) => (a === "/" ? -1 : b === "/" ? 1 : 0));
  for (const [path, route] of entries) {
    if (
      typeof route !== "string" &&
      (route.body === undefined ||
        (route.headers?.["content-type"]?.startsWith("text/") &&
          !route.headers["content-type"].startsWith("text/html")))
    )
      continue;
    const body = typeof route === "string" ? route : String(route.body);
    pages.push(extractPage({ url: `${origin}${path}`, status: 200, body, kind: "html", headers: {} }));
  }
  if (pages.length === 0 || !pages[0]!.url.endsWith("/")) return undefined;
  return crawlOf(origin, pages, crawledAt);
}

function fixtureSites(): Array<{ name: string; crawl: CrawlResult }> {
  const out: Array<{ name: string; crawl: CrawlResult }> = [];
  for (const site of calibrationSites) {
    const crawl = siteCrawl(`https://${site.host}`, site.pages);
    if (crawl) out.push({ name: `calibration-site ${site.host}`, crawl });
  }
  for (const [host, site] of Object.entries(acmeSite("https://acme.test"))) {
    const crawl = siteCrawl(`https://${host}`, site);
    if (crawl) out.push({ name: `crawl-site ${host}`, crawl });
  }
  return out;
}

function snapshots(): Array<{ name: string; crawl: CrawlResult }> {
  const dir = join(root, "test/fixtures/calibration-snapshots");
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .map((file) => ({
      name: `snapshot ${file}`,
      crawl: (JSON.parse(readFileSync(join(dir, file), "utf8")) as { crawl: CrawlResult }).crawl,
    }));
}

function benchCorpora(): Array<{ name: string; crawl: CrawlResult }> {
  return scoreBenchCorpora().map(({ name, pages }) => ({ name: `bench ${name}`, crawl: benchCrawl(pages) }));
}

function captured(files: readonly string[]): EquivalenceInput[] {
  const out: EquivalenceInput[] = [];
  for (const file of files) {
    if (!existsSync(file)) throw new Error(`no capture file ${file}`);
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .forEach((line, index) => {
        const entry = JSON.parse(line) as {
          crawl: CrawlResult;
          context?: string;
          mode?: ScoreMode;
          framework?: FrameworkId;
        };
        out.push({
          name: `captured ${file}:${index + 1}`,
          crawl: entry.crawl,
          ...(entry.context === undefined ? {} : { context: entry.context }),
          framework: entry.framework ?? "maturity",
          mode: entry.mode ?? "full",
        });
      });
  }
  return out;
}

// ------------------------------------------------------------------ seeded random crawls

const PATHS = [
  "/pricing",
  "/plans",
  "/docs",
  "/docs/getting-started",
  "/docs/api",
  "/api",
  "/reference",
  "/changelog",
  "/releases",
  "/security",
  "/trust",
  "/privacy",
  "/careers",
  "/jobs",
  "/customers",
  "/case-studies/acme",
  "/integrations",
  "/status",
  "/blog",
  "/blog/2020/05/27/launch",
  "/news/2026-10-01-update",
  "/about",
  "/company",
  "/team",
  "/team/jane-doe",
  "/vs/zendesk",
  "/compare/intercom",
  "/alternatives/x",
  "/community",
  "/partners",
  "/enterprise",
  "/features",
  "/product",
  "/solutions/healthcare",
  "/contact",
  "/demo",
  "/terms",
  "/dpa",
  "/sla",
  "/gdpr",
  "/ai",
  "/research",
  "/webinars",
];
const EXTERNAL = [
  "https://github.com/acme/acme",
  "https://gitlab.com/acme",
  "https://boards.greenhouse.io/acme",
  "https://jobs.lever.co/acme",
  "https://acme.ashbyhq.com/",
  "https://discord.gg/acme",
  "https://twitter.com/acme",
  "https://x.com/acme",
  "https://www.linkedin.com/company/acme",
  "https://www.youtube.com/@acme",
  "https://status.acme-status.io/",
  "https://acme.statuspage.io",
  "https://trust.acme.com",
  "https://docs.acme.com/",
  "https://developers.acme.com/api",
  "https://apps.apple.com/app/acme/id1",
  "https://play.google.com/store/apps/details?id=acme",
  "https://community.acme.com",
  "https://forum.acme.com/t/1",
  "https://www.g2.com/products/acme/reviews",
  "https://www.capterra.com/p/1/acme",
  "https://www.producthunt.com/posts/acme",
  "https://npmjs.com/package/acme",
  "https://pypi.org/project/acme",
  "https://hub.docker.com/r/acme/acme",
  "https://marketplace.visualstudio.com/items?itemName=acme",
  "https://zapier.com/apps/acme",
];
const KINDS: OutboundKind[] = ["status_page", "github", "app_store", "trust_center", "social", "docs_host", "other"];

function fuzzCrawl(seed: number, phrases: readonly string[]): CrawlResult {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const some = <T>(items: readonly T[], max: number): T[] =>
    Array.from({ length: Math.floor(random() * (max + 1)) }, () => pick(items));
  const pageCount = 1 + Math.floor(random() * (random() < 0.3 ? 25 : 8));
  const lengthScale = random() < 0.15 ? SCORED_TEXT_PER_PAGE * 1.5 : random() < 0.5 ? 3000 : 800;
  const specs: PageSpec[] = [];
  const used = new Set<string>();
  for (let i = 0; i < pageCount; i += 1) {
    let path = i === 0 ? "/" : pick(PATHS);
    if (used.has(path)) path = `${path}${path.endsWith("/") ? "" : "/"}${i}`;
    used.add(path);
    const year = 2014 + Math.floor(random() * 14);
    const date = () =>
      `${2014 + Math.floor(random() * 14)}-${String(1 + Math.floor(random() * 12)).padStart(2, "0")}-${String(1 + Math.floor(random() * 28)).padStart(2, "0")}`;
    specs.push({
      path,
      title: random() < 0.8 ? fuzzText(random, phrases, 10).slice(0, 70).trim() : "",
      text: random() < 0.05 ? "" : fuzzText(random, phrases, Math.floor(random() * lengthScale)),
      headings: some(phrases, 6).map((phrase) =>
        random() < 0.5 ? phrase : { level: pick([1, 2, 3] as const), text: fuzzText(random, phrases, 20).trim() },
      ),
      boilerplate:
        random() < 0.6 ? [`${pick(["©", "(c)", "Copyright", "© 2012–"])} ${year} Acme Inc. ${pick(phrases)}`] : [],
      prices:
        random() < 0.2
          ? some([9, 19, 49, 0, 99, 1200], 3).map((amount) => ({ amount, currency: pick(["USD", "EUR", "GBP"]) }))
          : [],
      dates: some([date(), date(), "2026-10-30", "2027-01-01"], 4),
      links: some(PATHS, 6),
      navLinks: some(PATHS, 8),
      namedLinks: some(EXTERNAL.concat(PATHS), 6).map((href) => ({
        href,
        text: random() < 0.5 ? pick(phrases) : href,
        inNav: random() < 0.3,
      })),
      externalLinks: some(EXTERNAL, 5),
      metaDescription: random() < 0.5 ? fuzzText(random, phrases, 60).slice(0, 160) : "",
      jsonLd:
        random() < 0.2
          ? [
              {
                type: pick(["Organization", "SoftwareApplication", "Product", "FAQPage"]),
                name: "Acme",
                properties: { foundingDate: String(year), aggregateRating: "4.5" },
              },
            ]
          : [],
      hsts: random() < 0.5,
      csp: random() < 0.3,
    });
  }
  const crawl = syntheticCrawl(specs, {
    crawledAt: pick(["2026-11-01T00:00:00.000Z", "2021-06-15T12:00:00.000Z", "2024-02-29T23:59:59.000Z"]),
    securityTxt: random() < 0.4,
    outbound: some(EXTERNAL, 6).map((url) => ({ url, kind: pick(KINDS), foundOn: "https://acme.example/" })),
  });
  if (random() < 0.2)
    return {
      ...crawl,
      crawlStats: { ...crawl.crawlStats, partial: true, pagesPlanned: crawl.crawlStats.pagesPlanned + 5 },
    };
  return crawl;
}

export function equivalenceInputs(options: { fuzz: number; captureFiles: readonly string[] }): EquivalenceInput[] {
  const phrases = rubricPhrases();
  const contextRandom = rng(7);
  const base = [
    ...snapshots(),
    ...fixtureSites(),
    ...benchCorpora(),
    ...Array.from({ length: options.fuzz }, (_, seed) => ({
      name: `fuzz seed ${seed}`,
      crawl: fuzzCrawl(seed, phrases),
    })),
  ];
  const inputs: EquivalenceInput[] = [];
  base.forEach(({ name, crawl }, index) => {
    inputs.push({ name, crawl, framework: "maturity", mode: "full" });
    // Every third crawl again in the other framework and quick mode, with self-reported context.
    if (index % 3 === 0)
      inputs.push({
        name: `${name} (product, quick, context)`,
        crawl,
        framework: "product",
        mode: "quick",
        context: fuzzText(contextRandom, phrases, 400),
      });
  });
  inputs.push(...captured(options.captureFiles));
  return inputs;
}
