import type { OutboundKind } from "../crawl/crawl.types.js";
import { classifyPage, type PageCategory } from "../crawl/page-priority.js";
import { announcedEnd } from "./announced-end.js";
import { ownOutbound } from "./rules/code-hosts.js";
import { JOB_BOARD, jobOpenings } from "./rules/growth-organization.js";
import { SCORED_TEXT_PER_PAGE, type SiteFacts } from "./site-facts.js";

/**
 * Anti-patterns: things a visitor would notice as careless or unbacked, named in
 * one readable sentence each, with the page. Pure and ordered: by kind (the
 * order below), then by page in crawl order, so the same crawl gives the same list.
 * Only crawled pages are judged; a page we did not fetch is never called empty.
 */
export function detectAntiPatterns(facts: SiteFacts): string[] {
  return [
    ...pricingWithoutPrices(facts),
    ...careersWithoutOpenings(facts),
    ...placeholderText(facts),
    ...staleDates(facts),
    ...navigationToEmptyPages(facts),
    ...unsupportedClaims(facts),
    ...endAnnounced(facts),
  ];
}

function endAnnounced(facts: SiteFacts): string[] {
  const end = announcedEnd(facts.crawl);
  return end ? [`Announces its own end: "${end.text}" (${end.url})`] : [];
}

/** Below this many characters of main text a page says next to nothing. */
const NEARLY_EMPTY = 200;
/** "Older than 2 years" for the newest dated entry. */
const STALE_DAYS = 730;

function pricingWithoutPrices(facts: SiteFacts): string[] {
  const [page] = facts.pagesIn("pricing");
  // One finding per site: a second pricing page (e.g. /pricing/enterprise) may rightly have no prices of its own.
  if (!page || facts.hasPrices({ in: ["pricing"] })) return [];
  // A product that is free says so instead of showing "$0"; that is not hiding the price.
  if (
    facts.mentions(/\b(free forever|completely free|100% free|always free|free for everyone|is (entirely )?free)\b/i, {
      in: ["pricing"],
      limit: 1,
    }).length > 0
  )
    return [];
  return [`Pricing page without prices (${page.url})`];
}

function careersWithoutOpenings(facts: SiteFacts): string[] {
  const [page] = facts.pagesIn("careers");
  if (!page || jobOpenings(facts).length > 0) return [];
  // Openings listed on an applicant-tracking site (Greenhouse, Lever …) are openings all the same.
  const board = facts.linksMatching(JOB_BOARD).length > 0 || facts.outbound().some((link) => JOB_BOARD.test(link.url));
  return board ? [] : [`Careers page without openings (${page.url})`];
}

const LOREM = /\b(lorem ipsum|dolor sit amet|consectetur adipiscing)\b/i;
const TEMPLATE =
  /(\byour (headline|tagline|title|text|content|company name|product name) (goes )?here\b|\binsert (text|content|image|copy) here\b|\[(company|product|your) name\])/i;
/** Case-sensitive on purpose: a to-do app says "todo" in lowercase; a forgotten marker is "TODO" or "FIXME". */
const MARKER = /(^|[\s(\[])(TODO|FIXME)(?=$|[\s:).\]])/;
/** MARKER can only match a block with "TODO" or "FIXME" in it (case-sensitive, like MARKER). */
const hasMarker = (block: string): boolean => block.includes("TODO") || block.includes("FIXME");
const COMING_SOON = /\b(coming soon|under construction|launching soon|check back soon|stay tuned)\b/i;

function placeholderText(facts: SiteFacts): string[] {
  const found: string[] = [];
  for (const page of facts.pages) {
    const blocks = [
      page.title,
      ...page.headings.map((heading) => heading.text),
      page.text.slice(0, SCORED_TEXT_PER_PAGE),
    ];
    const may = (pattern: RegExp) => facts.mayMention(page, pattern) || pattern.test(page.title);
    const placeholder =
      (may(LOREM) ? firstMatch(blocks, LOREM) : undefined) ??
      (may(TEMPLATE) ? firstMatch(blocks, TEMPLATE) : undefined) ??
      (blocks.some(hasMarker) ? firstMatch(blocks, MARKER)?.trim() : undefined);
    if (placeholder !== undefined) {
      found.push(`Placeholder text "${placeholder}" on ${page.url}`);
    } else if (page.text.trim().length < NEARLY_EMPTY * 1.5) {
      // "Coming soon" is only a placeholder when it is the page's main content, not a teaser on a full page.
      const soon = firstMatch(blocks, COMING_SOON);
      if (soon !== undefined) found.push(`Page is only a "${soon}" placeholder (${page.url})`);
    }
  }
  return found;
}

function staleDates(facts: SiteFacts): string[] {
  const found: string[] = [];
  const crawlYear = facts.now.getUTCFullYear();
  const year = facts.copyrightYear();
  if (year !== undefined && year <= crawlYear - 2) {
    found.push(
      `Stale copyright year: © ${year} on the home page (${facts.home.url}), ${crawlYear - year} years before the crawl`,
    );
  }
  for (const [category, label] of [
    ["changelog", "changelog"],
    ["blog", "blog/news"],
  ] as const) {
    const [newest] = facts.dates({ in: [category] });
    if (newest === undefined || facts.daysSince(newest) <= STALE_DAYS) continue;
    // The newest entry may be a dated post only linked from a page that is not itself a blog page.
    const where =
      facts.pagesIn(category).find((candidate) => candidate.dates.includes(newest))?.url ??
      facts.pageWithDate(newest) ??
      facts.home.url;
    found.push(`Newest ${label} entry is dated ${newest}, over 2 years before the crawl (${where})`);
  }
  return found;
}

function navigationToEmptyPages(facts: SiteFacts): string[] {
  const crawled = new Map(facts.pages.map((page) => [normalise(page.url), page]));
  const home = normalise(facts.home.url);
  const found: string[] = [];
  const seen = new Set<string>();
  for (const page of facts.pages) {
    for (const link of page.internalLinks) {
      const key = normalise(link.url);
      // The logo link home is on every site; a thin home page is the value proposition's problem, not navigation's.
      if (!link.inNav || key === home || seen.has(key)) continue;
      seen.add(key);
      const target = crawled.get(key);
      if (!target || target.metaRefresh !== undefined) continue;
      const length = target.text.trim().length;
      if (length < NEARLY_EMPTY)
        found.push(`Navigation links to a nearly empty page (${target.url}, ${length} characters of text)`);
    }
  }
  return found;
}

/** Claims on the home page that a visitor would expect a page to back, and what counts as that page. */
const CLAIMS: ReadonlyArray<{
  readonly pattern: RegExp;
  readonly categories: readonly PageCategory[];
  readonly outbound: readonly OutboundKind[];
  readonly missing: string;
}> = [
  {
    pattern:
      /\b(enterprise[- ]grade|bank[- ](level|grade)|military[- ]grade|soc ?2( type (ii|2))?|iso ?27001|hipaa[- ]compliant|gdpr[- ]compliant|fully compliant|secure by design)\b/i,
    categories: ["security"],
    outbound: ["trust_center"],
    missing: "without any security or trust page",
  },
  {
    pattern: /\b(rest api|graphql api|public api|open api|apis?|sdks?)\b/i,
    categories: ["docs", "api_reference"],
    outbound: ["docs_host"],
    missing: "without any docs or API reference page",
  },
  {
    pattern: /(\b99\.9{1,4}% ?(uptime|availability)\b|\buptime (sla|guarantee)\b)/i,
    categories: ["status"],
    outbound: ["status_page"],
    missing: "without a status page",
  },
];

function unsupportedClaims(facts: SiteFacts): string[] {
  const found: string[] = [];
  for (const claim of CLAIMS) {
    const [mention] = facts.mentions(claim.pattern, { in: ["other"], limit: 1 });
    if (!mention || mention.url !== facts.home.url) continue;
    if (supported(facts, claim.categories, claim.outbound)) continue;
    const term = claim.pattern.exec(mention.text)?.[0] ?? mention.text;
    found.push(`Claims "${term}" on the home page (${facts.home.url}) ${claim.missing}`);
  }
  return found;
}

/**
 * A page of these kinds was crawled, or is linked from the site (the crawl budget
 * may have left it unread), or an outside page of that kind is linked (a hosted
 * trust centre, docs or status page).
 */
function supported(facts: SiteFacts, categories: readonly PageCategory[], outbound: readonly OutboundKind[]): boolean {
  if (categories.some((category) => facts.hasPage(category))) return true;
  if (outbound.some((kind) => ownOutbound(facts, kind).length > 0)) return true;
  return facts.pages.some((page) =>
    page.internalLinks.some((link) => categories.includes(classifyPage(link.url, link.text))),
  );
}

function firstMatch(blocks: readonly string[], pattern: RegExp): string | undefined {
  for (const block of blocks) {
    const match = pattern.exec(block);
    if (match) return match[0];
  }
  return undefined;
}

/** Fragment and trailing slash dropped, so "/pricing/" and "/pricing#plans" are the crawled "/pricing". */
function normalise(url: string): string {
  const withoutHash = url.split("#")[0]!;
  return withoutHash.length > 1 && withoutHash.endsWith("/") ? withoutHash.slice(0, -1) : withoutHash;
}
