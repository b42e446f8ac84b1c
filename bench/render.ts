// Reading a client-rendered site, measured beside a floor taken in the same run:
//   baseline  a plain playwright-core loop over the same 25 addresses: launch once, then goto + content() each;
//   service   the real crawler with its renderer over the same 25-route app (HTTP fetch of each shell, shell
//             detection, render through the guarded proxy, settle on a quiet network, extraction), from a cold
//             browser, exactly as a scoring job reads such a site.
// Budget: service wall time ≤ 1.3× the baseline (median of the rounds' ratios); peak memory of the
// crawling process plus its browser < 700 MB; 20 rendered crawls in a row leave no Chromium process behind and
// memory ends flat. Each phase runs in a fresh process, measured from outside with its whole process tree; the
// phases run compiled (dist/bench/render-phase.js), as the worker does. The
// memory budget is read as PSS (each shared page counted once: Chromium's processes map the same 150 MB binary,
// which a sum of RSS counts once per process), and the RSS sum is printed beside it.
//
//   npm run bench:render        (BENCH_ROUNDS=3, BENCH_CRAWLS=20; CHROMIUM_PATH or chromium on PATH)

import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { createCrawler, createRenderer } from "../src/modules/crawl/crawler.factory.js";
import { locateBrowser } from "../src/platform/browser-locator.js";
import { browserProcesses, processTree, proportionalBytes } from "../src/modules/crawl/render/process-memory.js";
import type { BrowserRenderer } from "../src/modules/crawl/render/renderer.js";
import { appSite, type AppSite } from "../test/fixtures/spa-sites.js";
import { FixtureSites, fixtureResolver } from "../test/support/fixture-sites.js";

const ROUTES = 25;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CRAWLS = Number(process.env.BENCH_CRAWLS ?? 20);
const HOST = "render.bench.test";

const browser = locateBrowser(process.env);
if (!browser) {
  console.error("no browser: set CHROMIUM_PATH or install chromium (see README)");
  process.exit(2);
}

/** A 25-route product app: each route a page of about 2 KB of words, the bundle padded to about 300 KB as real ones are. */
function benchApp(): AppSite {
  const topics = [
    "pricing",
    "security",
    "customers",
    "careers",
    "changelog",
    "integrations",
    "docs",
    "about",
    "status",
    "privacy",
    "enterprise",
    "partners",
    "blog",
    "community",
    "support",
    "api",
    "sdk",
    "compliance",
    "press",
    "events",
    "team",
    "roadmap",
    "terms",
    "contact",
  ];
  const paragraph = (topic: string, i: number) =>
    `<p>Section ${i} of the ${topic} page explains how Benchly helps payment teams trace every transaction, with audit logs, single sign-on and a 99.99% uptime SLA for enterprise customers in 40 countries.</p>`;
  return {
    brand: "Benchly",
    description: "Benchly is a benchmark product.",
    footer: "© 2026 Benchly Inc.",
    routes: [
      {
        path: "/",
        title: "Benchly",
        html: `<h1>Benchly</h1>${Array.from({ length: 10 }, (_, i) => paragraph("home", i)).join("")}`,
      },
      ...topics.slice(0, ROUTES - 1).map((topic) => ({
        path: `/${topic}`,
        title: topic[0]!.toUpperCase() + topic.slice(1),
        html: `<h1>${topic}</h1>${Array.from({ length: 10 }, (_, i) => paragraph(topic, i)).join("")}`,
      })),
    ],
  };
}

function site() {
  const pages = appSite(benchApp(), "history");
  const bundle = Object.keys(pages).find((path) => path.startsWith("/assets/index-"))!;
  const route = pages[bundle] as { headers: Record<string, string>; body: string };
  // A vendor bundle's worth of code the browser parses and runs before the app draws.
  const filler = `var vendor = [${Array.from({ length: 6_000 }, (_, i) => `function v${i}(a){return a*${i}+${i % 7}}`).join(",")}];`;
  pages[bundle] = { ...route, body: `${filler}\n${route.body}` };
  return pages;
}

interface Sample {
  peakRssMb: number;
  peakPssMb: number;
}

/** Samples a process and everything below it (a worker and its browser) every 100 ms until stopped; answers the peaks. */
function sampler(pid: number): { stop(): Sample } {
  let peakRss = 0;
  let peakPss = 0;
  let parts = "";
  const take = () => {
    const tree = processTree(pid);
    peakRss = Math.max(
      peakRss,
      tree.reduce((sum, item) => sum + item.rss, 0),
    );
    const pss = tree.map((item) => ({ ...item, pss: proportionalBytes(item.pid) ?? item.rss }));
    const total = pss.reduce((sum, item) => sum + item.pss, 0);
    if (total > peakPss) {
      peakPss = total;
      parts = pss
        .map((item) => `${item.type === "other" ? commandOf(item.pid) : item.type}:${(item.pss / 1048576).toFixed(0)}`)
        .join(" ");
    }
  };
  const timer = setInterval(take, 100);
  return {
    stop() {
      clearInterval(timer);
      if (process.env.BENCH_VERBOSE) console.log(`    at the peak: ${parts}`);
      return { peakRssMb: peakRss / 1048576, peakPssMb: peakPss / 1048576 };
    },
  };
}

/** A process's program name ("node", "esbuild") for the breakdown. */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
}

const config = (port: number) => ({
  version: "bench",
  crawl: { maxPages: ROUTES, ssrfAllowlist: ["127.0.0.1/32", "*.test"], browser: browser! },
  port,
});
const addresses = (port: number) => [
  `http://${HOST}:${port}/`,
  ...benchApp()
    .routes.slice(1)
    .map((route) => `http://${HOST}:${port}${route.path}`),
];

/** Limits to try (BENCH_SETTLE_MS, BENCH_PAGES_AT_ONCE); the service's defaults otherwise. */
const tried = {
  ...(process.env.BENCH_SETTLE_MS ? { settleQuietMs: Number(process.env.BENCH_SETTLE_MS) } : {}),
  ...(process.env.BENCH_PAGES_AT_ONCE ? { pagesAtOnce: Number(process.env.BENCH_PAGES_AT_ONCE) } : {}),
};

const PHASE = fileURLToPath(new URL("../dist/bench/render-phase.js", import.meta.url));

/** Runs a phase in a fresh process (with the worker's V8 flags), sampling its memory and its browser's from outside. */
function measured(name: string, port: number): Promise<{ ms: number; pages: number; rendered: number } & Sample> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--max-semi-space-size=32", PHASE, name, JSON.stringify({ host: HOST, urls: addresses(port) })],
      { stdio: ["ignore", "pipe", "inherit"], env: process.env },
    );
    const memory = sampler(child.pid!);
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.once("exit", (code) => {
      const sample = memory.stop();
      if (code !== 0) return reject(new Error(`${name} phase exited ${code}`));
      resolve({
        ...(JSON.parse(out.trim().split("\n").at(-1)!) as { ms: number; pages: number; rendered: number }),
        ...sample,
      });
    });
  });
}

if (!existsSync(PHASE)) {
  console.error("dist/bench/render-phase.js is missing: npm run build (npm run bench:render does)");
  process.exit(2);
}

const sites = await new FixtureSites({ [HOST]: site() }).start();
const quiet = pino({ level: "warn" });
console.log(`bench:render · ${ROUTES}-route client-rendered app · ${browser.path} · ${ROUNDS} rounds\n`);
console.log(
  "round  baseline ms  service ms  ratio   pages read/rendered  peak PSS MB (base / service)  peak RSS sum MB (base / service)",
);
const ratios: number[] = [];
const peaks: number[] = [];
for (let round = 1; round <= ROUNDS; round += 1) {
  const base = await measured("baseline", sites.port);
  const ours = await measured("service", sites.port);
  ratios.push(ours.ms / base.ms);
  peaks.push(ours.peakPssMb);
  console.log(
    `${String(round).padStart(5)}  ${base.ms.toFixed(0).padStart(11)}  ${ours.ms.toFixed(0).padStart(10)}  ${(ours.ms / base.ms).toFixed(2).padStart(5)}×  ${`${ours.pages}/${ours.rendered}`.padStart(19)}  ${`${base.peakPssMb.toFixed(0)} / ${ours.peakPssMb.toFixed(0)}`.padStart(28)}  ${`${base.peakRssMb.toFixed(0)} / ${ours.peakRssMb.toFixed(0)}`.padStart(28)}`,
  );
}
const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
console.log(`\nwall time: median ratio ${median.toFixed(2)}× (budget ≤ 1.3×): ${median <= 1.3 ? "MET" : "MISSED"}`);
const medianPeak = [...peaks].sort((a, b) => a - b)[Math.floor(peaks.length / 2)]!;
console.log(
  `peak memory of the crawling process and its browser (PSS: shared pages counted once): max ${Math.max(...peaks).toFixed(0)} MB, median ${medianPeak.toFixed(0)} MB (budget < 700 MB at the max): ${Math.max(...peaks) < 700 ? "MET" : "MISSED"}`,
);

// 20 rendered crawls in a row on one renderer, as a worker does: processes and memory after each.
const renderer = createRenderer(config(sites.port), quiet, {
  resolver: fixtureResolver(),
  limits: tried,
}) as BrowserRenderer;
const crawler = createCrawler(config(sites.port), { resolver: fixtureResolver(), renderer });
const urls = addresses(sites.port);
const marker = (renderer as unknown as { marker: string }).marker;
const after: Array<{ processes: number; renderers: number; browserMb: number; heapMb: number }> = [];
for (let i = 0; i < CRAWLS; i += 1) {
  await crawler.crawl(urls[0]!);
  await new Promise((resolve) => setTimeout(resolve, 200));
  (globalThis as { gc?: () => void }).gc?.();
  const tree = browserProcesses(marker);
  after.push({
    processes: tree.length,
    renderers: tree.filter((item) => item.type === "renderer").length,
    browserMb: tree.reduce((sum, item) => sum + item.rss, 0) / 1048576,
    heapMb: process.memoryUsage().heapUsed / 1048576,
  });
}
await renderer.close();
await new Promise((resolve) => setTimeout(resolve, 500));
const left = browserProcesses(marker).length;
console.log(`\n${CRAWLS} rendered crawls in a row (one browser, a context per crawl), after each crawl:`);
console.log(`  browser processes: ${after.map((item) => item.processes).join(" ")}`);
console.log(`  of which renderers: ${after.map((item) => item.renderers).join(" ")}`);
console.log(`  browser RSS MB:     ${after.map((item) => item.browserMb.toFixed(0)).join(" ")}`);
console.log(
  `  this heap MB:       ${after.map((item) => item.heapMb.toFixed(1)).join(" ")}${(globalThis as { gc?: unknown }).gc ? " (after a forced GC)" : " (run with --expose-gc for post-GC figures)"}`,
);
const firstHalf = after.slice(2, Math.floor(CRAWLS / 2)).map((item) => item.browserMb);
const secondHalf = after.slice(Math.floor(CRAWLS / 2)).map((item) => item.browserMb);
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
console.log(
  `  browser RSS, mean of crawls 3–${Math.floor(CRAWLS / 2)} vs ${Math.floor(CRAWLS / 2) + 1}–${CRAWLS}: ${mean(firstHalf).toFixed(0)} → ${mean(secondHalf).toFixed(0)} MB`,
);
console.log(`  Chromium processes left after close: ${left} (${left === 0 ? "MET" : "MISSED"})`);
await sites.stop();
