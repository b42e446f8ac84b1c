import type { CrawlResult, ExtractedPage, OutboundLink, PageLink } from "../../src/modules/crawl/crawl.types.js";
import { SiteFacts } from "../../src/modules/scoring/site-facts.js";

/**
 * Crawl results written by hand for scoring tests: each page names only what
 * the test cares about; the rest is empty. The first page is the home page.
 */
export interface PageSpec {
  readonly path: string;
  readonly title?: string;
  readonly text?: string;
  readonly headings?: ReadonlyArray<string | { level: 1 | 2 | 3; text: string }>;
  readonly boilerplate?: readonly string[];
  readonly prices?: ReadonlyArray<{ currency?: string; amount: number; text?: string }>;
  readonly dates?: readonly string[];
  readonly links?: readonly string[];
  /** Internal links in the page's navigation (PageLink.inNav), href as text. */
  readonly navLinks?: readonly string[];
  /** Links with their own visible text (internal or external by their href); inNav false unless said. */
  readonly namedLinks?: ReadonlyArray<{ href: string; text: string; inNav?: boolean }>;
  readonly externalLinks?: readonly string[];
  /** The page's meta description (empty unless given). */
  readonly metaDescription?: string;
  readonly jsonLd?: ExtractedPage["jsonLd"];
  readonly hsts?: boolean;
  readonly csp?: boolean;
}

export const SYNTHETIC_ORIGIN = "https://acme.example";

export function syntheticCrawl(
  pages: readonly PageSpec[],
  options: { crawledAt?: string; securityTxt?: boolean; outbound?: readonly OutboundLink[]; companyName?: string } = {},
): CrawlResult {
  const extracted = pages.map(toPage);
  return {
    url: `${SYNTHETIC_ORIGIN}/`,
    crawledAt: options.crawledAt ?? "2026-11-01T00:00:00.000Z",
    companyName: options.companyName ?? "Acme",
    pages: extracted,
    crawledPages: extracted.map((page) => page.url),
    outboundLinks: options.outbound ?? [],
    crawlStats: {
      pagesAnalyzed: extracted.length,
      contentLength: extracted.reduce((sum, page) => sum + page.text.length, 0),
      failures: [],
      durationMs: 1,
      partial: false,
      pagesPlanned: extracted.length,
      robotsTxt: "found",
      sitemapUrls: 0,
      securityTxt: options.securityTxt ?? false,
      skippedByRobots: 0,
    },
  };
}

export function syntheticFacts(
  pages: readonly PageSpec[],
  options: Parameters<typeof syntheticCrawl>[1] = {},
): SiteFacts {
  return new SiteFacts(syntheticCrawl(pages, options));
}

function toPage(spec: PageSpec): ExtractedPage {
  const url = `${SYNTHETIC_ORIGIN}${spec.path}`;
  const link = (href: string): PageLink => ({
    url: href.startsWith("http") ? href : `${SYNTHETIC_ORIGIN}${href}`,
    text: href,
    inNav: false,
  });
  const named = (spec.namedLinks ?? []).map((entry): PageLink => ({
    ...link(entry.href),
    text: entry.text,
    inNav: entry.inNav ?? false,
  }));
  const isInternal = (href: string) => href.startsWith(SYNTHETIC_ORIGIN);
  return {
    url,
    status: 200,
    title: spec.title ?? "",
    metaDescription: spec.metaDescription ?? "",
    openGraph: {},
    jsonLd: spec.jsonLd ?? [],
    canonical: undefined,
    lang: "en",
    headings: (spec.headings ?? []).map((heading) =>
      typeof heading === "string" ? { level: 2 as const, text: heading } : heading,
    ),
    text: spec.text ?? "",
    boilerplate: spec.boilerplate ?? [],
    internalLinks: [
      ...(spec.links ?? []).map(link),
      ...(spec.navLinks ?? []).map((href) => ({ ...link(href), inNav: true })),
      ...named.filter((entry) => isInternal(entry.url)),
    ],
    externalLinks: [...(spec.externalLinks ?? []).map(link), ...named.filter((entry) => !isInternal(entry.url))],
    dates: spec.dates ?? [],
    prices: (spec.prices ?? []).map((price) => ({
      currency: price.currency ?? "USD",
      amount: price.amount,
      text: price.text ?? `$${price.amount}`,
    })),
    trustHeaders: {
      hsts: spec.hsts ?? false,
      csp: spec.csp ?? false,
      xFrameOptions: false,
      xContentTypeOptions: false,
    },
    metaRefresh: undefined,
  };
}
