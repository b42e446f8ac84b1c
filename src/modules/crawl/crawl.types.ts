/**
 * What the crawler hands the scorer. Plain data: no DOM survives extraction.
 */

export interface JsonLdEntity {
  /** The schema.org type, e.g. "Organization", "Product", "SoftwareApplication", "Offer". */
  readonly type: string;
  readonly name?: string;
  /** Selected scalar properties (url, description, price, priceCurrency, applicationCategory …). */
  readonly properties: Readonly<Record<string, string>>;
}

export interface FoundPrice {
  /** ISO 4217 code when known ("USD", "EUR", "GBP" …). */
  readonly currency: string;
  /** The amount as written, normalised to a number (49, 1299.99). */
  readonly amount: number;
  /** The text it was found in, for evidence ("$49/month"). */
  readonly text: string;
}

export interface PageLink {
  /** Absolute, normalised URL. */
  readonly url: string;
  /** The address to fetch when it differs from `url`: a folder link keeps its final "/". */
  readonly href?: string;
  /** Visible text of the link (trimmed, at most 200 characters). */
  readonly text: string;
  /** Whether the link sits in the page's navigation (nav/header). */
  readonly inNav: boolean;
}

export interface TrustHeaders {
  readonly hsts: boolean;
  readonly csp: boolean;
  readonly xFrameOptions: boolean;
  readonly xContentTypeOptions: boolean;
}

export interface ExtractedPage {
  /** Final URL after redirects, normalised. */
  readonly url: string;
  readonly status: number;
  readonly title: string;
  readonly metaDescription: string;
  /** og:* properties without the prefix: { title, site_name, description, image, type … }. */
  readonly openGraph: Readonly<Record<string, string>>;
  readonly jsonLd: readonly JsonLdEntity[];
  readonly canonical: string | undefined;
  readonly lang: string | undefined;
  /** h1–h3 texts in document order, with their level. */
  readonly headings: readonly { readonly level: 1 | 2 | 3; readonly text: string }[];
  /** Main visible text: scripts, styles, templates and hidden elements removed; whitespace collapsed. */
  readonly text: string;
  /** Text of nav/header/footer blocks, kept apart so repeated boilerplate can be counted once. */
  readonly boilerplate: readonly string[];
  readonly internalLinks: readonly PageLink[];
  readonly externalLinks: readonly PageLink[];
  /** ISO dates (YYYY-MM-DD) found in <time>, ISO strings and "March 5, 2025" forms, deduplicated, sorted. */
  readonly dates: readonly string[];
  readonly prices: readonly FoundPrice[];
  readonly trustHeaders: TrustHeaders;
  /** Target of a <meta http-equiv="refresh">, absolute, if any. */
  readonly metaRefresh: string | undefined;
  /** Read from a browser's DOM after the page's scripts ran (its HTML was a shell); absent when read as HTML. */
  readonly rendered?: true;
}

export type OutboundKind = "status_page" | "github" | "app_store" | "trust_center" | "social" | "docs_host" | "other";

export interface OutboundLink {
  readonly url: string;
  readonly kind: OutboundKind;
  /** First page it was seen on. */
  readonly foundOn: string;
}

export interface CrawlFailure {
  readonly url: string;
  /** Short reason: "HTTP 404", "timed out", "not HTML (application/pdf)", "refused address" … */
  readonly reason: string;
}

export interface CrawlStats {
  readonly pagesAnalyzed: number;
  /** Characters of page text analysed, boilerplate repeated across pages counted once. */
  readonly contentLength: number;
  readonly failures: readonly CrawlFailure[];
  readonly durationMs: number;
  /** True when the crawl budget ended before the plan did. */
  readonly partial: boolean;
  /** Pages chosen for the crawl (home included). */
  readonly pagesPlanned: number;
  readonly robotsTxt: "found" | "absent" | "error";
  readonly sitemapUrls: number;
  readonly securityTxt: boolean;
  /** Same-site pages found but not read because robots.txt disallows them. */
  readonly skippedByRobots: number;
  /** The first of those pages (at most 20), so a site owner can see what robots.txt kept out. */
  readonly skippedByRobotsUrls?: readonly string[];
  /** Pages read from a browser's DOM because their HTML was a shell (absent in crawls from before rendering). */
  readonly pagesRendered?: number;
  /** Pages a bot wall answered for instead of the page (they are in `failures` too). */
  readonly pagesBlocked?: number;
}

export interface CrawlResult {
  /** The normalised start address. */
  readonly url: string;
  /** When the crawl started (ISO 8601): the "now" that recency is judged against, so a re-score of the same crawl says the same thing. */
  readonly crawledAt: string;
  readonly companyName: string;
  readonly pages: readonly ExtractedPage[];
  /** URLs of the pages analysed, home first. */
  readonly crawledPages: readonly string[];
  readonly outboundLinks: readonly OutboundLink[];
  readonly crawlStats: CrawlStats;
}

export interface CrawlProgress {
  /** 1-based index of the page just fetched. */
  readonly n: number;
  /** Pages planned so far (it can grow while links are discovered, never above the limit). */
  readonly of: number;
  readonly url: string;
}

export type CrawlMode = "full" | "quick";
