import type { OutboundKind } from "./crawl.types.js";
import { hashRoute, registrableDomain } from "./url.js";

/**
 * Which pages of a site are worth a fetch, and in what order. A crawl has a small
 * page budget, so the pages that tell the scorer most (pricing, docs, changelog,
 * security …) go first, and the first page of each kind is worth far more than a
 * second. Pure: URLs and link texts in, categories and numbers out.
 */

export type PageCategory =
  | "pricing"
  | "docs"
  | "api_reference"
  | "changelog"
  | "security"
  | "privacy"
  | "careers"
  | "customers"
  | "integrations"
  | "status"
  | "blog"
  | "about"
  | "other";

type Known = Exclude<PageCategory, "other">;

/** Path segments (lowercased, "_" read as "-", extension dropped) that name a category. */
const SEGMENTS: Record<Known, readonly string[]> = {
  pricing: ["pricing", "plans", "price", "prices", "pricing-plans", "plans-and-pricing", "plans-pricing"],
  docs: [
    "docs",
    "doc",
    "documentation",
    "developers",
    "developer",
    "dev-docs",
    "guides",
    "guide",
    "manual",
    "help",
    "help-center",
    "knowledge-base",
    "kb",
    "quickstart",
    "quick-start",
    "getting-started",
  ],
  api_reference: ["api", "apis", "reference", "api-reference", "api-docs", "openapi", "swagger", "rest-api"],
  changelog: [
    "changelog",
    "change-log",
    "changes",
    "release-notes",
    "releases",
    "whats-new",
    "what-s-new",
    "updates",
    "product-updates",
  ],
  security: [
    "security",
    "trust",
    "trust-center",
    "compliance",
    "soc2",
    "soc-2",
    "regulation",
    "regulatory",
    "licensing",
    "licences",
    "licenses",
    "certifications",
  ],
  privacy: [
    "privacy",
    "privacy-policy",
    "dpa",
    "subprocessors",
    "sub-processors",
    "gdpr",
    "ccpa",
    "cookies",
    "cookie-policy",
  ],
  careers: ["careers", "career", "jobs", "join-us", "joinus", "hiring", "work-with-us", "open-positions", "vacancies"],
  customers: [
    "customers",
    "customer-stories",
    "case-studies",
    "case-study",
    "cases",
    "customer-cases",
    "stories",
    "success-stories",
    "testimonials",
    "clients",
    "references",
    "achievements",
    "showcase",
  ],
  integrations: [
    "integrations",
    "integration",
    "marketplace",
    "apps",
    "partners",
    "plugins",
    "app-directory",
    "connectors",
    "connector",
  ],
  status: ["status", "system-status", "uptime"],
  blog: ["blog", "blogs", "news", "newsroom", "articles", "posts", "insights"],
  about: [
    "about",
    "about-us",
    "company",
    "team",
    "our-team",
    "leadership",
    "who-we-are",
    "press",
    "people",
    "staff",
    "staff-members",
    "staff_members",
    "founders",
  ],
};

const SEGMENT_CATEGORY = new Map<string, Known>(
  Object.entries(SEGMENTS).flatMap(([category, segments]) =>
    segments.map((segment) => [segment, category as Known] as const),
  ),
);

/** A privacy notice's longer names: "/privacy-and-cookies-policy", "/privacy-notice", "/data-privacy-policy". */
const PRIVACY_SEGMENT =
  /^privacy-(?:[a-z]+-){0,3}(?:policy|policies|notice|statement|cookies?)$|-privacy-(?:policy|notice|statement)$/;

/** The category a path segment names: one of SEGMENTS exactly, or a privacy notice's longer name. */
function segmentCategory(segment: string): Known | undefined {
  return (
    SEGMENT_CATEGORY.get(segment) ??
    (segment.includes("privacy-") && PRIVACY_SEGMENT.test(segment) ? "privacy" : undefined)
  );
}

/** A first segment that lists a blog's posts by topic ("/categories/product-news", "/tags/tutorials"). */
const TAXONOMY = new Set(["categories", "category", "tags", "tag"]);

/**
 * A docs page titled as a reference ("Editor - Brackets API", "HTTPProxy Class Reference",
 * "Payments API Reference"): the API reference, not a guide. A title of just "Reference"
 * names nothing (a docs generator gives it to guides too), nor does "… use our API".
 */
const REFERENCE_TITLE = /(?:^|[A-Z][\w.-]*\s+)API(?: Reference)?$|[A-Z][\w.-]*\s+Reference$/;

/** A page headed as the team or about page ("Our team", "About us"), whatever its address. */
const ABOUT_HEADING = /^(?:(?:our|the) team|team|about us|meet (?:the|our) team)$/i;

/**
 * Segments that group other pages: the next segment decides when it names a
 * category ("/company/careers", "/legal/privacy", "/docs/api"); otherwise the hub's
 * own category applies. Docs hubs refine only to their own kinds, so
 * "/docs/security" stays documentation.
 */
const HUBS = new Map<string, { readonly category: PageCategory; readonly refinesTo: "any" | readonly Known[] }>([
  ...["company", "about", "about-us"].map((s) => [s, { category: "about", refinesTo: "any" }] as const),
  ...["legal", "resources", "product", "products", "platform"].map(
    (s) => [s, { category: "other", refinesTo: "any" }] as const,
  ),
  ...SEGMENTS.docs.map((s) => [s, { category: "docs", refinesTo: ["api_reference", "changelog"] }] as const),
]);

/** Subdomain labels that say what the whole host is ("docs.acme.com", "status.acme.com"). */
const HOST_LABELS = new Map<string, Known>([
  ...["docs", "doc", "developer", "developers", "dev", "help", "support", "learn", "guides", "kb"].map(
    (l) => [l, "docs"] as const,
  ),
  ["api-docs", "api_reference"],
  ["changelog", "changelog"],
  ["status", "status"],
  ["blog", "blog"],
  ["news", "blog"],
  ["careers", "careers"],
  ["jobs", "careers"],
  ["trust", "security"],
  ["security", "security"],
  ["privacy", "privacy"],
]);

/** Link texts, checked in this order, so "API docs" is the API reference and "Privacy & Security" is security. */
const TEXT_PATTERNS: ReadonlyArray<readonly [Known, RegExp]> = [
  ["api_reference", /\b(api|apis|api reference|openapi)\b/],
  ["changelog", /\b(changelog|change log|release notes|releases|what'?s new|product updates)\b/],
  ["pricing", /\b(pricing|plans|prices)\b/],
  [
    "docs",
    /\b(docs|documentation|developers?|guides|help center|knowledge base|quick ?start|getting started)\b|'?\bman'? pages\b/,
  ],
  ["security", /\b(security|trust|trust center|compliance|soc ?2)\b/],
  ["privacy", /\b(privacy|gdpr|dpa|subprocessors)\b/],
  ["careers", /\b(careers|jobs|hiring|join us)\b/],
  ["customers", /\b(customers|clients|case studies|customer stories|success stories|testimonials|references)\b/],
  ["integrations", /\b(integrations|marketplace|apps|partners)\b/],
  ["status", /\b(status|system status|uptime)\b/],
  ["blog", /\b(blog|news|articles)\b/],
  ["about", /\b(about|about us|company|team|our story)\b/],
];

/** Leading locale segments ("/en", "/de-de", "/pt_BR") say nothing about the page. */
const LOCALE = /^[a-z]{2}(-[a-z]{2,4})?$/;

export interface PageDescription {
  readonly category: PageCategory;
  /**
   * 1 for a category's index page ("/pricing", "/company/careers", "docs.acme.com/"),
   * plus one per path segment below it ("/blog/2025/launch" is 3); 0 for the home page.
   */
  readonly depth: number;
}

/**
 * Category and depth of a page, from its URL and, when the URL says nothing, the
 * link's text. `basePath` is the folder the site lives under ("/website/",
 * "/en-us/"): it is read as the site's root, so "/website/pricing" is the pricing page.
 */
export function describePage(url: string, linkText?: string, basePath = "/", heading?: string): PageDescription {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { category: textCategory(linkText) ?? "other", depth: 1 };
  }
  // A hash-routed app's page is named by its route ("/#/pricing" is the pricing page).
  const route = parsed.hash === "" ? undefined : hashRoute(parsed.hash);
  const pathname = route
    ? route.replace(/^#!?/, "")
    : basePath.length > 1 && parsed.pathname.startsWith(basePath)
      ? parsed.pathname.slice(basePath.length - 1)
      : parsed.pathname;
  const segments = meaningfulSegments(pathname);
  // Files under /.well-known (security.txt …) are for machines, not pages to read.
  if (segments[0] === ".well-known") return { category: "other", depth: segments.length };
  const fromPath = pathCategory(segments, hostCategory(parsed.hostname));
  if (fromPath) {
    // (A title is short: a long text is not a reference page's name, and is not worth the regex.)
    const reference =
      fromPath.category === "docs" &&
      linkText !== undefined &&
      linkText.length <= 160 &&
      REFERENCE_TITLE.test(linkText.trim());
    return reference ? { ...fromPath, category: "api_reference" } : fromPath;
  }
  if (segments.length === 0) return { category: "other", depth: 0 };
  const fromText =
    textCategory(linkText) ?? (heading !== undefined && ABOUT_HEADING.test(heading.trim()) ? "about" : undefined);
  return { category: fromText ?? "other", depth: segments.length };
}

/**
 * A page's category from its address and its title (or the text of a link to it); a
 * read page's main heading (h1), when given, makes a page headed "Our team" the about page.
 */
export function classifyPage(url: string, linkText?: string, heading?: string): PageCategory {
  return describePage(url, linkText, "/", heading).category;
}

function pathCategory(segments: readonly string[], host: Known | undefined): PageDescription | undefined {
  const below = (index: number) => segments.length - index;
  // A status or blog host is that thing throughout; a docs host is a docs hub.
  if (host && host !== "docs") return { category: host, depth: segments.length + 1 };
  const [first, second] = segments;
  if (host === "docs") {
    const refined = first === undefined ? undefined : segmentCategory(first);
    if (refined === "api_reference" || refined === "changelog") return { category: refined, depth: below(0) };
    return { category: "docs", depth: segments.length + 1 };
  }
  if (first === undefined) return undefined;
  // A topic's list of posts, whatever the topic is called ("/categories/integrations").
  if (TAXONOMY.has(first)) return { category: "blog", depth: below(0) };
  const hub = HUBS.get(first);
  if (hub) {
    const next = second === undefined ? undefined : segmentCategory(second);
    if (next && (hub.refinesTo === "any" || hub.refinesTo.includes(next))) return { category: next, depth: below(1) };
    return hub.category === "other" ? undefined : { category: hub.category, depth: below(0) };
  }
  const category = segmentCategory(first);
  return category ? { category, depth: below(0) } : undefined;
}

/** A segment that decoding, lowercasing, "_" → "-" and dropping an extension leave as it is. */
const PLAIN_SEGMENT = /^[a-z0-9-]*$/;

function meaningfulSegments(pathname: string): string[] {
  const segments = pathname
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) =>
      PLAIN_SEGMENT.test(segment)
        ? segment
        : safeDecode(segment)
            .toLowerCase()
            .replace(/_/g, "-")
            .replace(/\.(html?|php|aspx?)$/, ""),
    );
  // A locale ("/en-us/…") says nothing about the page; what follows it is read as the path.
  const local = segments.length > 1 && LOCALE.test(segments[0]!) ? segments.slice(1) : segments;
  const [first, second] = local;
  if (first === undefined || second === undefined) return local;
  // A leading folder that names nothing, followed by one that does, is where the site lives ("/website/pricing",
  // "/en-US/component/changelog").
  const names = (segment: string) => segmentCategory(segment) !== undefined || HUBS.has(segment);
  return !names(first) && names(second) ? local.slice(1) : local;
}

/**
 * Answers of the two pure lookups every offered link repeats (a site links to a
 * handful of hosts, and navigation labels recur on every page), kept per process
 * and bounded: past the bound a cache starts over.
 */
const CACHE_BOUND = 10_000;
const hostCategories = new Map<string, Known | undefined>();
const textCategories = new Map<string, Known | undefined>();

function remembered(
  cache: Map<string, Known | undefined>,
  key: string,
  answer: (key: string) => Known | undefined,
): Known | undefined {
  if (cache.has(key)) return cache.get(key);
  const value = answer(key);
  if (cache.size >= CACHE_BOUND) cache.clear();
  cache.set(key, value);
  return value;
}

function hostCategory(hostname: string): Known | undefined {
  return remembered(hostCategories, hostname, readHostCategory);
}

function readHostCategory(hostname: string): Known | undefined {
  const site = registrableDomain(hostname);
  if (!hostname.endsWith(`.${site}`)) return undefined;
  const subdomain = hostname.slice(0, -site.length - 1).split(".");
  for (const label of subdomain) {
    const category = HOST_LABELS.get(label);
    if (category) return category;
  }
  return undefined;
}

/** Only short link texts: a long one is a headline ("How we rethought pricing"), not a navigation label. */
function textCategory(text: string | undefined): Known | undefined {
  return text === undefined || text === "" ? undefined : remembered(textCategories, text, readTextCategory);
}

function readTextCategory(text: string): Known | undefined {
  const normalised = text.toLowerCase().replace(/[’]/g, "'").replace(/\s+/g, " ").trim();
  if (normalised === "" || normalised.split(" ").length > 4) return undefined;
  return TEXT_PATTERNS.find(([, pattern]) => pattern.test(normalised))?.[0];
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** What a category's index page is worth; the order is the order we want them fetched. */
const CATEGORY_WEIGHT: Record<PageCategory, number> = {
  pricing: 100,
  docs: 95,
  api_reference: 90,
  changelog: 85,
  security: 80,
  privacy: 75,
  careers: 70,
  customers: 65,
  integrations: 60,
  status: 55,
  blog: 50,
  about: 45,
  other: 20,
};
/** Each level below a category's index halves a page's worth: a blog post is worth less than the blog. */
const DEPTH_DECAY = 0.5;
/** A second page of a kind adds far less than the first: the scorer already knows the site has one. */
const REPEAT_DECAY = 0.3;

/**
 * Higher is fetched earlier. `depth` as in PageDescription (1 = the category's
 * index page); `alreadyInCategory` counts pages of this category fetched or
 * ranked ahead of this one.
 */
export function pagePriority(category: PageCategory, depth: number, alreadyInCategory = 0): number {
  return (
    CATEGORY_WEIGHT[category] * DEPTH_DECAY ** Math.max(0, depth - 1) * REPEAT_DECAY ** Math.max(0, alreadyInCategory)
  );
}

export interface Candidate {
  readonly url: string;
  /** Text of the link that led here ("" when it came from a sitemap). */
  readonly text: string;
  /** Link hops from the home page (1 = linked from it); used only to break ties. */
  readonly depth: number;
}

export type RankedCandidate<T extends Candidate> = T & { readonly category: PageCategory; readonly priority: number };

/**
 * Candidates in fetch order, best first, as if picked one at a time: each pick
 * discounts the rest of its category, so "/pricing", "/plans", "/docs" comes out
 * as pricing, docs, then the second pricing page. `alreadyPerCategory` counts the
 * pages already fetched. Ties go to fewer link hops, then the shorter URL, then
 * alphabetical order. Does not deduplicate: pass canonical, distinct URLs.
 */
export function rankCandidates<T extends Candidate>(
  candidates: readonly T[],
  alreadyPerCategory: ReadonlyMap<PageCategory, number>,
): RankedCandidate<T>[] {
  const byCategory = new Map<PageCategory, Array<{ candidate: T; worth: number }>>();
  for (const candidate of candidates) {
    const { category, depth } = describePage(candidate.url, candidate.text);
    const group = byCategory.get(category) ?? [];
    group.push({ candidate, worth: pagePriority(category, depth) });
    byCategory.set(category, group);
  }

  const ranked: Array<RankedCandidate<T>> = [];
  for (const [category, group] of byCategory) {
    group.sort((a, b) => b.worth - a.worth || compareTies(a.candidate, b.candidate));
    const already = alreadyPerCategory.get(category) ?? 0;
    // Within a category worth only falls, so one global sort equals picking greedily.
    group.forEach(({ candidate, worth }, index) => {
      ranked.push({ ...candidate, category, priority: worth * REPEAT_DECAY ** (already + index) });
    });
  }
  return ranked.sort((a, b) => b.priority - a.priority || compareTies(a, b));
}

function compareTies(a: Candidate, b: Candidate): number {
  return a.depth - b.depth || a.url.length - b.url.length || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);
}

/** Hosts whose pages say something about a product from outside its site. */
const OUTBOUND_HOSTS: ReadonlyArray<readonly [Exclude<OutboundKind, "other">, readonly string[]]> = [
  [
    "app_store",
    [
      "apps.apple.com",
      "itunes.apple.com",
      "play.google.com",
      "chromewebstore.google.com",
      "marketplace.visualstudio.com",
      "addons.mozilla.org",
    ],
  ],
  [
    "social",
    [
      "twitter.com",
      "x.com",
      "linkedin.com",
      "youtube.com",
      "youtu.be",
      "facebook.com",
      "instagram.com",
      "discord.gg",
      "discord.com",
      "reddit.com",
      "tiktok.com",
    ],
  ],
  ["docs_host", ["readme.io", "gitbook.io", "mintlify.app"]],
  ["status_page", ["statuspage.io", "instatus.com", "status.io", "betteruptime.com"]],
  ["trust_center", ["trust.page", "safebase.io"]],
];

const hostIs = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

/** What kind of outside page a link points at; "other" for anything not worth noting. */
export function classifyOutbound(url: string): OutboundKind {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "other";
  }
  const host = parsed.hostname
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^www\./, "");
  // Only the code hosts themselves: docs.github.com is documentation, not a repository.
  if (host === "github.com" || host === "gitlab.com") return "github";
  if (host === "join.slack.com") return "social";
  if (host === "chrome.google.com" && parsed.pathname.startsWith("/webstore")) return "app_store";
  for (const [kind, domains] of OUTBOUND_HOSTS) {
    if (domains.some((domain) => hostIs(host, domain))) return kind;
  }
  if (host.startsWith("status.")) return "status_page";
  if (host.startsWith("trust.") || host.startsWith("security.")) return "trust_center";
  if (host === "app.vanta.com" && /^\/[^/]+\/trust(\/|$)/.test(parsed.pathname)) return "trust_center";
  return "other";
}
