import { AppError } from "../../errors.js";
import { RefusedAddressError, type AddressGuard } from "./address-guard.js";
import type { CrawlFailure, CrawlMode, CrawlProgress, CrawlResult, ExtractedPage } from "./crawl.types.js";
import { decodeBody } from "./decode.js";
import { detectCompanyName, extractPage } from "./extract.js";
import { defaultFetchLimits, Fetcher, FetchFailure, type Fetched, type FetchLimits } from "./fetcher.js";
import { collectOutbound, contentLengthOf } from "./crawl-summary.js";
import { CandidateQueue } from "./candidate-queue.js";
import { SiteRules } from "./site-rules.js";
import { canonicalUrl, isSameSite, normalizeInputUrl } from "./url.js";

export interface CrawlerSettings {
  readonly guard: AddressGuard;
  readonly userAgent: string;
  /** The product token robots.txt groups are matched against. */
  readonly robotsToken: string;
  /** Pages per full crawl (CRAWL_MAX_PAGES). */
  readonly maxPages: number;
  /** Pages per quick crawl: the home page plus at most 4. */
  readonly quickMaxPages: number;
  /** Whole-crawl time budget; what was fetched by then is returned, marked partial. */
  readonly budgetMs: number;
  /** Requests in flight at once (the fetcher also caps sockets per host). */
  readonly concurrency: number;
  readonly limits: FetchLimits;
}

export const defaultCrawlerSettings = {
  quickMaxPages: 5,
  budgetMs: 60_000,
  concurrency: 3,
  limits: defaultFetchLimits,
} as const;

export interface CrawlOptions {
  readonly mode?: CrawlMode;
  readonly onProgress?: (progress: CrawlProgress) => void;
  /** Cancels the crawl (the caller went away). */
  readonly signal?: AbortSignal;
}

/**
 * Reads a product's public website: the home page, then the pages that tell the
 * most about its maturity (pricing, docs, changelog, security …) before the long
 * tail, within page, time and size limits, honouring robots.txt.
 */
export class Crawler {
  constructor(private readonly settings: CrawlerSettings) {}

  async crawl(input: unknown, options: CrawlOptions = {}): Promise<CrawlResult> {
    const started = performance.now();
    const crawledAt = new Date().toISOString();
    const start = normalizeInputUrl(input);
    await this.admit(start);

    const budget = AbortSignal.timeout(this.settings.budgetMs);
    const signal = options.signal ? AbortSignal.any([options.signal, budget]) : budget;
    const fetcher = new Fetcher(this.settings.guard, this.settings.userAgent, this.settings.limits);
    const rules = new SiteRules(fetcher, this.settings.robotsToken, signal);
    const maxPages = options.mode === "quick" ? Math.min(this.settings.quickMaxPages, this.settings.maxPages) : this.settings.maxPages;
    try {
      const home = await this.fetchHome(start, fetcher, rules, signal);
      options.onProgress?.({ n: 1, of: 1, url: home.url });
      const site = new URL(home.url);
      const [sitemapUrls, securityTxt] = await Promise.all([rules.sitemapUrls(site), rules.hasSecurityTxt(site)]);

      const queue = new CandidateQueue();
      const pages: ExtractedPage[] = [home];
      const failures: CrawlFailure[] = [];
      let skippedByRobots = 0;
      const seen = new Set<string>([home.url, canonicalUrl(start.toString()) ?? start.toString()]);
      const offer = (url: string, text: string, depth: number) => {
        if (!seen.has(url) && isSameSite(url, site)) queue.offer(url, text, depth);
      };
      const learn = (page: ExtractedPage, depth: number) => {
        // Internal links share the page's site, and every page read is on the start's site.
        for (const link of page.internalLinks) if (!seen.has(link.url)) queue.offer(link.url, link.text, depth + 1);
        if (page.metaRefresh) offer(page.metaRefresh, "", depth + 1);
      };
      learn(home, 0);
      for (const url of sitemapUrls) offer(url, "", 2);

      const inFlight = new Map<string, Promise<void>>();
      const planned = () => Math.min(maxPages, pages.length + inFlight.size + queue.size);
      const visit = async (url: string, depth: number) => {
        try {
          if (!(await rules.allows(url))) {
            skippedByRobots += 1;
            return;
          }
          await rules.waitTurn(url);
          const page = await fetchPage(fetcher, url, signal);
          if (!isSameSite(page.url, site)) throw new FetchFailure("redirects", "redirected off the site", url);
          if (seen.has(page.url) && page.url !== url) return; // a redirect to a page already read
          if (page.canonical && page.canonical !== page.url && seen.has(page.canonical) && isSameSite(page.canonical, site)) return;
          seen.add(page.url);
          if (page.canonical) seen.add(page.canonical);
          if (pages.length >= maxPages) return;
          pages.push(page);
          options.onProgress?.({ n: pages.length, of: planned(), url: page.url });
          learn(page, depth);
        } catch (error) {
          if (error instanceof FetchFailure && error.kind === "aborted") return;
          failures.push({ url, reason: error instanceof FetchFailure ? error.reason : "could not be read" });
        }
      };

      const aborted = abortion(signal);
      while (!signal.aborted && pages.length + inFlight.size < maxPages && (queue.size > 0 || inFlight.size > 0)) {
        while (queue.size > 0 && inFlight.size < this.settings.concurrency && pages.length + inFlight.size < maxPages) {
          const next = queue.take();
          if (!next) break;
          seen.add(next.url);
          const task = visit(next.url, next.depth).finally(() => inFlight.delete(next.url));
          inFlight.set(next.url, task);
        }
        if (inFlight.size > 0) await Promise.race([...inFlight.values(), aborted]);
      }
      await Promise.allSettled(inFlight.values());

      const partial = budget.aborted && (queue.size > 0 || inFlight.size > 0 || pages.length < maxPages);
      return {
        url: start.toString(),
        crawledAt,
        companyName: detectCompanyName(home, site.hostname),
        pages,
        crawledPages: pages.map((page) => page.url),
        outboundLinks: collectOutbound(pages),
        crawlStats: {
          pagesAnalyzed: pages.length,
          contentLength: contentLengthOf(pages),
          failures,
          durationMs: Math.round(performance.now() - started),
          partial,
          pagesPlanned: Math.max(pages.length, planned()),
          robotsTxt: rules.robotsState(site),
          sitemapUrls: sitemapUrls.length,
          securityTxt,
          skippedByRobots,
        },
      };
    } finally {
      fetcher.close();
    }
  }

  /** Refused or unresolvable addresses are the caller's to fix: INVALID_URL, before any request. */
  private async admit(start: URL): Promise<void> {
    try {
      this.settings.guard.checkUrl(start);
      await this.settings.guard.resolve(start.hostname.replace(/^\[|\]$/g, ""));
    } catch (error) {
      if (error instanceof RefusedAddressError) {
        throw new AppError("INVALID_URL", `${start.hostname} cannot be crawled: ${error.reason}.`);
      }
      // DNS itself failing (no answer in time, server failure) is not the caller's fault, but no crawl can start.
      throw new AppError("CRAWL_FAILED", `Could not crawl ${start.hostname}: its address could not be looked up right now.`, { cause: error });
    }
  }

  /** The home page must be readable: anything else fails the whole crawl with the reason. */
  private async fetchHome(start: URL, fetcher: Fetcher, rules: SiteRules, signal: AbortSignal): Promise<ExtractedPage> {
    const fail = (reason: string) => new AppError("CRAWL_FAILED", `Could not crawl ${start.hostname}: ${reason}.`);
    let url = start.toString();
    for (let refreshes = 0; ; refreshes += 1) {
      if (!(await rules.allows(url))) {
        const unreadable = rules.robotsProblem(url);
        if (unreadable) throw fail(`its robots.txt could not be read (${unreadable}), and crawlers must then stay away (RFC 9309)`);
        throw fail(`its robots.txt does not allow ${this.settings.robotsToken} to read ${url}`);
      }
      let page: ExtractedPage;
      try {
        await rules.waitTurn(url);
        page = await fetchPage(fetcher, url, signal);
      } catch (error) {
        if (error instanceof FetchFailure) throw fail(homeReason(error, this.settings.limits));
        throw error;
      }
      // A home page that only refreshes elsewhere on the same site is followed (once or twice).
      if (page.metaRefresh && refreshes < 2 && page.metaRefresh !== page.url && isSameSite(page.metaRefresh, start) && page.text.length < 200) {
        url = page.metaRefresh;
        continue;
      }
      return page;
    }
  }
}

async function fetchPage(fetcher: Fetcher, url: string, signal: AbortSignal): Promise<ExtractedPage> {
  const fetched: Fetched = await fetcher.fetch(url, { expect: "page", signal });
  if (fetched.status >= 400) throw new FetchFailure("http", `HTTP ${fetched.status}`, url);
  const kind = fetched.kind ?? "html";
  const contentType = headerValue(fetched.headers["content-type"]);
  const { text } = decodeBody(fetched.body, contentType, kind);
  // Links resolve against the URL exactly as served (`/docs/` vs `/docs` differ); extractPage canonicalises its own.
  const page = extractPage({ url: fetched.url, status: fetched.status, body: text, kind, headers: fetched.headers });
  // Let the event loop breathe between CPU-bound extractions.
  await new Promise((resolve) => setImmediate(resolve));
  return page;
}

function homeReason(error: FetchFailure, limits: FetchLimits): string {
  switch (error.kind) {
    case "timeout":
      return `the home page did not answer within ${limits.pageTimeoutMs / 1000} s`;
    case "aborted":
      return "the crawl time budget ended before the home page answered";
    case "redirects":
      return `the home page ${error.reason === "redirect loop" ? "redirects in a loop" : `makes ${error.reason}`}`;
    case "not_html":
      return `the home page is ${error.reason}`;
    case "http":
      return `the home page answered ${error.reason}`;
    case "refused":
      return `the home page leads to an address that is not allowed (${error.reason})`;
    case "unresolvable":
      return "the home page's address does not resolve";
    default:
      return `the home page is unreachable (${error.reason})`;
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function abortion(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
