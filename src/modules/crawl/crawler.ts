import { createHash } from "node:crypto";
import { AppError } from "../../errors.js";
import { RefusedAddressError, type AddressGuard } from "./address-guard.js";
import { describeWall, type BotWall } from "./bot-wall.js";
import type { CrawlFailure, CrawlMode, CrawlProgress, CrawlResult, ExtractedPage } from "./crawl.types.js";
import { detectCompanyName } from "./extract.js";
import { defaultFetchLimits, Fetcher, FetchFailure, type FetchLimits } from "./fetcher.js";
import { collectOutbound, contentLengthOf } from "./crawl-summary.js";
import { CandidateQueue } from "./candidate-queue.js";
import { PageReader, readPageOrFolder, ShellFailure, WallFailure, type ExtractedFetch } from "./page-reader.js";
import { noRenderer, type Renderer } from "./render/renderer.js";
import { SiteRules } from "./site-rules.js";
import { setRepeatedTextApart } from "./repeated-text.js";
import { canonicalUrl, isSameSite, normalizeInputUrl, originOf, pageKey, splitRoute } from "./url.js";

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
  /** Headless Chromium for pages whose HTML is a shell; `noRenderer` when there is none. */
  readonly renderer: Renderer;
}

export const defaultCrawlerSettings = {
  quickMaxPages: 5,
  budgetMs: 60_000,
  concurrency: 3,
  limits: defaultFetchLimits,
  renderer: noRenderer,
} as const;

/** What to do about a site that builds its pages in the browser when this service has no browser. */
export const NO_BROWSER_ACTION =
  "This site writes its pages with JavaScript in the browser. The service needs headless Chromium to read such sites: install one (Debian/Ubuntu: apt install chromium; anywhere: npx playwright install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary, restart the service, then score again. Nothing was charged.";
/** What to do about a bot wall. */
export const WALL_ACTION =
  "The site's bot protection answered instead of its pages. Ask its owner to let ProductMaturityBot through (allow the user agent in the CDN's bot settings), then score again. Nothing was charged.";

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
    const reader = new PageReader(fetcher, this.settings.renderer, this.settings.userAgent, signal);
    const maxPages =
      options.mode === "quick" ? Math.min(this.settings.quickMaxPages, this.settings.maxPages) : this.settings.maxPages;
    try {
      const { page: home, servedFrom, body: homeBody } = await this.fetchHome(start, reader, rules);
      options.onProgress?.({ n: 1, of: 1, url: home.url });
      const site = new URL(home.url);
      const basePath = folderOf(servedFrom);
      const [sitemapUrls, securityTxt] = await Promise.all([
        rules.sitemapUrls(site, basePath),
        rules.hasSecurityTxt(site),
      ]);

      const queue = new CandidateQueue(basePath);
      const pages: ExtractedPage[] = [home];
      const failures: CrawlFailure[] = [];
      const skipped: string[] = [];
      /** Pages a bot wall answered for, after the home page. */
      const walled: BotWall[] = [];
      /** Links found on rendered pages, by page key: how to reach a client-side route the server does not answer. */
      const inApp = new Map<string, { from: string; href: string }>();
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
      const remember = (body: string | undefined, page: ExtractedPage, content: string) => {
        if (body !== undefined && !mayBeRefreshStub(page)) readBodies.set(body, content);
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
        for (const link of page.internalLinks) {
          offer(link.url, link.href ?? link.url, link.text, depth + 1);
          const key = pageKey(link.url);
          if (page.rendered && !inApp.has(key)) inApp.set(key, { from: page.url, href: link.href ?? link.url });
        }
        if (page.metaRefresh) offerAddress(page.metaRefresh, "", depth + 1);
      };
      learn(home, 0);
      for (const url of sitemapUrls) offerAddress(url, "", 2);

      const inFlight = new Map<string, Promise<void>>();
      const planned = () => Math.min(maxPages, pages.length + inFlight.size + queue.size);
      /** Reads one page; true when it joined the pages read (not a failure, a duplicate or a redirect stub). */
      const visit = async (url: string, text: string, depth: number): Promise<boolean> => {
        const { document, route } = splitRoute(url);
        const requestedKey = route === undefined ? pageKey(canonicalUrl(url) ?? url) : pageKey(url);
        try {
          if (!(await rules.allows(document))) {
            skippedByRobots += 1;
            if (skipped.length < MAX_SKIPPED_REPORTED)
              skipped.push(route === undefined ? (canonicalUrl(url) ?? url) : url);
            return false;
          }
          await rules.waitTurn(document);
          const fetched = await readPageOrFolder(reader, url, rules, alreadyRead).catch(async (error: unknown) => {
            // A client-side route the server does not know (a static host's 404): followed inside the app, as a reader would.
            const via = inApp.get(requestedKey);
            if (
              via &&
              error instanceof FetchFailure &&
              error.reason === "HTTP 404" &&
              this.settings.renderer.available &&
              !NOT_A_PAGE.test(new URL(url).pathname)
            ) {
              return reader.readInApp(url, via.from, via.href);
            }
            throw error;
          });
          if (!isSameSite(fetched.url, site)) throw new FetchFailure("redirects", "redirected off the site", url);
          const key = pageKey(fetched.url);
          if (seen.has(key) && key !== requestedKey) return false; // a redirect to a page already read
          const { page } = fetched;
          if (page === undefined) {
            // Bytes already read at another address: what the checks below would find for the extracted page.
            seen.add(key);
            return false;
          }
          // A stub that only refreshes to another page of the site is a redirect, not a page: read where it leads.
          if (isRefreshStub(page) && page.metaRefresh && isSameSite(page.metaRefresh, site)) {
            offerAddress(page.metaRefresh, text, depth);
            return false;
          }
          // A page whose content was already read under another address is that page again. rel=canonical
          // is only a hint here (as search engines read it): exports that stamp the home page's address on
          // every page are common, and trusting them would skip every page.
          seen.add(key);
          const content = fingerprint(page);
          remember(fetched.body, page, content);
          if (contents.has(content)) return false;
          contents.add(content);
          if (pages.length >= maxPages) return false;
          pages.push(page);
          options.onProgress?.({ n: pages.length, of: planned(), url: page.url });
          learn(page, depth);
          return true;
        } catch (error) {
          if (error instanceof FetchFailure && error.kind === "aborted") return false;
          if (error instanceof WallFailure) walled.push(error.wall);
          failures.push({ url, reason: error instanceof FetchFailure ? error.reason : "could not be read" });
          return false;
        }
      };

      const aborted = abortion(signal);
      // Pages in flight fill the budget only while they last: one that fails frees its place for the next candidate
      // (a crawl whose last few addresses were dead links used to end short of its budget with candidates left).
      while (!signal.aborted && pages.length < maxPages && (queue.size > 0 || inFlight.size > 0)) {
        while (queue.size > 0 && inFlight.size < this.settings.concurrency && pages.length + inFlight.size < maxPages) {
          const next = queue.take();
          if (!next) break;
          seen.add(next.key);
          // A page that gave nothing to read does not count against its kind: the next candidate of that kind is a first.
          const task = visit(next.url, next.text, next.depth)
            .then((read) => {
              if (!read) queue.release(next.category);
            })
            .finally(() => inFlight.delete(next.key));
          inFlight.set(next.key, task);
        }
        if (inFlight.size === 0) break;
        await Promise.race([...inFlight.values(), aborted]);
      }
      await Promise.allSettled(inFlight.values());
      // A wall that went up after the home page and stopped more pages than it let through: what got
      // through is not the site, so it is not scored (a single walled page is listed and the rest read).
      const [firstWall] = walled;
      if (firstWall && walled.length >= Math.max(1, pages.length - 1)) {
        throw new AppError(
          "CRAWL_FAILED",
          `Could not crawl ${start.hostname}: after the home page, ${describeWall(firstWall)} answered for ${walled.length} of the ${walled.length + pages.length - 1} pages tried; a bot wall is never scored.`,
          { action: WALL_ACTION },
        );
      }
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
          pagesRendered: pages.filter((page) => page.rendered).length,
          pagesBlocked: walled.length,
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
      await reader.close();
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
      throw new AppError(
        "CRAWL_FAILED",
        `Could not crawl ${start.hostname}: its address could not be looked up right now.`,
        { cause: error },
      );
    }
  }

  /** The home page must be readable: anything else fails the whole crawl with the reason. */
  private async fetchHome(start: URL, reader: PageReader, rules: SiteRules): Promise<ExtractedFetch> {
    const fail = (reason: string, action?: string) =>
      new AppError("CRAWL_FAILED", `Could not crawl ${start.hostname}: ${reason}.`, action ? { action } : {});
    let url = start.toString();
    for (let refreshes = 0; ; refreshes += 1) {
      if (!(await rules.allows(url))) {
        const unreadable = rules.robotsProblem(url);
        if (unreadable)
          throw fail(`its robots.txt could not be read (${unreadable}), and crawlers must then stay away (RFC 9309)`);
        throw fail(`its robots.txt does not allow ${this.settings.robotsToken} to read ${url}`);
      }
      let fetched: ExtractedFetch;
      try {
        await rules.waitTurn(url);
        fetched = (await reader.read(url, { home: true })) as ExtractedFetch;
      } catch (error) {
        if (error instanceof WallFailure)
          throw fail(
            `the home page answered with ${describeWall(error.wall)} instead of the page; a bot wall is never scored`,
            WALL_ACTION,
          );
        if (error instanceof ShellFailure) {
          if (error.why === "no browser") {
            throw fail(
              "the site builds its pages in the browser with JavaScript (its HTML is an empty shell), and this service has no browser to read them",
              NO_BROWSER_ACTION,
            );
          }
          throw fail(
            `the site builds its pages in the browser, and its home page could not be rendered (${error.reason.replace(/^not rendered: /, "")})`,
          );
        }
        if (error instanceof FetchFailure) throw fail(homeReason(error, this.settings.limits));
        throw error;
      }
      const { page } = fetched;
      // A home page that only refreshes elsewhere on the same site is followed (once or twice), through the same guard.
      if (
        page.metaRefresh &&
        refreshes < 2 &&
        canonicalUrl(page.metaRefresh) !== page.url &&
        isSameSite(page.metaRefresh, start) &&
        isRefreshStub(page)
      ) {
        url = page.metaRefresh;
        continue;
      }
      return fetched;
    }
  }
}

/** A digest of the title and the whole text: equal for two addresses of one page, different for two pages of one template. */
const fingerprint = (page: ExtractedPage): string =>
  createHash("sha256").update(page.title).update("\u0000").update(page.text).digest("base64");

/** A file an app links to (a logo, a PDF): a missing one is a missing file, never a client-side route to follow. */
const NOT_A_PAGE =
  /\.(?:png|jpe?g|gif|svg|webp|avif|ico|bmp|pdf|zip|gz|tgz|dmg|exe|msi|apk|csv|xlsx?|docx?|pptx?|mp[34]|webm|mov|ogg|wav|woff2?|ttf|otf|css|js|mjs|json|xml|txt|rss|atom)$/i;

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

const refusedAddress = (start: URL, error: RefusedAddressError) =>
  new AppError("INVALID_URL", `${start.hostname} cannot be crawled: ${error.reason}.`, { param: "url" });

function abortion(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
