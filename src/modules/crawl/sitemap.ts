import { createRequire } from "node:module";
import type { JSDOM } from "jsdom";

/**
 * Sitemaps (sitemaps.org protocol): an XML <urlset> of pages or <sitemapindex> of
 * further sitemaps, or a plain-text list of URLs. Pure: fetching, size limits on
 * the body and following an index are the caller's.
 */

export interface SitemapEntry {
  readonly loc: string;
  readonly lastmod?: string;
}

export interface Sitemap {
  readonly kind: "urlset" | "index";
  readonly entries: SitemapEntry[];
}

/**
 * jsdom costs ~90 MB of RSS once loaded, and most sites serve no sitemap: it is
 * required (CommonJS, so synchronously) the first time an XML sitemap arrives.
 */
let jsdomModule: typeof import("jsdom") | undefined;
const loadJsdom = (): typeof import("jsdom") =>
  (jsdomModule ??= createRequire(import.meta.url)("jsdom") as typeof import("jsdom"));

/** The protocol's own limit per file. */
const MAX_ENTRIES = 50_000;

/** Throws a plain Error when the body is XML that does not parse, or not a sitemap. */
export function parseSitemap(body: string): Sitemap {
  const text = body.replace(/^\uFEFF/, "").trimStart();
  return text.startsWith("<") ? parseXmlSitemap(text) : parseTextSitemap(text);
}

function parseXmlSitemap(xml: string): Sitemap {
  let dom: JSDOM;
  try {
    // jsdom's XML parser rejects malformed documents and never loads external entities.
    dom = new (loadJsdom().JSDOM)(xml, { contentType: "text/xml" });
  } catch (error) {
    throw new Error(`The sitemap is not well-formed XML: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  try {
    const root = dom.window.document.documentElement;
    const kind = root?.localName === "sitemapindex" ? "index" : root?.localName === "urlset" ? "urlset" : undefined;
    if (root === null || kind === undefined)
      throw new Error(`The document is not a sitemap (root element <${root?.localName ?? "none"}>).`);

    const itemName = kind === "index" ? "sitemap" : "url";
    const entries: SitemapEntry[] = [];
    // Direct children only: extensions nest their own <loc> (image:loc inside image:image).
    for (const item of childElements(root)) {
      if (entries.length >= MAX_ENTRIES) break;
      if (item.localName !== itemName) continue;
      const loc = httpUrl(childText(item, "loc"));
      if (loc === undefined) continue;
      const lastmod = childText(item, "lastmod");
      entries.push(lastmod ? { loc, lastmod } : { loc });
    }
    return { kind, entries };
  } finally {
    dom.window.close();
  }
}

/**
 * Walks siblings rather than reading `children` or getElementsByTagNameNS: jsdom's
 * live collections make those quadratic (a 10,000-entry sitemap took seconds).
 */
function* childElements(parent: Element): Generator<Element> {
  for (let child = parent.firstElementChild; child !== null; child = child.nextElementSibling) yield child;
}

/** Sitemaps differ in namespace (or have none), so children are found by local name. */
function childText(parent: Element, localName: string): string | undefined {
  for (const child of childElements(parent)) {
    if (child.localName === localName) return child.textContent?.trim() || undefined;
  }
  return undefined;
}

/** The protocol allows one URL per line in a UTF-8 text file. */
function parseTextSitemap(text: string): Sitemap {
  const entries: SitemapEntry[] = [];
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (entries.length >= MAX_ENTRIES) break;
    const loc = httpUrl(line.trim());
    if (loc !== undefined) entries.push({ loc });
  }
  return { kind: "urlset", entries };
}

function httpUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}
