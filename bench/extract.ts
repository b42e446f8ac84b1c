// Cost of page extraction for the crawler, against two references:
//   (a) extractPage — parse5 tree + one walk (what the crawler runs)
//   (b) parse5 parse alone — the floor: no extractor can be cheaper than parsing
//   (c) the naive approach — a jsdom window per page, textContent, links, close()
//
// Pages are synthetic product pages of 100–200 KB (head full of meta, inline
// CSS and JS, JSON-LD, nav and footer menus, sections of prose, spec tables,
// inline SVG icons, hidden panels), built from a fixed seed so runs compare.
// Each mode runs in its own child process (this file with `--mode`), so peak RSS
// belongs to that mode alone. CPU is process.cpuUsage() around each call; RSS is
// sampled after each page; the loop yields with setImmediate between pages, as
// the crawler does. The crawler issue's budget: median CPU per page ≤ 2× the
// parse5 floor, and peak RSS < 300 MB over 200 pages.
//
//   npx tsx bench/extract.ts

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { parse } from "parse5";

import { extractPage } from "../src/modules/crawl/extract.js";
import { productPage } from "./pages.js";

type Mode = "extract" | "parse5" | "jsdom";
interface Result {
  mode: Mode;
  pages: number;
  medianMs: number;
  p95Ms: number;
  baselineRssMb: number;
  peakRssMb: number;
  /** Heap still in use after a full GC with every result kept: what extraction retains. */
  retainedHeapMb: number;
  textChars: number;
  links: number;
}

const PAGES = 200;
const JSDOM_PAGES = 40;

// ------------------------------------------------------------------ pages --

// ------------------------------------------------------------------ modes --

// Imported only by the jsdom child: loading jsdom alone costs ~90 MB of RSS.
type Jsdom = typeof import("jsdom").JSDOM;

function naiveJsdom(JSDOM: Jsdom, html: string, url: string): { text: string; links: string[] } {
  const dom = new JSDOM(html, { url });
  const document = dom.window.document;
  for (const element of document.querySelectorAll("script, style, noscript, template")) element.remove();
  const text = (document.body?.textContent ?? "").replace(/\s+/g, " ").trim();
  const links = Array.from(document.querySelectorAll("a[href]"), (a) => (a as HTMLAnchorElement).href);
  dom.window.close();
  return { text, links };
}

/** Heap in use after a full collection (the children run with --expose-gc). */
function heapAfterGc(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

async function run(mode: Mode): Promise<Result> {
  const count = mode === "jsdom" ? JSDOM_PAGES : PAGES;
  const cpu: number[] = [];
  const kept: unknown[] = []; // what the crawler keeps: the results, never the trees
  let textChars = 0;
  let links = 0;
  const JSDOM = mode === "jsdom" ? (await import("jsdom")).JSDOM : undefined;
  const heapStart = heapAfterGc();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  for (let i = 0; i < count; i++) {
    const html = productPage(i);
    const url = `https://acme.example/products/${i}`;
    const before = process.cpuUsage();
    if (mode === "extract") {
      const extracted = extractPage({ url, status: 200, body: html, kind: "html", headers: {} });
      textChars += extracted.text.length;
      links += extracted.internalLinks.length + extracted.externalLinks.length;
      kept.push(extracted);
    } else if (mode === "parse5") {
      kept.push(parse(html).childNodes.length);
    } else if (JSDOM) {
      const naive = naiveJsdom(JSDOM, html, url);
      textChars += naive.text.length;
      links += new Set(naive.links).size;
      kept.push(naive);
    }
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
    peak = Math.max(peak, process.memoryUsage().rss);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const retained = heapAfterGc() - heapStart;
  if (kept.length !== count) throw new Error("results were not kept");
  cpu.sort((a, b) => a - b);
  const at = (q: number) => cpu[Math.min(cpu.length - 1, Math.floor(q * cpu.length))] ?? NaN;
  return {
    mode,
    pages: count,
    medianMs: at(0.5),
    p95Ms: at(0.95),
    baselineRssMb: baseline / 2 ** 20,
    peakRssMb: peak / 2 ** 20,
    retainedHeapMb: retained / 2 ** 20,
    textChars,
    links,
  };
}

// ------------------------------------------------------------------- main --

async function main(): Promise<void> {
  const modeFlag = process.argv.indexOf("--mode");
  if (modeFlag !== -1) {
    process.stdout.write(JSON.stringify(await run(process.argv[modeFlag + 1] as Mode)));
    return;
  }
  const sizes = Array.from({ length: PAGES }, (_, i) => productPage(i).length / 1024);
  console.log(
    `${PAGES} pages, ${Math.min(...sizes).toFixed(0)}–${Math.max(...sizes).toFixed(0)} KB (mean ${(sizes.reduce((a, b) => a + b) / PAGES).toFixed(0)} KB)\n`,
  );
  const results: Result[] = [];
  for (const mode of ["extract", "parse5", "jsdom"] as const) {
    const output = execFileSync(
      process.execPath,
      [...process.execArgv, "--expose-gc", fileURLToPath(import.meta.url), "--mode", mode],
      {
        encoding: "utf8",
        maxBuffer: 1 << 20,
      },
    );
    results.push(JSON.parse(output) as Result);
  }
  const floor = results.find((r) => r.mode === "parse5")?.medianMs ?? NaN;
  const label: Record<Mode, string> = {
    extract: "(a) extractPage",
    parse5: "(b) parse5 parse (floor)",
    jsdom: "(c) jsdom window",
  };
  console.log(
    "| mode | pages | median CPU ms | p95 CPU ms | × floor (median) | RSS start MB | peak RSS MB | retained heap MB | text chars | links |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of results) {
    console.log(
      `| ${label[r.mode]} | ${r.pages} | ${r.medianMs.toFixed(1)} | ${r.p95Ms.toFixed(1)} | ${(r.medianMs / floor).toFixed(2)} | ` +
        `${r.baselineRssMb.toFixed(0)} | ${r.peakRssMb.toFixed(0)} | ${r.retainedHeapMb.toFixed(1)} | ${r.textChars || "–"} | ${r.links || "–"} |`,
    );
  }
  const extract = results.find((r) => r.mode === "extract");
  if (extract) {
    const ratio = extract.medianMs / floor;
    console.log(
      `\nbudget: median ≤ 2× floor → ${ratio.toFixed(2)}× ${ratio <= 2 ? "OK" : "OVER"}; peak RSS < 300 MB → ${extract.peakRssMb.toFixed(0)} MB ${extract.peakRssMb < 300 ? "OK" : "OVER"}`,
    );
  }
}

await main();
