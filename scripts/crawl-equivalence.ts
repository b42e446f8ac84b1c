// Proof that a change to the crawler's extraction (or crawl loop) leaves what it
// extracts unchanged: the crawl modules of a git ref (default HEAD) are written to
// a temporary directory and run side by side with the working tree's on
//   - every page of the crawler's benchmarks (200 marketing, 200 text-dense pages),
//   - every page of the fixture sites (test/fixtures/crawl-sites.ts, calibration-sites.ts),
//   - pages rebuilt from the calibration snapshots' real titles, headings, text and links
//     (the snapshots hold extracted pages, not HTML),
//   - seeded random pages made of the constructs extraction treats specially (malformed
//     nesting, entities, comments, templates, JSON-LD, hidden parts, <base>, refreshes,
//     odd links), as HTML and as XHTML;
// then the URL functions on random links against random bases, and whole crawls (one
// request at a time, so the order is fixed) of the fixture and benchmark sites. Every
// result must be deep-equal (and JSON-equal) to the old one.
//
//   npx tsx scripts/crawl-equivalence.ts [--base <git ref>] [--fuzz <pages>] [--no-crawl]

import { execFileSync, fork } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { denseHtml } from "../bench/crawl.js";
import { productPage, rng } from "../bench/pages.js";
import * as newExtract from "../src/modules/crawl/extract.js";
import * as newTree from "../src/modules/crawl/html-tree.js";
import * as newUrl from "../src/modules/crawl/url.js";
import * as newFactory from "../src/modules/crawl/crawler.factory.js";
import { calibrationSites } from "../test/fixtures/calibration-sites.js";
import { acmeSite } from "../test/fixtures/crawl-sites.js";
import { FixtureSites, fixtureResolver, type Route, type Site } from "../test/support/fixture-sites.js";

type PageInput = Parameters<typeof newExtract.extractPage>[0];

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const arg = (name: string) => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const baseRef = arg("--base") ?? "HEAD";
const fuzzPages = Number(arg("--fuzz") ?? 4000);
const crawls = !process.argv.includes("--no-crawl");

/**
 * The source tree as it is at `ref` (all of src/, so whatever the crawl modules import
 * from outside their folder at that ref comes with them).
 */
function checkout(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), "crawl-base-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  const files = git("ls-tree", "-r", "--name-only", ref, "src").toString().split("\n").filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), git("show", `${ref}:${file}`));
  }
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  return dir;
}

let failures = 0;
const MAX_REPORTED = 10;
function same(label: string, before: unknown, after: unknown): boolean {
  if (isDeepStrictEqual(before, after) && JSON.stringify(before) === JSON.stringify(after)) return true;
  failures++;
  if (failures <= MAX_REPORTED) {
    console.log(`DIFFERENT: ${label}`);
    const a = JSON.stringify(before, null, 1).split("\n");
    const b = JSON.stringify(after, null, 1).split("\n");
    const at = a.findIndex((line, i) => line !== b[i]);
    console.log(
      `  first difference at line ${at}:\n  old: ${a.slice(Math.max(0, at - 2), at + 3).join("\n       ")}\n  new: ${b.slice(Math.max(0, at - 2), at + 3).join("\n       ")}`,
    );
  }
  return false;
}

// ------------------------------------------------------------------ random

const BASES = [
  "http://acme.test/",
  "https://www.acme.test/docs/",
  "https://acme.test/docs",
  "https://acme.test/website/home.html",
  "http://127.0.0.1:8080/a/b/index.html",
  "https://sub.acme.co.uk/x/?q=1&utm_source=y",
  "https://ACME.test./Pricing/",
  "http://[::1]:3000/",
  "https://user:pw@acme.test/p",
  "https://acme.test/%7Euser/é/",
  "http://localhost:4000/blog/2024/",
  "https://acme.github.io/project/",
];

const HREFS = [
  "/",
  "",
  " ",
  "#",
  "#top",
  "?",
  "?a=1",
  "?utm_source=x&b=2&a=1",
  "/pricing",
  "/pricing/",
  "/Pricing/index.html",
  "/docs/index.htm",
  "docs",
  "docs/",
  "./docs/../api/",
  "../up",
  "../../../../x",
  "//cdn.acme.test/lib.js",
  "//other.example/",
  "https://acme.test/a#b",
  "https://www.acme.test",
  "HTTPS://WWW.ACME.TEST/CAPS",
  "http://acme.test.:80/x",
  "https://acme.test:443/y",
  "http://acme.test:8080/z",
  "mailto:team@acme.test",
  "tel:+1555",
  "javascript:void(0)",
  "data:text/html,hi",
  "ftp://acme.test/f",
  "/\\evil.example/",
  "\\\\evil.example",
  "/a\tb",
  "/a\nb",
  "\t/tabbed",
  " /spaced ",
  "/with space/and%20enc",
  "/ünï/cödé?q=ä",
  "/%2e%2e/x",
  "/a/%2E/b",
  "/a//b//",
  "///triple",
  "?ref=nav&fbclid=1&gclid=2&x=",
  "/p?b=2&a=1&a=0",
  "/p?&&a&",
  "/p?a=%zz&b=+",
  "/p#?",
  "/p?#",
  "http:relative",
  "https:/one-slash",
  "https://user:pass@acme.test/secret",
  "https://@acme.test/",
  "http://[::1]/v6",
  "http://127.0.0.1/",
  "http://0x7f.1/",
  "https://xn--ls8h.test/",
  "https://😀.test/",
  "https://acme.test/index.html?x=1",
  "/index.html#frag",
  "https://docs.acme.test/",
  "https://status.acme-status.io/",
  "https://github.com/acme/acme",
  "https://apps.apple.com/app/id1",
  "https://acme.co.uk/",
  "https://a.github.io/",
  "https://b.github.io/x",
  "https://%61cme.test/",
  "https://acme.test/%",
  "https://acme .test/",
  "http://",
  "https://",
  "/\u0000/nul",
  "/a?b#c?d",
];

function randomHref(random: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const r = random();
  if (r < 0.55) return pick(HREFS);
  if (r < 0.8)
    return (
      pick(HREFS) +
      pick(["", "/", "x", "?a=1", "#h", "index.html", "/../", "&amp;c=3"]) +
      pick(["", "", pick(HREFS).slice(0, 6)])
    );
  // Random characters from a URL-ish alphabet.
  const alphabet = "abc/.?#&=%:@\\ \t-_~+éü09AZ[]";
  return Array.from(
    { length: 1 + Math.floor(random() * 20) },
    () => alphabet[Math.floor(random() * alphabet.length)],
  ).join("");
}

const WORDS =
  "pricing docs security changelog team plan starter growth enterprise SSO audit logs API uptime status customers blog careers".split(
    " ",
  );
const TEXTS = [
  "$49/month",
  "€29 per seat",
  "USD 1,299.99",
  "49 USD",
  "1.299,99 €",
  "¥1000",
  "Updated March 5, 2025",
  "5th March 2024",
  "2023-02-29",
  "2024-02-29",
  "Dec. 1st, 2022",
  "{{ user.name }}",
  "{{#each items}}",
  "&amp;",
  "&nbsp;",
  "&#x27;",
  "&#39;",
  "&copy;",
  "&notanentity;",
  "&lt;b&gt;",
  "&#0;",
  "&#x110000;",
  "a&ampb",
  "  \n\t spaced   out  ",
  "\u00a0nbsp\u00a0",
  "ünïcödé",
  "😀",
  "\u0000",
  "line<br>break",
  "© 2026 Acme Inc.",
];

/** A random page of the constructs the walker treats specially, malformed on purpose now and then. */
function randomPage(seed: number, xhtml: boolean): string {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  const attr = (name: string, value: string) =>
    xhtml
      ? ` ${name}="${escapeAttr(value)}"`
      : pick([
          ` ${name}="${escapeAttr(value)}"`,
          ` ${name}='${value.replace(/'/g, "")}'`,
          ` ${name}=${value.replace(/[\s>"'=<`]/g, "") || "x"}`,
          ` ${name.toUpperCase()}="${escapeAttr(value)}"`,
        ]);
  const text = () =>
    xhtml
      ? escapeText(chance(0.3) ? pick(TEXTS).replace(/&[^;]*;?/g, "") : words(1 + Math.floor(random() * 8)))
      : chance(0.3)
        ? pick(TEXTS)
        : words(1 + Math.floor(random() * 8));
  const depthLimit = 2 + Math.floor(random() * 6);
  const node = (depth: number): string => {
    const r = random();
    if (depth >= depthLimit || r < 0.25) return text();
    const kids = (n: number) =>
      Array.from({ length: n }, () => node(depth + 1)).join(xhtml ? "" : pick(["", " ", "\n", "<!-- c -->", ""]));
    const n = 1 + Math.floor(random() * 4);
    const hiddenAttrs = () =>
      chance(0.15)
        ? pick([
            attr("hidden", ""),
            attr("aria-hidden", pick(["true", " TRUE ", "false"])),
            attr("style", pick(["display:none", "color:red; display : none", "visibility:hidden", "display:block"])),
          ])
        : "";
    const roleAttr = () =>
      chance(0.1) ? attr("role", pick(["navigation", " Banner ", "contentinfo", "main", "presentation"])) : "";
    const tag = pick([
      "div",
      "p",
      "span",
      "section",
      "article",
      "aside",
      "main",
      "nav",
      "header",
      "footer",
      "ul",
      "li",
      "table",
      "tr",
      "td",
      "th",
      "h1",
      "h2",
      "h3",
      "h4",
      "a",
      "a",
      "a",
      "area",
      "img",
      "br",
      "time",
      "strong",
      "em",
      "script",
      "template",
      "noscript",
      "style",
      "svg",
      "title",
      "meta",
      "link",
      "base",
      "iframe",
      "select",
      "option",
      "textarea",
      "details",
      "summary",
      "pre",
      "form",
      "button",
      "label",
    ]);
    const close = xhtml || chance(0.9);
    switch (tag) {
      case "a":
        return `<a${attr("href", randomHref(random))}${chance(0.1) ? attr("href", "/dup") : ""}${roleAttr()}${hiddenAttrs()}>${kids(n)}${chance(0.2) ? (xhtml ? `<img alt="${escapeAttr(words(2))}"/>` : `<img alt="${words(2)}">`) : ""}${close ? "</a>" : ""}`;
      case "area":
        return xhtml
          ? `<area${attr("href", randomHref(random))}${attr("alt", words(2))}/>`
          : `<area${chance(0.9) ? attr("href", randomHref(random)) : ""}${chance(0.7) ? attr("alt", ` ${words(2)} `) : ""}>`;
      case "img":
        return xhtml ? `<img${attr("alt", words(2))}/>` : `<img${attr("alt", words(2))}>`;
      case "br":
        return xhtml ? "<br/>" : pick(["<br>", "<br/>", "</br>", "<BR>"]);
      case "time":
        return `<time${chance(0.8) ? attr("datetime", pick(["2024-05-06", " 2023-01-02T10:00Z", "2025-13-01", "yesterday", ""])) : ""}${hiddenAttrs()}>${text()}</time>`;
      case "script": {
        const type = pick([
          "",
          "text/javascript",
          "application/ld+json",
          " application/LD+JSON ; charset=utf-8",
          "text/x-template",
          "text/html",
          "text/x-handlebars-template",
          "text/ng-template",
          "module",
        ]);
        const body = type.toLowerCase().includes("ld+json")
          ? pick([
              JSON.stringify({
                "@context": "https://schema.org",
                "@type": pick(["Organization", "Product", "schema:SoftwareApplication", "Thing"]),
                name: ` ${words(2)} `,
                offers: { "@type": "Offer", price: "49", priceCurrency: "USD" },
              }),
              `<!-- ${JSON.stringify({ "@type": "Organization", name: "Wrapped" })} -->`,
              `{"@graph": [{"@type": "Corporation", "name": "Line\nbreak"}]}`,
              "{ not json",
            ])
          : type.includes("template") || type.includes("html")
            ? pick([
                `<div><h2>${words(2)}</h2><p>{{ x }} ${words(3)}</p><a href="/tpl/${words(1)}">${words(1)}</a>${chance(0.2) ? `<script type="text/x-template"><p>nested ${words(2)}</p></script>` : ""}</div>`,
                `${words(2)} <a href="/tpl/${words(1)}">{{ label }}</a> ${words(2)}${chance(0.3) ? `<script type="text/html">${words(1)}</script>` : ""} tail`,
                `<span>${words(1)}</span><div>unclosed ${words(2)}`,
              ])
            : `var x = "<a href='/in-script'>no</a>"; if (a < b && c > d) {}`;
        return xhtml
          ? `<script${type ? attr("type", type) : ""}><![CDATA[${body.replace(/]]>/g, "")}]]></script>`
          : `<script${type ? attr("type", type) : ""}>${body}${close || !chance(0.5) ? "</script>" : ""}`;
      }
      case "style":
        return `<style>.a > .b { color: red } /* <p>not text</p> */</style>`;
      case "svg":
        return `<svg viewBox="0 0 1 1"${xhtml ? ' xmlns="http://www.w3.org/2000/svg"' : ""}><title>${words(2)}</title><path d="M0 0"${xhtml ? "/>" : "/>"}<text>${words(1)}</text></svg>`;
      case "title":
        return `<title>${text()}${xhtml ? "" : pick(["", " &amp; more", " <b>not a tag</b>"])}</title>`;
      case "meta":
        return (
          pick([
            `<meta${attr("name", pick(["description", " Description ", "og:title"]))}${attr("content", ` ${words(4)} `)}`,
            `<meta${attr("property", pick(["og:site_name", "og:title", "OG:Image", "og:", "og:__proto__", "og:constructor"]))}${attr("content", words(2))}`,
            `<meta${attr("http-equiv", pick(["refresh", " REFRESH "]))}${attr("content", pick(["0; url=/next", "5;URL='/quoted'", "0, /comma", "3", "0;url=https://other.example/", `0; url=${randomHref(random)}`]))}`,
            `<meta${attr("name", "description")}`,
          ]) + (xhtml ? "/>" : ">")
        );
      case "link":
        return `<link${attr("rel", pick(["canonical", "Canonical stylesheet", "alternate"]))}${chance(0.9) ? attr("href", randomHref(random)) : ""}${xhtml ? "/>" : ">"}`;
      case "base":
        return `<base${attr("href", pick(["/sub/", "https://other.example/root/", "../", "javascript:alert(1)", "", "https://www.acme.test/b/"]))}${xhtml ? "/>" : ">"}`;
      case "template":
        return `<template><p>${words(3)}</p><a href="/from-template">t</a></template>`;
      case "textarea":
        return `<textarea>${words(2)} <b>raw</b> &amp;</textarea>`;
      default: {
        const lang = tag === "div" && chance(0.05) ? attr(pick(["lang", "xml:lang"]), pick(["en", " fr ", ""])) : "";
        return `<${chance(0.05) && !xhtml ? tag.toUpperCase() : tag}${roleAttr()}${hiddenAttrs()}${lang}${chance(0.1) ? attr("class", "x") + attr("class", "y") : ""}>${kids(n)}${close ? `</${tag}>` : ""}${!xhtml && chance(0.03) ? pick(["</p>", "</div>", "</td>", "</a>", "</html>"]) : ""}`;
      }
    }
  };
  const head = `<title>${escapeText(words(3))} | Acme</title>${chance(0.5) ? (xhtml ? `<meta name="description" content="${words(5)}"/>` : `<meta name="description" content="${words(5)}">`) : ""}`;
  const body = Array.from({ length: 3 + Math.floor(random() * 12) }, () => node(0)).join(xhtml ? "" : "\n");
  if (xhtml) {
    const lang = chance(0.5) ? ' xml:lang="en"' : chance(0.5) ? ' lang="de"' : "";
    const broken = chance(0.15); // not well-formed: extraction falls back to HTML
    return `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml"${lang}><head>${head}</head><body>${body}${broken ? "<p>" : ""}</body></html>`;
  }
  const prefix = pick(["<!doctype html>", "<!DOCTYPE html>", "", "<?xml version='1.0'?>", "<!-- first -->"]);
  return chance(0.8)
    ? `${prefix}<html${chance(0.7) ? ' lang="en"' : ""}><head>${head}</head><body>${body}</body></html>`
    : `${prefix}${head}${body}`;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
function escapeText(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}

// ------------------------------------------------------------------ corpus

function* corpus(): Generator<{ label: string; input: PageInput }> {
  const html = (
    url: string,
    body: string,
    headers: PageInput["headers"] = { "content-type": "text/html; charset=utf-8" },
  ): PageInput => ({
    url,
    status: 200,
    body,
    kind: "html",
    headers,
  });
  for (let i = 0; i < 200; i++) {
    const marketing = productPage(i);
    yield {
      label: `bench marketing ${i}`,
      input: html(`http://bench.test:8080/page-${i}`, marketing.replace(/<link rel="canonical"[^>]*>/, "")),
    };
    if (i < 20)
      yield {
        label: `bench marketing ${i} (canonical)`,
        input: html(`https://acme.example/features/x-${i}/`, marketing),
      };
    yield { label: `bench dense ${i}`, input: html(`http://bench.test:8080/page-${i}`, denseHtml(i)) };
  }

  const fromSites = function* (label: string, sites: Record<string, Site>, port: number) {
    for (const [host, site] of Object.entries(sites)) {
      for (const [path, route] of Object.entries(site)) {
        const body = typeof route === "string" ? route : routeBody(route);
        if (body === undefined) continue;
        const type = typeof route === "string" ? "text/html" : (route.headers?.["content-type"] ?? "text/html");
        if (!/html|xml/.test(type)) continue;
        const kind = /xhtml/.test(type) ? "xhtml" : "html";
        yield {
          label: `${label} ${host}${path}`,
          input: {
            url: `http://${host}:${port}${path}`,
            status: 200,
            body,
            kind,
            headers: { "content-type": type },
          } as PageInput,
        };
      }
    }
  };
  yield* fromSites("crawl-sites", acmeSite("http://acme.test:4000"), 4000);
  for (const site of calibrationSites) {
    const origin = `http://${site.host}:4000`;
    const pages = Object.fromEntries(
      Object.entries(site.pages).map(([path, route]) => [
        path,
        typeof route === "string"
          ? route.replaceAll("ORIGIN", origin)
          : { ...route, body: routeBody(route)?.replaceAll("ORIGIN", origin) },
      ]),
    ) as Site;
    yield* fromSites("calibration-sites", { [site.host]: pages }, 4000);
  }

  const snapshots = join(root, "test/fixtures/calibration-snapshots");
  for (const file of readdirSync(snapshots).filter((name) => name.endsWith(".json"))) {
    const snapshot = JSON.parse(readFileSync(join(snapshots, file), "utf8")) as { crawl: { pages: SnapshotPage[] } };
    for (const [index, page] of snapshot.crawl.pages.entries()) {
      yield { label: `snapshot ${file} page ${index}`, input: html(page.url, pageFromSnapshot(page)) };
    }
  }

  // Past the caps (800,000 raw characters of text, 20,000 per nav/header/footer block, 5,000 links), where
  // how text nodes are cut matters: an entity or a comment splits a run of text, a tag does not.
  for (let i = 0; i < 6; i++) {
    const random = rng(i + 99);
    const run = () => Array.from({ length: 40 }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
    const chunk = () =>
      [run(), "&amp;", run(), "<!-- -->", run(), "&#x27;", run(), "<b>", run(), "</b>"]
        .slice(0, 2 + Math.floor(random() * 8))
        .join("");
    const big = Array.from({ length: 600 + i * 300 }, chunk).join("<br>");
    const nav = Array.from({ length: 200 }, chunk).join("");
    const links = Array.from(
      { length: 1500 + i * 900 },
      (_, n) => `<a href="/l/${n % 3000}?x=${n % 7}">${run().slice(0, 40)} &amp; ${n}</a>`,
    ).join("");
    yield {
      label: `large page ${i}`,
      input: html(
        BASES[i]!,
        `<title>Big ${i}</title><header><nav>${nav}</nav></header><main>${big}${links}</main><footer>${nav}</footer>`,
      ),
    };
  }

  for (let seed = 1; seed <= fuzzPages; seed++) {
    const xhtml = seed % 8 === 0;
    const base = BASES[seed % BASES.length]!;
    yield {
      label: `random ${xhtml ? "xhtml" : "html"} page, seed ${seed}`,
      input: {
        url: base,
        status: 200,
        body: randomPage(seed, xhtml),
        kind: xhtml ? "xhtml" : "html",
        headers: seed % 3 === 0 ? { "Strict-Transport-Security": "max-age=1", "x-frame-options": " " } : {},
      },
    };
  }
}

function routeBody(route: Exclude<Route, string>): string | undefined {
  if (route.body === undefined) return undefined;
  return typeof route.body === "string" ? route.body : route.body.toString("utf8");
}

interface SnapshotPage {
  url: string;
  title: string;
  metaDescription: string;
  openGraph: Record<string, string>;
  lang?: string;
  headings: { level: number; text: string }[];
  text: string;
  boilerplate: string[];
  internalLinks: { url: string; text: string; inNav: boolean }[];
  externalLinks: { url: string; text: string; inNav: boolean }[];
}

/** A page with a real site's title, metadata, headings, text and links (relative where they were internal). */
function pageFromSnapshot(page: SnapshotPage): string {
  const e = escapeText;
  const relative = (url: string) => {
    try {
      const target = new URL(url);
      return target.host === new URL(page.url).host ? target.pathname + target.search : url;
    } catch {
      return url;
    }
  };
  const link = (l: { url: string; text: string }, i: number) =>
    `<a href="${escapeAttr(i % 2 ? relative(l.url) : l.url)}">${e(l.text)}</a>`;
  const nav = page.internalLinks
    .filter((l) => l.inNav)
    .map(link)
    .join(" ");
  const lines = page.text.split("\n");
  const headings = [...page.headings];
  const heading = () => {
    const next = headings.shift();
    return next ? `<h${next.level}>${e(next.text)}</h${next.level}>` : "";
  };
  const body = lines.map((line, i) => (i % 7 === 0 ? heading() : "") + `<p>${e(line)}</p>`).join("\n");
  const og = Object.entries(page.openGraph)
    .map(([k, v]) => `<meta property="og:${escapeAttr(k)}" content="${escapeAttr(v)}">`)
    .join("");
  const rest = [...page.internalLinks.filter((l) => !l.inNav), ...page.externalLinks].map(link).join("\n");
  return `<!doctype html><html${page.lang ? ` lang="${escapeAttr(page.lang)}"` : ""}><head><title>${e(page.title)}</title><meta name="description" content="${escapeAttr(page.metaDescription)}">${og}</head>
<body><header><nav>${nav}</nav></header><main>${body}<div class="links">${rest}</div></main><footer>${page.boilerplate.map((b) => `<p>${e(b)}</p>`).join("")}</footer></body></html>`;
}

// ------------------------------------------------------------------ checks

async function main(): Promise<void> {
  const dir = checkout(baseRef);
  try {
    const oldExtract = (await import(
      pathToFileURL(join(dir, "src/modules/crawl/extract.ts")).href
    )) as typeof newExtract;
    const oldUrl = (await import(pathToFileURL(join(dir, "src/modules/crawl/url.ts")).href)) as typeof newUrl;
    const oldFactory = (await import(
      pathToFileURL(join(dir, "src/modules/crawl/crawler.factory.ts")).href
    )) as typeof newFactory;

    let pages = 0;
    const counts = new Map<string, number>();
    for (const { label, input } of corpus()) {
      pages++;
      const kind = label.split(/ \d| [a-z0-9-]+\.test| page| [^ ]*\.json/)[0]!;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      let before: unknown;
      let after: unknown;
      try {
        before = oldExtract.extractPage(input);
      } catch (error) {
        before = { threw: String(error) };
      }
      try {
        after = newExtract.extractPage(input);
      } catch (error) {
        after = { threw: String(error) };
      }
      same(label, before, after);
      if (!("threw" in (before as object))) {
        const host = new URL(input.url).hostname;
        same(
          `${label}: company name`,
          oldExtract.detectCompanyName(before as never, host),
          newExtract.detectCompanyName(after as never, host),
        );
      }
    }
    console.log(
      `extractPage: ${pages} pages compared (${[...counts].map(([k, n]) => `${k}: ${n}`).join(", ")}); differences so far: ${failures}`,
    );

    const random = rng(20261125);
    let links = 0;
    for (let i = 0; i < 50_000; i++) {
      const href = randomHref(random);
      const base = i % 5 === 0 ? undefined : i % 5 === 1 ? randomHref(random) : BASES[i % BASES.length]!;
      links++;
      const canonicalBefore = oldUrl.canonicalUrl(href, base);
      const canonicalAfter = newUrl.canonicalUrl(href, base);
      same(`canonicalUrl(${JSON.stringify(href)}, ${JSON.stringify(base)})`, canonicalBefore, canonicalAfter);
      if (canonicalBefore !== undefined) {
        same(
          `fetchAddress(${JSON.stringify(href)})`,
          oldUrl.fetchAddress(href, base, canonicalBefore),
          newUrl.fetchAddress(href, base, canonicalBefore),
        );
        same(`pageKey(${canonicalBefore})`, oldUrl.pageKey(canonicalBefore), newUrl.pageKey(canonicalBefore));
        const other = BASES[(i * 7) % BASES.length]!;
        same(
          `isSameSite(${canonicalBefore}, ${other})`,
          oldUrl.isSameSite(canonicalBefore, other),
          newUrl.isSameSite(canonicalBefore, other),
        );
      }
    }
    console.log(`url functions: ${links} links compared; differences so far: ${failures}`);

    // collapse() reads every text the walker keeps: all of \s, NUL (the block mark) and a few letters, in random runs.
    const oldTree = (await import(pathToFileURL(join(dir, "src/modules/crawl/html-tree.ts")).href)) as typeof newTree;
    for (let code = 0; code < 0x10000; code++) {
      const c = String.fromCharCode(code);
      for (const text of [c, `a${c}b`, `a ${c} b`, `${c}${c}x${c}`, `x\u0000${c}\u0000y`])
        same(`collapse(${JSON.stringify(text)})`, oldTree.collapse(text), newTree.collapse(text));
    }
    const alphabet = [
      "a",
      "b",
      " ",
      " ",
      "\u0000",
      "\n",
      "\t",
      "\r",
      "\u000b",
      "\f",
      "\u00a0",
      "\u2028",
      "\u3000",
      "\ufeff",
      "\u180e",
      "\u200b",
      "é",
      "😀",
    ];
    for (let i = 0; i < 200_000; i++) {
      const text = Array.from(
        { length: Math.floor(random() * 24) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join("");
      same(`collapse(${JSON.stringify(text)})`, oldTree.collapse(text), newTree.collapse(text));
    }
    console.log(
      `collapse: every UTF-16 code unit and 200,000 random strings compared; differences so far: ${failures}`,
    );

    if (crawls) await compareCrawls(oldFactory);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(failures === 0 ? "EQUIVALENT: no difference" : `${failures} DIFFERENCES`);
  process.exitCode = failures === 0 ? 0 : 1;
}

/** Whole crawls, one request at a time (a fixed order), old and new, on the fixture sites and the benchmark's. */
async function compareCrawls(oldFactory: typeof newFactory): Promise<void> {
  const sites = new FixtureSites({});
  await sites.start();
  const origin = (host: string) => `http://${host}:${sites.port}`;
  const all = sites as unknown as { sites: Record<string, Site> };
  Object.assign(all.sites, acmeSite(origin("acme.test")));
  for (const site of calibrationSites) {
    all.sites[site.host] = Object.fromEntries(
      Object.entries(site.pages).map(([path, route]) => [
        path,
        typeof route === "string"
          ? route.replaceAll("ORIGIN", origin(site.host))
          : { ...route, body: routeBody(route)?.replaceAll("ORIGIN", origin(site.host)) },
      ]),
    ) as Site;
  }
  const run = async (
    factory: typeof newFactory,
    url: string,
    maxPages: number,
    resolver: ReturnType<typeof fixtureResolver>,
  ) => {
    const crawler = factory.createCrawler(
      { version: "check", crawl: { maxPages, ssrfAllowlist: ["127.0.0.1/32", "*.test"] } },
      { resolver, budgetMs: 300_000, concurrency: 1 },
    );
    const progress: unknown[] = [];
    try {
      const result = await crawler.crawl(url, { onProgress: (p) => progress.push(p) });
      return { ...result, crawledAt: undefined, crawlStats: { ...result.crawlStats, durationMs: undefined }, progress };
    } catch (error) {
      return { threw: String(error), code: (error as { code?: string }).code, progress };
    }
  };
  const compare = async (label: string, url: string, maxPages: number, resolver = fixtureResolver()) => {
    const before = await run(oldFactory, url, maxPages, resolver);
    const after = await run(newFactory, url, maxPages, resolver);
    same(`crawl of ${label}`, before, after);
    const pages = "pages" in before ? before.pages.length : 0;
    console.log(
      `  crawl of ${label}: ${pages} pages, ${JSON.stringify(before).length} characters of result, ${isDeepStrictEqual(before, after) ? "same" : "DIFFERENT"}`,
    );
  };
  try {
    for (const maxPages of [5, 25]) await compare(`acme.test (${maxPages} pages)`, origin("acme.test"), maxPages);
    for (const site of calibrationSites) await compare(site.host, origin(site.host), 25);
  } finally {
    await sites.stop();
  }
  for (const set of ["marketing", "text-dense"]) {
    const server = fork(join(root, "bench/crawl.ts"), ["--serve", set], { execArgv: ["--import", "tsx"] });
    const port = await new Promise<number>((resolve) =>
      server.once("message", (message: { port: number }) => resolve(message.port)),
    );
    try {
      await compare(`the ${set} benchmark site (200 pages)`, `http://bench.test:${port}/`, 200, async () => [
        { address: "127.0.0.1", family: 4 },
      ]);
    } finally {
      server.kill();
    }
  }
}

await main();
