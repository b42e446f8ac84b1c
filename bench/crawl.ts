// The crawler's hot path, measured beside floors taken in the same run:
//   1. plain `got` fetching the same pages with no parsing (network + HTTP floor),
//   2. parse5 alone parsing the same pages (the parser floor),
//   3. the real crawler (fetch + decode + extraction) over a generated 200-page site,
// for two page mixes: marketing/docs-like pages (about a third visible text) and a
// text-dense worst case (about 70% text, a date in every section).
// Budget: crawler median CPU per page ≤ 2× the parse5 floor; peak RSS < 300 MB.
// The "fetches" column counts the requests the site answered in each phase.
// The site is served by a child process so its CPU is not counted here. Phases run
// with the service's own V8 flags (npm start): a 32 MB young generation lets each
// page's parse tree die young instead of being promoted (without it, about one
// run in five flipped into a mode with ~18 ms/page and ~400 MB peak RSS).
//
// The three phases run BENCH_ROUNDS times (default 3), interleaved; the verdict is
// the median of the rounds' ratios, each round's rows printed.
//
//   npm run bench:crawl

import { fork, type ChildProcess } from "node:child_process";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import got from "got";
import { parse } from "parse5";
import { createCrawler } from "../src/modules/crawl/crawler.factory.js";
import { productPage } from "./pages.js";

const PAGES = 200;
const HOST = "bench.test";

export type PageSet = "marketing" | "text-dense";

/**
 * A text-dense 100–200 KB page (about 70% visible text, a dated line in every
 * section): the worst case for extraction, whose cost grows with the text.
 */
export function denseHtml(index: number): string {
  const target = 100_000 + ((index * 7919) % 100_000);
  const links = Array.from({ length: 40 }, (_, i) => `<a href="/page-${(index * 13 + i) % PAGES}">Page ${i}</a>`).join(
    " ",
  );
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${index} | Bench</title>
    <meta name="description" content="Benchmark page ${index}"><meta property="og:site_name" content="Bench">
    <style>${".c{color:red}".repeat(400)}</style><script>${"var x=1;".repeat(800)}</script></head><body>
    <header><nav><a href="/">Home</a><a href="/pricing">Pricing</a><a href="/docs">Docs</a><a href="/blog">Blog</a></nav></header><main><h1>Page ${index}</h1>`;
  const tail = `<p>${links}</p></main><footer><a href="/about">About</a> © 2026 Bench Inc.</footer></body></html>`;
  const chunks: string[] = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < target; i += 1) {
    const block =
      i % 5 === 4
        ? `<table><tr><td>Plan ${i}</td><td>$${i}/month</td></tr><tr><td>Seats</td><td>${i * 3}</td></tr></table>`
        : `<section><h2>Section ${i}</h2><p>Our platform helps teams ship reliable software faster. Updated March ${(i % 28) + 1}, 2026. ` +
          `Customers report ${i}% fewer incidents with audit logs, SSO and role-based access.</p></section>`;
    chunks.push(block);
    size += block.length;
  }
  chunks.push(tail);
  return chunks.join("\n");
}

/**
 * Serves `/page-0` … `/page-199` (the pages the floors read) and, like a real site,
 * a page of its own at every other address its pages link to (generated from the
 * address, same generator and sizes), so no link leads to a 404 and no two
 * addresses share a page. With BENCH_CATCH_ALL=1 every other address answers one
 * of the 200 pages instead (a catch-all site): reading 200 distinct pages then
 * means collecting all 200 through random addresses, about a thousand fetches
 * (200 × H(200) ≈ 1,176 expected), and the figure is mostly that.
 */
export function serve(set: PageSet): void {
  const make = set === "marketing" ? productPage : denseHtml;
  const catchAll = process.env.BENCH_CATCH_ALL === "1";
  // No canonical links: every path served is its own page, none is skipped as a duplicate.
  const page = (seed: number) => make(seed).replace(/<link rel="canonical"[^>]*>/, "");
  const pages = Array.from({ length: PAGES }, (_, i) => page(i));
  const others = new Map<string, string>();
  const index = `<!doctype html><title>Bench</title><body>${Array.from({ length: PAGES }, (_, i) => `<a href="/page-${i}">p${i}</a>`).join(" ")}</body>`;
  // Requests answered, reported and reset when the parent asks (after each phase).
  let requests = 0;
  process.on("message", (message) => {
    if (message === "requests") process.send?.({ requests }, () => (requests = 0));
  });
  createServer((request, response) => {
    requests += 1;
    const path = (request.url ?? "/").split("?")[0] ?? "/";
    if (path === "/robots.txt" || path === "/sitemap.xml" || path.startsWith("/.well-known/"))
      return void response.writeHead(404).end();
    const match = /^\/page-(\d+)$/.exec(path);
    let body: string | undefined;
    if (path === "/") body = index;
    else if (match) body = pages[Number(match[1]) % PAGES];
    else if (catchAll) body = pages[hash(path) % PAGES];
    else {
      body = others.get(path);
      if (body === undefined) others.set(path, (body = page(PAGES + (hash(path) % 1_000_000))));
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
  }).listen(0, "127.0.0.1", function (this: import("node:net").Server) {
    const address = this.address();
    const port = typeof address === "object" && address ? address.port : 0;
    if (process.send) process.send({ port });
    else console.log(`serving on ${port}`);
  });
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

const cpuMs = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

let startRss = 0;
function rssSampler() {
  startRss = process.memoryUsage().rss;
  let peak = startRss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  return () => (clearInterval(timer), Math.max(peak, process.memoryUsage().rss));
}

interface Row {
  name: string;
  pages: number;
  seconds: number;
  median: number;
  p95: number;
  mean: number;
  startMb: number;
  peakMb: number;
  /** Requests the site answered during the phase (robots.txt and the like included). */
  requests?: number;
}

/** Each phase runs in a fresh process, so one phase's heap does not inflate another's peak RSS. */
async function phase(name: "got" | "parse5" | "crawl", port: number): Promise<Row> {
  const urls = Array.from({ length: PAGES }, (_, i) => `http://127.0.0.1:${port}/page-${i}`);
  const samples: number[] = [];
  if (name === "got") {
    const peak = rssSampler();
    const started = performance.now();
    for (const url of urls) {
      const cpu = process.cpuUsage();
      await got(url).text();
      samples.push(cpuMs(cpu));
    }
    return row("got fetch only (floor)", samples, started, peak());
  }
  if (name === "parse5") {
    const bodies: string[] = [];
    for (const url of urls) bodies.push(await got(url).text());
    const peak = rssSampler();
    const started = performance.now();
    for (const body of bodies) {
      const cpu = process.cpuUsage();
      parse(body);
      samples.push(cpuMs(cpu));
      await new Promise((resolve) => setImmediate(resolve));
    }
    return row("parse5 parse only (floor)", samples, started, peak());
  }
  const crawler = createCrawler(
    { version: "bench", crawl: { maxPages: PAGES, ssrfAllowlist: ["127.0.0.1/32", HOST] } },
    // One request at a time, so the CPU between two progress events is exactly one page's cost.
    { resolver: async () => [{ address: "127.0.0.1", family: 4 }], budgetMs: 300_000, concurrency: 1 },
  );
  const peak = rssSampler();
  const started = performance.now();
  let cpu = process.cpuUsage();
  const result = await crawler.crawl(`http://${HOST}:${port}/`, {
    onProgress: () => {
      samples.push(cpuMs(cpu));
      cpu = process.cpuUsage();
    },
  });
  return row(`crawler (${result.crawlStats.pagesAnalyzed} pages)`, samples, started, peak());
}

function runPhase(name: string, port: number): Promise<Row> {
  const child = fork(fileURLToPath(import.meta.url), ["--phase", name, String(port)], { execArgv: process.execArgv });
  return new Promise((resolve, reject) => {
    child.once("message", (message: Row) => resolve(message));
    child.once("exit", (code) => reject(new Error(`phase ${name} exited ${code}`)));
  });
}

/** Rounds of the three phases, interleaved: a floor measured in a slow moment of the host is one round's, not the verdict. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3) || 3);

async function main(): Promise<void> {
  const results: Array<{ set: PageSet; rounds: Row[][] }> = [];
  for (const set of ["marketing", "text-dense"] as const) {
    const server: ChildProcess = fork(fileURLToPath(import.meta.url), ["--serve", set], { execArgv: process.execArgv });
    const port = await new Promise<number>((resolve) =>
      server.once("message", (message: { port: number }) => resolve(message.port)),
    );
    const rounds: Row[][] = [];
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const rows: Row[] = [];
        for (const name of ["got", "parse5", "crawl"]) {
          const measured = await runPhase(name, port);
          measured.requests = await new Promise<number>((resolve) => {
            const onMessage = (message: { requests?: number }) => {
              if (message.requests === undefined) return;
              server.off("message", onMessage);
              resolve(message.requests);
            };
            server.on("message", onMessage);
            server.send("requests");
          });
          rows.push(measured);
        }
        rounds.push(rows);
      }
    } finally {
      server.kill();
    }
    results.push({ set, rounds });
  }

  console.log(
    `\n${PAGES} pages of 100–200 KB on 127.0.0.1, Node ${process.version}; each phase in its own process; ${ROUNDS} round(s) of the three phases, interleaved; ` +
      (process.env.BENCH_CATCH_ALL === "1"
        ? "catch-all site (every other address answers one of the 200 pages)"
        : "every address its own page"),
  );
  for (const { set, rounds } of results) {
    console.log(`\n${set} pages`);
    console.log(
      "round target                          pages  fetches   pages/s   CPU ms/page: median    p95   mean   RSS MB: start   peak   median vs parse5",
    );
    rounds.forEach((rows, index) => {
      const parseFloor = rows[1]!.median;
      for (const r of rows) {
        console.log(
          `${String(index + 1).padStart(5)} ${r.name.padEnd(30)} ${String(r.pages).padStart(6)} ${String(r.requests ?? "").padStart(8)} ${(r.pages / r.seconds).toFixed(1).padStart(9)} ${r.median.toFixed(2).padStart(20)} ${r.p95.toFixed(2).padStart(6)} ${r.mean.toFixed(2).padStart(6)} ${r.startMb.toFixed(0).padStart(15)} ${r.peakMb.toFixed(0).padStart(6)} ${(r.median / parseFloor).toFixed(2).padStart(17)}×`,
        );
      }
    });
    const ratios = rounds.map((rows) => rows[2]!.median / rows[1]!.median);
    const ratio = percentile(ratios, 50);
    const beyondFetch = percentile(
      rounds.map((rows) => (rows[2]!.median - rows[0]!.median) / rows[1]!.median),
      50,
    );
    const peak = Math.max(...rounds.map((rows) => rows[2]!.peakMb));
    console.log(
      `rounds' ratios: ${ratios.map((value) => `${value.toFixed(2)}×`).join(", ")}; crawler beyond the got fetch floor (median round): ${beyondFetch.toFixed(2)}× parse5`,
    );
    console.log(
      `budget: median ≤ 2× parse5 (median of the rounds) → ${ratio.toFixed(2)}× ${ratio <= 2 ? "MET" : "MISSED"}; peak RSS < 300 MB (highest round) → ${peak.toFixed(0)} MB ${peak < 300 ? "MET" : "MISSED"}`,
    );
  }
}

function row(name: string, samples: number[], started: number, peakBytes: number): Row {
  return {
    name,
    pages: samples.length,
    seconds: (performance.now() - started) / 1000,
    median: percentile(samples, 50),
    p95: percentile(samples, 95),
    mean: samples.reduce((sum, value) => sum + value, 0) / Math.max(1, samples.length),
    startMb: startRss / 1024 / 1024,
    peakMb: peakBytes / 1024 / 1024,
  };
}

const phaseIndex = process.argv.indexOf("--phase");
const serveIndex = process.argv.indexOf("--serve");
// Imported (scripts/crawl-equivalence.ts reads the same pages), the file only defines.
const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isEntry && serveIndex > 0) serve((process.argv[serveIndex + 1] ?? "marketing") as PageSet);
else if (isEntry && phaseIndex > 0) {
  const result = await phase(
    process.argv[phaseIndex + 1] as "got" | "parse5" | "crawl",
    Number(process.argv[phaseIndex + 2]),
  );
  // Run by hand (e.g. under --cpu-prof) a phase prints its row instead of reporting to a parent.
  if (process.send) process.send(result, () => process.exit(0));
  else console.log(JSON.stringify(result));
} else if (isEntry) await main();
