// One phase of bench:render in a process of its own, as the worker runs: compiled (`npm run build` puts it in
// dist/bench), with the worker's V8 flags, so the memory measured from outside is the worker's and not a
// TypeScript loader's (tsx holds ~30 MB of transformed sources). Answers its figures as JSON on stdout.
//
//   node --max-semi-space-size=32 dist/bench/render-phase.js <baseline|service> '<{"host","urls"}>'

import { chromium } from "playwright-core";
import { pino } from "pino";
import { createCrawler, createRenderer } from "../src/modules/crawl/crawler.factory.js";
import { locateBrowser } from "../src/platform/browser-locator.js";

const [name, json] = process.argv.slice(2);
const { host, urls } = JSON.parse(json ?? "{}") as { host: string; urls: string[] };
const browser = locateBrowser(process.env);
if (!browser || !urls?.length) {
  console.error('usage: render-phase <baseline|service> \'{"host","urls"}\' (with a browser)');
  process.exit(2);
}

/** The bench's host names resolve to this machine, as the test suite's do. */
const resolver = async (hostname: string) => (hostname === host ? [{ address: "127.0.0.1", family: 4 as const }] : []);
const config = {
  version: "bench",
  crawl: { maxPages: urls.length, ssrfAllowlist: ["127.0.0.1/32", "*.test"], browser },
};
/** Limits to try (BENCH_SETTLE_MS, BENCH_PAGES_AT_ONCE); the service's defaults otherwise. */
const tried = {
  ...(process.env.BENCH_SETTLE_MS ? { settleQuietMs: Number(process.env.BENCH_SETTLE_MS) } : {}),
  ...(process.env.BENCH_PAGES_AT_ONCE ? { pagesAtOnce: Number(process.env.BENCH_PAGES_AT_ONCE) } : {}),
};

const started = performance.now();
if (name === "baseline") {
  // The floor: launch once, then goto + content() for each address, one tab, nothing else.
  const plain = await chromium.launch({
    executablePath: browser.path,
    args: [`--host-resolver-rules=MAP ${host} 127.0.0.1`],
  });
  const page = await plain.newPage();
  let characters = 0;
  for (const url of urls) {
    await page.goto(url);
    characters += (await page.content()).length;
  }
  const ms = performance.now() - started;
  await plain.close();
  if (characters < urls.length * 1_000) throw new Error("the baseline read empty pages");
  console.log(JSON.stringify({ ms, pages: urls.length, rendered: urls.length }));
} else {
  const renderer = createRenderer(config, pino({ level: "warn" }), { resolver, limits: tried });
  const crawl = await createCrawler(config, { resolver, renderer }).crawl(urls[0]!);
  const ms = performance.now() - started;
  await renderer.close();
  console.log(
    JSON.stringify({ ms, pages: crawl.crawlStats.pagesAnalyzed, rendered: crawl.crawlStats.pagesRendered ?? 0 }),
  );
}
process.exit(0);
