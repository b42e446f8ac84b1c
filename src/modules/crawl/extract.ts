import { createRequire } from "node:module";
import { getDomainWithoutSuffix } from "tldts";
import { storableText } from "../../db/pg-text.js";
import type { ExtractedPage, JsonLdEntity, PageLink, TrustHeaders } from "./crawl.types.js";
import { domAdapter, walkHtml, walkTree, type RawPage, type ScriptingSignals } from "./html-tree.js";
import { findDates, findPrices } from "./text-signals.js";
import {
  canonicalUrl,
  fetchAddress,
  folderAddress,
  isSameSite,
  originOf,
  resolveLink,
  routeAddress,
  splitRoute,
} from "./url.js";

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
  /**
   * The body is a browser's DOM after the page's scripts ran (render/): <noscript> is not
   * shown, template scripts were already rendered, and links to hash routes ("#/pricing")
   * are pages of their own. `url` may then carry the route.
   */
  readonly rendered?: boolean;
}

/** A page as extracted, with what says whether its words are written by script. */
export interface ReadPage {
  readonly page: ExtractedPage;
  readonly scripting: ScriptingSignals;
}

/**
 * `input.url` is the address the body was served from, as fetched: relative links
 * resolve against it, so "/docs/" must keep its slash. The page's `url` is its
 * canonical spelling.
 */
export function extractPage(input: PageInput): ExtractedPage {
  return readPage(input).page;
}

export function readPage(input: PageInput): ReadPage {
  const rendered = input.rendered === true;
  const { document, route } = rendered ? splitRoute(input.url) : { document: input.url, route: undefined };
  // NUL in a page (raw, or written into the DOM by a script) would reach the stored result and fail its insert.
  const body = storableText(input.body);
  const raw =
    (input.kind === "xhtml" && !rendered && walkXhtml(body, document)) || walkHtml(body, { scripted: rendered });
  const base = (raw.baseHref !== undefined && canonicalBase(raw.baseHref, document)) || document;
  const { internal, external } = resolveLinks(raw, base, document, rendered);
  const page: ExtractedPage = {
    url: (canonicalUrl(document) ?? document) + (route ?? ""),
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
    dates: findDates(raw.prose, raw.timeValues),
    prices: findPrices(raw.text).map((price) => ({ ...price, text: detach(price.text) })),
    trustHeaders: trustHeadersOf(input.headers),
    metaRefresh: refreshTarget(raw.refreshContent, base),
    ...(rendered ? { rendered: true as const } : {}),
  };
  return { page, scripting: raw.scripting };
}

/**
 * htmlparser2's strings are slices of the page's HTML, and V8 keeps the whole
 * page alive behind a slice. Everything the page result keeps is copied, so
 * nothing of the 100–200 KB input outlives extraction.
 */
function detach(value: string): string {
  return value.length < 13 ? value : ` ${value}`.slice(1);
}

const detachLink = (link: PageLink): PageLink =>
  link.href === undefined
    ? { url: link.url, text: detach(link.text), inNav: link.inNav }
    : { url: link.url, href: link.href, text: detach(link.text), inNav: link.inNav };

/**
 * jsdom costs ~90 MB of RSS once loaded and only XHTML pages need it, so it is
 * required (it is CommonJS, so synchronously) the first time one arrives.
 */
let jsdomModule: typeof import("jsdom") | undefined;
const loadJsdom = (): typeof import("jsdom") =>
  (jsdomModule ??= createRequire(import.meta.url)("jsdom") as typeof import("jsdom"));

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

/** "#/" (or "#!/"): a hash-routed app's home, the document itself. */
const ROOT_ROUTE = /^#!?\/?$/;

function resolveLinks(
  raw: RawPage,
  base: string,
  pageUrl: string,
  rendered: boolean,
): { internal: PageLink[]; external: PageLink[] } {
  const seenHrefs = new Set<string>();
  const seen = new Set<string>();
  const sameSite = new Map<string, boolean>(); // by origin: menus link to a handful of hosts, many times
  const internal: PageLink[] = [];
  const external: PageLink[] = [];
  for (const link of raw.links) {
    const href = link.href.trim();
    if (href === "" || seenHrefs.has(href)) continue;
    seenHrefs.add(href);
    // In a rendered app "#/pricing" is a page of its own; otherwise "#…" is a place in this page.
    const routed =
      rendered && href.includes("#")
        ? ROOT_ROUTE.test(href)
          ? canonicalUrl(base)
          : routeAddress(href, base)
        : undefined;
    if (routed !== undefined) {
      if (!seen.has(routed) && isSameSite(routed, pageUrl)) {
        seen.add(routed);
        internal.push({ url: routed, text: link.text, inNav: link.inNav });
      }
      continue;
    }
    if (href.startsWith("#")) continue;
    const resolved = resolveLink(href, base);
    if (resolved === undefined || seen.has(resolved.url)) continue;
    const { url } = resolved;
    seen.add(url);
    const origin = originOf(url);
    let internalLink = sameSite.get(origin);
    if (internalLink === undefined) sameSite.set(origin, (internalLink = isSameSite(url, pageUrl)));
    if (!internalLink) {
      external.push({ url, text: link.text, inNav: link.inNav });
      continue;
    }
    const fetchUrl = resolved.folder ? folderAddress(url) : url;
    internal.push(
      fetchUrl === url
        ? { url, text: link.text, inNav: link.inNav }
        : { url, href: fetchUrl, text: link.text, inNav: link.inNav },
    );
  }
  return { internal, external };
}

function refreshTarget(content: string | undefined, base: string): string | undefined {
  // "0; url=/next", "5;URL='/next'", "0, /next": delay, separator, optional "url=", optional quotes.
  const match = /^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?(["']?)([^"']*)\1?/i.exec(content ?? "");
  const target = match?.[2]?.trim();
  const url = target ? canonicalUrl(target, base) : undefined;
  return target && url ? fetchAddress(target, base, url) : undefined;
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
  "Organization",
  "Corporation",
  "Product",
  "SoftwareApplication",
  "WebApplication",
  "MobileApplication",
  "Offer",
  "AggregateOffer",
]);
const SELLABLE = new Set(["Product", "SoftwareApplication", "WebApplication", "MobileApplication"]);
const SCALARS = [
  "url",
  "description",
  "price",
  "priceCurrency",
  "lowPrice",
  "highPrice",
  "applicationCategory",
  "operatingSystem",
  "sameAs",
];

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
  if (value === undefined || value === null || typeof value !== "object" || depth > 6 || out.length >= MAX_ENTITIES)
    return;
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
  // JSON escapes ("\u0000", a lone "\ud83d") bring back what the page's text had removed.
  if (typeof value === "string") return storableText(value.trim().replace(/\s+/g, " ").slice(0, 1000)) || undefined;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) {
    const parts = value.map((item) => scalarText(item)).filter((part) => part !== undefined);
    return parts.length > 0 ? parts.join(" ") : undefined;
  }
  return undefined;
}

// ---------------------------------------------------------------- company name

const TITLE_SEPARATORS = / [|\-–—·:] /;
const GENERIC_TITLES = new Set(["home", "homepage", "home page", "welcome", "index", "untitled", "coming soon"]);

/** The name the site gives itself: JSON-LD organisation, og:site_name, the brand part of the title, then the domain. */
export function detectCompanyName(home: ExtractedPage, host: string): string {
  const organization = home.jsonLd.find(
    (entity) => (entity.type === "Organization" || entity.type === "Corporation") && entity.name,
  );
  if (organization?.name) return organization.name;
  const siteName = home.openGraph["site_name"]?.trim();
  if (siteName) return siteName;
  const label = (getDomainWithoutSuffix(host) || host.replace(/^www\./, "").split(".")[0] || host).toLowerCase();
  return brandFromTitle(home.title, label) ?? label.charAt(0).toUpperCase() + label.slice(1);
}

function brandFromTitle(title: string, label: string): string | undefined {
  const parts = title
    .split(TITLE_SEPARATORS)
    .map((part) => part.trim())
    .filter((part) => part !== "");
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
