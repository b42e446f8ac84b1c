import { createHash } from "node:crypto";
import { AppError } from "../../errors.js";
import { RefusedAddressError, type AddressGuard } from "./address-guard.js";
import type { CrawlFailure, CrawlMode, CrawlProgress, CrawlResult, ExtractedPage } from "./crawl.types.js";
import { decodeBody } from "./decode.js";
import { detectCompanyName, extractPage } from "./extract.js";
import { defaultFetchLimits, Fetcher, FetchFailure, type Fetched, type FetchLimits } from "./fetcher.js";
import { collectOutbound, contentLengthOf } from "./crawl-summary.js";
import { CandidateQueue } from "./candidate-queue.js";
import { SiteRules } from "./site-rules.js";
import { setRepeatedTextApart } from "./repeated-text.js";
import { canonicalUrl, isSameSite, normalizeInputUrl, originOf, pageKey } from "./url.js";

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

    // One controller per crawl, released when it ends. AbortSignal.timeout/any kept each crawl's
    // signal (and through its listeners the crawl's pages) alive for the whole budget after the
    // crawl ended, and left a reference on the runner's long-lived signal for every job.
    const controller = new AbortController();
    let overBudget = false;
    const budgetTimer = setTimeout(() => {
      overBudget = true;
      controller.abort();
    }, this.settings.budgetMs);
    const stop = () => controller.abort();
    options.signal?.addEventListener("abort", stop, { once: true });
    if (options.signal?.aborted) stop();
    const signal = controller.signal;
    const fetcher = new Fetcher(this.settings.guard, this.settings.userAgent, this.settings.limits);
    const rules = new SiteRules(fetcher, this.settings.robotsToken, signal);
    const maxPages = options.mode === "quick" ? Math.min(this.settings.quickMaxPages, this.settings.maxPages) : this.settings.maxPages;
    try {
      const { page: home, servedFrom, body: homeBody } = await this.fetchHome(start, fetcher, rules, signal);
      options.onProgress?.({ n: 1, of: 1, url: home.url });
      const site = new URL(home.url);
      const basePath = folderOf(servedFrom);
      const [sitemapUrls, securityTxt] = await Promise.all([rules.sitemapUrls(site, basePath), rules.hasSecurityTxt(site)]);

      const queue = new CandidateQueue(basePath);
      const pages: ExtractedPage[] = [home];
      const failures: CrawlFailure[] = [];
      const skipped: string[] = [];
      let skippedByRobots = 0;
      // Pages are deduplicated on their key: canonical spelling, "www." or not.
      const seen = new Set<string>([pageKey(home.url), pageKey(canonicalUrl(start.toString()) ?? start.toString())]);
      // What the pages read contain, to recognise one page served at two addresses.
      const homeContent = fingerprint(home);
      const contents = new Set<string>([homeContent]);
      // The same bytes served at another address extract to the same page: a body whose page was already
      // read (and is no refresh stub, whatever its address) is recognised by its digest, not extracted again.
      // Sites that answer many addresses with one page (tracking parameters, catch-all routes) cost a fetch each, not a parse.
      const readBodies = new Map<string, string>();
      const remember = (body: string, page: ExtractedPage, content: string) => {
        if (!mayBeRefreshStub(page)) readBodies.set(body, content);
      };
      const alreadyRead = (body: string): boolean => {
        const content = readBodies.get(body);
        return content !== undefined && contents.has(content);
      };
      remember(homeBody, home, homeContent);
      // Whether an address is on the site depends on its scheme, host and port only: asked once per origin
      // (a site's pages link to a handful of hosts, thousands of times).
      const onSiteByOrigin = new Map<string, boolean>();
      const onSite = (canonical: string): boolean => {
        const origin = originOf(canonical);
        let answer = onSiteByOrigin.get(origin);
        if (answer === undefined) onSiteByOrigin.set(origin, (answer = isSameSite(canonical, site)));
        return answer;
      };
      // `canonical` is the page's spelling (links carry it already); `url` the address to fetch.
      const offer = (canonical: string | undefined, url: string, text: string, depth: number) => {
        if (canonical === undefined || !onSite(canonical)) return;
        const key = pageKey(canonical);
        if (!seen.has(key)) queue.offer(key, url, text, depth);
      };
      const offerAddress = (url: string, text: string, depth: number) => offer(canonicalUrl(url), url, text, depth);
      const learn = (page: ExtractedPage, depth: number) => {
        for (const link of page.internalLinks) offer(link.url, link.href ?? link.url, link.text, depth + 1);
        if (page.metaRefresh) offerAddress(page.metaRefresh, "", depth + 1);
      };
      learn(home, 0);
      for (const url of sitemapUrls) offerAddress(url, "", 2);

      const inFlight = new Map<string, Promise<void>>();
      const planned = () => Math.min(maxPages, pages.length + inFlight.size + queue.size);
      const visit = async (url: string, text: string, depth: number) => {
        try {
          if (!(await rules.allows(url))) {
            skippedByRobots += 1;
            if (skipped.length < MAX_SKIPPED_REPORTED) skipped.push(canonicalUrl(url) ?? url);
            return;
          }
          await rules.waitTurn(url);
          const fetched = await fetchPageOrFolder(fetcher, url, signal, rules, alreadyRead);
          if (!isSameSite(fetched.url, site)) throw new FetchFailure("redirects", "redirected off the site", url);
          const key = pageKey(fetched.url);
          if (seen.has(key) && key !== pageKey(canonicalUrl(url) ?? url)) return; // a redirect to a page already read
          const { page } = fetched;
          if (page === undefined) {
            // Bytes already read at another address: what the checks below would find for the extracted page.
            seen.add(key);
            return;
          }
          // A stub that only refreshes to another page of the site is a redirect, not a page: read where it leads.
          if (isRefreshStub(page) && page.metaRefresh && isSameSite(page.metaRefresh, site)) {
            offerAddress(page.metaRefresh, text, depth);
            return;
          }
          // A page whose content was already read under another address is that page again. rel=canonical
          // is only a hint here (as search engines read it): exports that stamp the home page's address on
          // every page are common, and trusting them would skip every page.
          seen.add(key);
          const content = fingerprint(page);
          remember(fetched.body, page, content);
          if (contents.has(content)) return;
          contents.add(content);
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
          seen.add(next.key);
          const task = visit(next.url, next.text, next.depth).finally(() => inFlight.delete(next.key));
          inFlight.set(next.key, task);
        }
        if (inFlight.size > 0) await Promise.race([...inFlight.values(), aborted]);
      }
      await Promise.allSettled(inFlight.values());
      setRepeatedTextApart(pages);

      const partial = overBudget && (queue.size > 0 || inFlight.size > 0 || pages.length < maxPages);
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
          skippedByRobotsUrls: skipped,
        },
      };
    } finally {
      clearTimeout(budgetTimer);
      options.signal?.removeEventListener("abort", stop);
      // Wakes anything still waiting on the crawl's signal (the visit loop's race), so nothing holds it.
      controller.abort();
      fetcher.close();
    }
  }

  /**
   * What can be refused without a DNS lookup (a private or special literal address, a
   * port other than 80/443, credentials): INVALID_URL at once, so a scoring request
   * for http://10.0.0.1/ is refused when it is made instead of queued to fail.
   */
  checkAddress(start: URL): void {
    try {
      this.settings.guard.checkUrl(start);
    } catch (error) {
      throw error instanceof RefusedAddressError ? refusedAddress(start, error) : error;
    }
  }

  /** Refused or unresolvable addresses are the caller's to fix: INVALID_URL, before any request. */
  private async admit(start: URL): Promise<void> {
    this.checkAddress(start);
    try {
      await this.settings.guard.resolve(start.hostname.replace(/^\[|\]$/g, ""));
    } catch (error) {
      if (error instanceof RefusedAddressError) throw refusedAddress(start, error);
      // DNS itself failing (no answer in time, server failure) is not the caller's fault, but no crawl can start.
      throw new AppError("CRAWL_FAILED", `Could not crawl ${start.hostname}: its address could not be looked up right now.`, { cause: error });
    }
  }

  /** The home page must be readable: anything else fails the whole crawl with the reason. */
  private async fetchHome(start: URL, fetcher: Fetcher, rules: SiteRules, signal: AbortSignal): Promise<ExtractedFetch> {
    const fail = (reason: string) => new AppError("CRAWL_FAILED", `Could not crawl ${start.hostname}: ${reason}.`);
    let url = start.toString();
    for (let refreshes = 0; ; refreshes += 1) {
      if (!(await rules.allows(url))) {
        const unreadable = rules.robotsProblem(url);
        if (unreadable) throw fail(`its robots.txt could not be read (${unreadable}), and crawlers must then stay away (RFC 9309)`);
        throw fail(`its robots.txt does not allow ${this.settings.robotsToken} to read ${url}`);
      }
      let fetched: ExtractedFetch;
      try {
        await rules.waitTurn(url);
        fetched = await fetchPage(fetcher, url, signal);
      } catch (error) {
        if (error instanceof FetchFailure) throw fail(homeReason(error, this.settings.limits));
        throw error;
      }
      const { page } = fetched;
      // A home page that only refreshes elsewhere on the same site is followed (once or twice), through the same guard.
      if (page.metaRefresh && refreshes < 2 && canonicalUrl(page.metaRefresh) !== page.url && isSameSite(page.metaRefresh, start) && isRefreshStub(page)) {
        url = page.metaRefresh;
        continue;
      }
      return fetched;
    }
  }
}

interface FetchedPage {
  /** Undefined when the body was recognised as one already read (see `alreadyRead`): it was not extracted. */
  readonly page: ExtractedPage | undefined;
  /** The page's canonical address (what `page.url` is, extracted or not). */
  readonly url: string;
  /** The address the body was served from, after redirects, as fetched (a folder keeps its "/"). */
  readonly servedFrom: string;
  /**
   * A digest of what the page's title and text are made from: kind, Content-Type and bytes (the address,
   * status and other headers change other fields only, which a page already read is never asked for).
   */
  readonly body: string;
}

type ExtractedFetch = FetchedPage & { readonly page: ExtractedPage };

async function fetchPage(fetcher: Fetcher, url: string, signal: AbortSignal): Promise<ExtractedFetch>;
async function fetchPage(fetcher: Fetcher, url: string, signal: AbortSignal, alreadyRead: (body: string) => boolean): Promise<FetchedPage>;
async function fetchPage(fetcher: Fetcher, url: string, signal: AbortSignal, alreadyRead?: (body: string) => boolean): Promise<FetchedPage> {
  const fetched: Fetched = await fetcher.fetch(url, { expect: "page", signal });
  if (fetched.status >= 400) throw new FetchFailure("http", `HTTP ${fetched.status}`, url);
  const kind = fetched.kind ?? "html";
  const contentType = headerValue(fetched.headers["content-type"]);
  const body = createHash("sha256").update(`${kind}\u0000${contentType ?? ""}\u0000`).update(fetched.body).digest("base64");
  if (alreadyRead?.(body)) {
    // The same turn of the event loop as an extraction, so the crawl's order is the one it would have been.
    await new Promise((resolve) => setImmediate(resolve));
    return { page: undefined, url: canonicalUrl(fetched.url) ?? fetched.url, servedFrom: fetched.url, body };
  }
  const { text } = decodeBody(fetched.body, contentType, kind);
  // Links resolve against the URL exactly as served (`/docs/` vs `/docs` differ); extractPage canonicalises its own.
  const page = extractPage({ url: fetched.url, status: fetched.status, body: text, kind, headers: fetched.headers });
  // Let the event loop breathe between CPU-bound extractions.
  await new Promise((resolve) => setImmediate(resolve));
  return { page, url: page.url, servedFrom: fetched.url, body };
}

/**
 * A folder link ("/careers/") is fetched as written; when the server has no such
 * folder but has the page without the slash (a 404 at "/careers/", a page at
 * "/careers"), the slashless address is read instead, as a lenient host would.
 */
async function fetchPageOrFolder(
  fetcher: Fetcher,
  url: string,
  signal: AbortSignal,
  rules: SiteRules,
  alreadyRead: (body: string) => boolean,
): Promise<FetchedPage> {
  try {
    return await fetchPage(fetcher, url, signal, alreadyRead);
  } catch (error) {
    const bare = canonicalUrl(url);
    if (!(error instanceof FetchFailure && error.reason === "HTTP 404") || bare === undefined || bare === url) throw error;
    if (!(await rules.allows(bare))) throw error;
    await rules.waitTurn(bare);
    return fetchPage(fetcher, bare, signal, alreadyRead);
  }
}

/** A digest of the title and the whole text: equal for two addresses of one page, different for two pages of one template. */
const fingerprint = (page: ExtractedPage): string => createHash("sha256").update(page.title).update("\u0000").update(page.text).digest("base64");

/** Robots-skipped addresses listed in the crawl stats; the count covers them all. */
const MAX_SKIPPED_REPORTED = 20;

/** A page with a refresh and next to no text of its own: browsers show where it leads. */
const isRefreshStub = (page: ExtractedPage): boolean => page.metaRefresh !== undefined && mayBeRefreshStub(page);
/** Whether the same bytes at another address could be a refresh stub (the refresh target resolves against the address). */
const mayBeRefreshStub = (page: ExtractedPage): boolean => page.text.length < 200;

/** "/website/" for "https://x/website/" or "https://x/website/home.html"; "/" at the root. */
function folderOf(url: string): string {
  try {
    const { pathname } = new URL(url);
    return pathname.slice(0, pathname.lastIndexOf("/") + 1) || "/";
  } catch {
    return "/";
  }
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

const refusedAddress = (start: URL, error: RefusedAddressError) => new AppError("INVALID_URL", `${start.hostname} cannot be crawled: ${error.reason}.`);

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function abortion(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
