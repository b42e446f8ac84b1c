import { createRequire } from "node:module";
import { parseDocument } from "htmlparser2";
import { getDomainWithoutSuffix } from "tldts";
import type { ExtractedPage, FoundPrice, JsonLdEntity, PageLink, TrustHeaders } from "./crawl.types.js";
import { domAdapter, htmlparser2Adapter, walkTree, type RawPage } from "./html-tree.js";
import { canonicalUrl, isSameSite } from "./url.js";

/**
 * From a decoded page to plain data for the scorer. HTML goes through
 * htmlparser2 (measured: about 2× faster than parse5, jsdom's HTML parser, with
 * text nodes that are slices of the input rather than strings grown a character
 * at a time); XHTML needs an XML parser, so it goes through jsdom and falls back
 * to htmlparser2 when it is not well-formed. Nothing of either tree outlives the call.
 */

export interface PageInput {
  readonly url: string;
  readonly status: number;
  readonly body: string;
  readonly kind: "html" | "xhtml";
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * `input.url` is the address the body was served from, as fetched: relative links
 * resolve against it, so "/docs/" must keep its slash. The page's `url` is its
 * canonical spelling.
 */
export function extractPage(input: PageInput): ExtractedPage {
  const raw = (input.kind === "xhtml" && walkXhtml(input.body, input.url)) || walkTree(parseHtml(input.body), htmlparser2Adapter);
  const base = (raw.baseHref !== undefined && canonicalBase(raw.baseHref, input.url)) || input.url;
  const { internal, external } = resolveLinks(raw, base, input.url);
  return {
    url: canonicalUrl(input.url) ?? input.url,
    status: input.status,
    title: detach(raw.title),
    metaDescription: detach(raw.metaDescription),
    openGraph: Object.fromEntries(Object.entries(raw.openGraph).map(([key, value]) => [detach(key), detach(value)])),
    jsonLd: raw.jsonLdSources.flatMap(parseJsonLd).slice(0, MAX_ENTITIES),
    canonical: raw.canonicalHref === undefined ? undefined : canonicalUrl(raw.canonicalHref, base),
    lang: raw.lang?.trim() ? detach(raw.lang.trim()) : undefined,
    headings: raw.headings.map((heading) => ({ level: heading.level, text: detach(heading.text) })),
    text: detach(raw.text),
    boilerplate: raw.boilerplate.map(detach),
    internalLinks: internal.map(detachLink),
    externalLinks: external.map(detachLink),
    dates: findDates(raw.text, raw.timeValues),
    prices: findPrices(raw.text).map((price) => ({ ...price, text: detach(price.text) })),
    trustHeaders: trustHeadersOf(input.headers),
    metaRefresh: refreshTarget(raw.refreshContent, base),
  };
}

/**
 * htmlparser2's strings are slices of the page's HTML, and V8 keeps the whole
 * page alive behind a slice. Everything the page result keeps is copied, so
 * nothing of the 100–200 KB input outlives extraction.
 */
function detach(value: string): string {
  return value.length < 13 ? value : ` ${value}`.slice(1);
}

const detachLink = (link: PageLink): PageLink => ({ url: link.url, text: detach(link.text), inNav: link.inNav });

/** HTML as browsers read it where it matters for extraction: lower-case names, entities decoded. */
function parseHtml(html: string) {
  return parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
}

/**
 * jsdom costs ~90 MB of RSS once loaded and only XHTML pages need it, so it is
 * required (it is CommonJS, so synchronously) the first time one arrives.
 */
let jsdomModule: typeof import("jsdom") | undefined;
const loadJsdom = (): typeof import("jsdom") => (jsdomModule ??= createRequire(import.meta.url)("jsdom") as typeof import("jsdom"));

function walkXhtml(body: string, url: string): RawPage | undefined {
  const { JSDOM, VirtualConsole } = loadJsdom();
  let dom: InstanceType<typeof JSDOM>;
  try {
    // A fresh VirtualConsole forwards nowhere: CSS and XML complaints stay out of the logs.
    dom = new JSDOM(body, { contentType: "application/xhtml+xml", url, virtualConsole: new VirtualConsole() });
  } catch {
    return undefined; // not well-formed XML: browsers would show an error, but the content is still there as HTML
  }
  try {
    return walkTree<Node>(dom.window.document, domAdapter);
  } finally {
    dom.window.close();
  }
}

/** The document's base URL: <base href> resolved against the page, fragments and all. */
function canonicalBase(href: string, pageUrl: string): string | undefined {
  try {
    const url = new URL(href, pageUrl);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function resolveLinks(raw: RawPage, base: string, pageUrl: string): { internal: PageLink[]; external: PageLink[] } {
  const seenHrefs = new Set<string>();
  const seen = new Set<string>();
  const sameSite = new Map<string, boolean>(); // by origin: menus link to a handful of hosts, many times
  const internal: PageLink[] = [];
  const external: PageLink[] = [];
  for (const link of raw.links) {
    const href = link.href.trim();
    if (href === "" || href.startsWith("#") || seenHrefs.has(href)) continue; // "#…" is a place in this page
    seenHrefs.add(href);
    const url = canonicalUrl(href, base);
    if (url === undefined || seen.has(url)) continue;
    seen.add(url);
    const origin = url.slice(0, url.indexOf("/", url.indexOf("//") + 2));
    let internalLink = sameSite.get(origin);
    if (internalLink === undefined) sameSite.set(origin, (internalLink = isSameSite(url, pageUrl)));
    (internalLink ? internal : external).push({ url, text: link.text, inNav: link.inNav });
  }
  return { internal, external };
}

function refreshTarget(content: string | undefined, base: string): string | undefined {
  // "0; url=/next", "5;URL='/next'", "0, /next": delay, separator, optional "url=", optional quotes.
  const match = /^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?(["']?)([^"']*)\1?/i.exec(content ?? "");
  const target = match?.[2]?.trim();
  return target ? canonicalUrl(target, base) : undefined;
}

function trustHeadersOf(headers: PageInput["headers"]): TrustHeaders {
  const present = new Set<string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && String(value).trim() !== "") present.add(name.toLowerCase());
  }
  return {
    hsts: present.has("strict-transport-security"),
    csp: present.has("content-security-policy"),
    xFrameOptions: present.has("x-frame-options"),
    xContentTypeOptions: present.has("x-content-type-options"),
  };
}

// ---------------------------------------------------------------- JSON-LD

const MAX_ENTITIES = 50;
const KEPT_TYPES = new Set([
  "Organization", "Corporation", "Product", "SoftwareApplication", "WebApplication", "MobileApplication", "Offer", "AggregateOffer",
]);
const SELLABLE = new Set(["Product", "SoftwareApplication", "WebApplication", "MobileApplication"]);
const SCALARS = ["url", "description", "price", "priceCurrency", "lowPrice", "highPrice", "applicationCategory", "operatingSystem", "sameAs"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

function parseJsonLd(source: string): JsonLdEntity[] {
  // Old pages wrap the block in <!-- --> or CDATA markers to hide it from ancient browsers.
  const unwrapped = source.trim().replace(/^(?:<!--|(?:\/\/\s*)?<!\[CDATA\[)|(?:-->|(?:\/\/\s*)?\]\]>)$/g, "");
  const data = parseLenient(unwrapped);
  const entities: JsonLdEntity[] = [];
  collectEntities(data, entities, 0);
  return entities;
}

function parseLenient(source: string): Json | undefined {
  try {
    return JSON.parse(source) as Json;
  } catch {
    try {
      // Hand-written blocks often hold raw newlines or tabs inside strings, which JSON forbids.
      return JSON.parse(source.replace(/[\u0000-\u001f]+/g, " ")) as Json;
    } catch {
      return undefined;
    }
  }
}

function collectEntities(value: Json | undefined, out: JsonLdEntity[], depth: number): void {
  if (value === undefined || value === null || typeof value !== "object" || depth > 6 || out.length >= MAX_ENTITIES) return;
  if (Array.isArray(value)) {
    for (const item of value) collectEntities(item, out, depth + 1);
    return;
  }
  collectEntities(value["@graph"], out, depth + 1);
  const type = keptTypeOf(value["@type"]);
  if (type !== undefined) out.push(toEntity(type, value));
  if (type === undefined || SELLABLE.has(type)) collectEntities(value["offers"], out, depth + 1);
  collectEntities(value["mainEntity"], out, depth + 1);
}

function keptTypeOf(type: Json | undefined): string | undefined {
  const names = Array.isArray(type) ? type : [type];
  for (const name of names) {
    // "Organization", "schema:Organization" and "https://schema.org/Organization" are the same type.
    const bare = typeof name === "string" ? name.replace(/^.*[/:#]/, "") : undefined;
    if (bare !== undefined && KEPT_TYPES.has(bare)) return bare;
  }
  return undefined;
}

function toEntity(type: string, value: JsonObject): JsonLdEntity {
  const properties: Record<string, string> = {};
  const spec = value["priceSpecification"];
  const priceSpec = spec && typeof spec === "object" && !Array.isArray(spec) ? spec : {};
  for (const key of SCALARS) {
    const text = scalarText(value[key] ?? priceSpec[key]);
    if (text !== undefined) properties[key] = text;
  }
  const name = scalarText(value["name"]);
  return name === undefined ? { type, properties } : { type, name, properties };
}

function scalarText(value: Json | undefined): string | undefined {
  if (typeof value === "string") return value.trim().replace(/\s+/g, " ").slice(0, 1000) || undefined;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    const parts = value.map((item) => scalarText(item)).filter((part) => part !== undefined);
    return parts.length > 0 ? parts.join(" ") : undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------- dates

const MONTHS: Record<string, number> = {
  jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12,
};
const MONTH = "(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?";
const DATE_FORMS = new RegExp(
  [
    "\\b(\\d{4})-(\\d{2})-(\\d{2})(?![\\d])", // 2025-03-05
    `\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, // March 5, 2025
    `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH}\\s+(\\d{4})\\b`, // 5 March 2025
  ].join("|"),
  "gi",
);

function findDates(text: string, timeValues: readonly string[]): string[] {
  const found = new Set<string>();
  const lastYear = new Date().getUTCFullYear() + 1;
  const add = (year: number, month: number, day: number) => addDate(found, lastYear, year, month, day);
  for (const value of timeValues) {
    const iso = /^\s*(\d{4})-(\d{2})-(\d{2})/.exec(value);
    if (iso) add(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  }
  DATE_FORMS.lastIndex = 0;
  for (let m = DATE_FORMS.exec(text); m; m = DATE_FORMS.exec(text)) {
    if (m[1] !== undefined) add(Number(m[1]), Number(m[2]), Number(m[3]));
    else if (m[4] !== undefined) add(Number(m[6]), monthNumber(m[4]), Number(m[5]));
    else add(Number(m[9]), monthNumber(m[8]), Number(m[7]));
  }
  return [...found].sort();
}

const monthNumber = (name: string | undefined): number => MONTHS[(name ?? "").slice(0, 3).toLowerCase()] ?? 0;

/** Days in each month of a non-leap year; February of leap years is checked apart. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function addDate(found: Set<string>, lastYear: number, year: number, month: number, day: number): void {
  if (year < 1995 || year > lastYear || month < 1 || month > 12 || day < 1) return;
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (DAYS_IN_MONTH[month - 1] ?? 0) + (leap ? 1 : 0)) return; // no 31 April, no 29 February 2025
  found.add(`${year}-${month < 10 ? "0" : ""}${month}-${day < 10 ? "0" : ""}${day}`);
}

// ---------------------------------------------------------------- prices

const MAX_PRICES = 50;
const SNIPPET = 80;
const SYMBOLS: Record<string, string> = {
  "US$": "USD", "CA$": "CAD", "C$": "CAD", "AU$": "AUD", "A$": "AUD", "NZ$": "NZD", "HK$": "HKD", "S$": "SGD", "R$": "BRL",
  $: "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW", "₽": "RUB", "₺": "TRY", "₪": "ILS", "₱": "PHP", "zł": "PLN",
};
const CODES = "USD|EUR|GBP|JPY|INR|CAD|AUD|NZD|CHF|CNY|HKD|SGD|SEK|NOK|DKK|PLN|CZK|BRL|MXN|ZAR|KRW|RUB|TRY|ILS|AED|PHP";
const SYMBOL = "US\\$|CA\\$|C\\$|AU\\$|A\\$|NZ\\$|HK\\$|S\\$|R\\$|\\$|€|£|¥|₹|₩|₽|₺|₪|₱";
// 1,299.99 · 1.299,99 · 1299 · 49.5 — thousands groups, then an optional decimal part.
const AMOUNT = "\\d{1,3}(?:[,.]\\d{3})+(?:[.,]\\d{1,2})?|\\d+(?:[.,]\\d{1,2})?";
const PRICE_FORMS = new RegExp(
  [
    `(${SYMBOL})\\s?(${AMOUNT})(?![\\d\\p{L}])`, // $49, €29, ¥1000
    `\\b(${CODES})\\s?(${AMOUNT})(?![\\d\\p{L}])`, // USD 49
    `(?<![\\d.,\\p{L}])(${AMOUNT})\\s?(€|£|¥|₹|zł|${CODES})(?![\\p{L}])`, // 29 €, 49 USD
  ].join("|"),
  "gu",
);

function findPrices(text: string): FoundPrice[] {
  const prices: FoundPrice[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(PRICE_FORMS)) {
    const [symbol, written] = m[1] !== undefined ? [m[1], m[2]] : m[3] !== undefined ? [m[3], m[4]] : [m[6], m[5]];
    const currency = SYMBOLS[symbol ?? ""] ?? symbol ?? "";
    const amount = parseAmount(written ?? "");
    if (!Number.isFinite(amount)) continue;
    const snippet = snippetAround(text, m.index, m[0].length);
    const key = `${currency} ${amount} ${snippet}`;
    if (seen.has(key)) continue;
    seen.add(key);
    prices.push({ currency, amount, text: snippet });
    if (prices.length >= MAX_PRICES) break;
  }
  return prices;
}

/** "1,299.99" → 1299.99; "1.299,99" → 1299.99; "29,99" → 29.99; "1,299" → 1299. */
function parseAmount(written: string): number {
  const decimal = /[.,](\d{1,2})$/.exec(written);
  const whole = (decimal ? written.slice(0, decimal.index) : written).replace(/[.,]/g, "");
  return Number(decimal ? `${whole}.${decimal[1]}` : whole);
}

/** The words around a match on its own line, at most 80 characters, the match kept whole. */
function snippetAround(text: string, index: number, length: number): string {
  const matchEnd = index + length;
  const lineStart = text.lastIndexOf("\n", index) + 1;
  const newline = text.indexOf("\n", matchEnd);
  const lineEnd = newline === -1 ? text.length : newline;
  const room = Math.max(0, SNIPPET - length);
  let after = Math.min(lineEnd - matchEnd, Math.ceil(room / 2));
  const before = Math.min(index - lineStart, room - after);
  after = Math.min(lineEnd - matchEnd, room - before);
  let start = index - before;
  let end = matchEnd + after;
  // Do not start or end on half a word.
  if (start > lineStart && text[start - 1] !== " ") start = Math.min(index, text.indexOf(" ", start) + 1 || index);
  if (end < lineEnd && text[end] !== " ") end = Math.max(matchEnd, text.lastIndexOf(" ", end));
  return text.slice(start, end).trim().slice(0, SNIPPET);
}

// ---------------------------------------------------------------- company name

const TITLE_SEPARATORS = / [|\-–—·:] /;
const GENERIC_TITLES = new Set(["home", "homepage", "home page", "welcome", "index", "untitled", "coming soon"]);

/** The name the site gives itself: JSON-LD organisation, og:site_name, the brand part of the title, then the domain. */
export function detectCompanyName(home: ExtractedPage, host: string): string {
  const organization = home.jsonLd.find((entity) => (entity.type === "Organization" || entity.type === "Corporation") && entity.name);
  if (organization?.name) return organization.name;
  const siteName = home.openGraph["site_name"]?.trim();
  if (siteName) return siteName;
  const label = (getDomainWithoutSuffix(host) || host.replace(/^www\./, "").split(".")[0] || host).toLowerCase();
  return brandFromTitle(home.title, label) ?? label.charAt(0).toUpperCase() + label.slice(1);
}

function brandFromTitle(title: string, label: string): string | undefined {
  const parts = title.split(TITLE_SEPARATORS).map((part) => part.trim()).filter((part) => part !== "");
  const squash = (value: string) => value.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
  const brand = squash(label);
  const shared = parts.filter((part) => {
    const squashed = squash(part);
    return (brand.length >= 3 && squashed.includes(brand)) || (squashed.length >= 3 && brand.includes(squashed));
  });
  const byLength = (a: string, b: string) => a.length - b.length;
  if (shared.length > 0) return shared.sort(byLength)[0];
  // A title with no separator is a brand only if it reads like one: short and not "Home".
  const candidates = parts.length > 1 ? parts : parts.filter((part) => part.split(/\s+/).length <= 3);
  return candidates.filter((part) => !GENERIC_TITLES.has(part.toLowerCase())).sort(byLength)[0];
}
