import { FetchFailure, type Fetcher } from "./fetcher.js";
import { ALLOW_ALL, parseRobots, type RobotsRules } from "./robots.js";
import { parseSitemap } from "./sitemap.js";
import { canonicalUrl, fetchAddress, isSameSite } from "./url.js";

const MAX_SITEMAP_URLS = 500;
const MAX_CHILD_SITEMAPS = 3;
/** Added to every Crawl-delay (or 10 % of it, whichever is more): see waitTurn. */
const CRAWL_DELAY_MARGIN_MS = 50;
const MAX_CRAWL_DELAY_MS = 10_000;

interface OriginRules {
  readonly state: "found" | "absent" | "error";
  readonly rules: RobotsRules;
  /** Why robots.txt could not be read, when state is "error". */
  readonly problem?: string;
}

/**
 * What each origin of the site asks of crawlers: robots.txt (read once per
 * origin: www., apex and docs. each have their own), its Crawl-delay between our
 * requests, and where its sitemaps are.
 */
export class SiteRules {
  private readonly origins = new Map<string, Promise<OriginRules>>();
  private readonly nextTurn = new Map<string, Promise<void>>();

  constructor(
    private readonly fetcher: Fetcher,
    private readonly token: string,
    private readonly signal: AbortSignal,
  ) {}

  async allows(url: string): Promise<boolean> {
    const target = new URL(url);
    const { rules } = await this.forOrigin(target.origin);
    return rules.isAllowed(`${target.pathname}${target.search}`);
  }

  robotsState(url: URL | string): OriginRules["state"] {
    return this.settled.get(new URL(url).origin)?.state ?? "absent";
  }

  /** Why this origin's robots.txt could not be read, if it could not. */
  robotsProblem(url: URL | string): string | undefined {
    return this.settled.get(new URL(url).origin)?.problem;
  }

  /** Waits until this origin's Crawl-delay since our previous request to it has passed. */
  async waitTurn(url: string): Promise<void> {
    const origin = new URL(url).origin;
    const { rules } = await this.forOrigin(origin);
    const askedMs = Math.min((rules.crawlDelaySeconds ?? 0) * 1000, MAX_CRAWL_DELAY_MS);
    if (askedMs <= 0) return;
    // Turns are spaced here; a request leaves a little later (address checks, a busy event loop), and
    // not always equally late. The margin keeps the gaps the host sees at or above what it asked for.
    const delayMs = askedMs + Math.max(CRAWL_DELAY_MARGIN_MS, askedMs * 0.1);
    const previous = this.nextTurn.get(origin) ?? Promise.resolve();
    const mine = previous.then(() => sleep(delayMs, this.signal));
    // Requests to one origin are spaced one delay apart, in the order they asked.
    this.nextTurn.set(origin, mine);
    await previous;
  }

  /**
   * Same-site page URLs listed by the site's sitemaps: robots.txt `Sitemap:`
   * lines, else /sitemap.xml, and for a site that lives in a folder ("/website/")
   * that folder's sitemap.xml too.
   */
  async sitemapUrls(site: URL, basePath = "/"): Promise<string[]> {
    const { rules } = await this.forOrigin(site.origin);
    const declared = rules.sitemaps.filter((url) => isSameSite(url, site));
    const conventional =
      basePath === "/"
        ? [`${site.origin}/sitemap.xml`]
        : [`${site.origin}${basePath}sitemap.xml`, `${site.origin}/sitemap.xml`];
    const roots = declared.length > 0 ? declared.slice(0, MAX_CHILD_SITEMAPS) : conventional;
    const urls = new Set<string>();
    const children: string[] = [];
    for (const root of roots) {
      const sitemap = await this.readSitemap(root);
      if (sitemap?.kind === "index") children.push(...sitemap.entries.map((entry) => entry.loc));
      else for (const entry of sitemap?.entries ?? []) add(entry.loc);
    }
    for (const child of children.filter((url) => isSameSite(url, site)).slice(0, MAX_CHILD_SITEMAPS)) {
      const sitemap = await this.readSitemap(child);
      if (sitemap?.kind === "urlset") for (const entry of sitemap.entries) add(entry.loc);
    }
    return [...urls];

    function add(loc: string) {
      const written = rebaseDevHost(loc.trim(), site);
      const url = canonicalUrl(written);
      // Fetched as listed: a folder keeps its "/".
      if (url && urls.size < MAX_SITEMAP_URLS && isSameSite(url, site)) urls.add(fetchAddress(written, undefined, url));
    }
  }

  /** Whether the site publishes /.well-known/security.txt (RFC 9116) with a Contact field. */
  async hasSecurityTxt(site: URL): Promise<boolean> {
    try {
      const fetched = await this.fetcher.fetch(`${site.origin}/.well-known/security.txt`, {
        expect: "any",
        signal: this.signal,
      });
      return fetched.status === 200 && /^contact:/im.test(fetched.body.toString("utf8"));
    } catch {
      return false;
    }
  }

  private readonly settled = new Map<string, OriginRules>();

  private forOrigin(origin: string): Promise<OriginRules> {
    let rules = this.origins.get(origin);
    if (!rules) {
      rules = this.readRobots(origin).then((result) => {
        this.settled.set(origin, result);
        return result;
      });
      this.origins.set(origin, rules);
    }
    return rules;
  }

  /**
   * RFC 9309: 4xx means no rules; a server error or an unreachable robots.txt
   * means complete disallow, so a site whose robots.txt fails is not crawled.
   */
  private async readRobots(origin: string): Promise<OriginRules> {
    try {
      const fetched = await this.fetcher.fetch(`${origin}/robots.txt`, { expect: "any", signal: this.signal });
      if (fetched.status >= 500) return { state: "error", rules: DISALLOW_ALL, problem: `HTTP ${fetched.status}` };
      if (fetched.status >= 400) return { state: "absent", rules: ALLOW_ALL };
      return { state: "found", rules: parseRobots(fetched.body.toString("utf8"), this.token) };
    } catch (error) {
      // A refused or unresolvable origin: its pages will fail with that precise reason.
      if (error instanceof FetchFailure && (error.kind === "refused" || error.kind === "unresolvable")) {
        return { state: "absent", rules: ALLOW_ALL };
      }
      return {
        state: "error",
        rules: DISALLOW_ALL,
        problem: error instanceof FetchFailure ? error.reason : "unreadable",
      };
    }
  }

  private async readSitemap(url: string) {
    try {
      const fetched = await this.fetcher.fetch(url, { expect: "any", signal: this.signal });
      if (fetched.status !== 200 || fetched.truncated) return undefined;
      return parseSitemap(fetched.body.toString("utf8"));
    } catch {
      return undefined;
    }
  }
}

/** Hosts of a developer's own machine: a sitemap entry there can only mean this site's page. */
const DEV_HOSTS = new Set(["localhost", "127.0.0.1", "0.0.0.0", "[::1]"]);

/**
 * A static-site generator run without its production URL writes
 * "http://localhost:4000/pricing" into the sitemap the site then publishes
 * (a common Jekyll slip). Such an entry names a page of this site: its path is
 * read on the site's own origin. Anything else is left as written.
 */
function rebaseDevHost(loc: string, site: URL): string {
  let url: URL;
  try {
    url = new URL(loc);
  } catch {
    return loc;
  }
  if (!DEV_HOSTS.has(url.hostname) || url.origin === site.origin) return loc;
  return `${site.origin}${url.pathname}${url.search}`;
}

const DISALLOW_ALL: RobotsRules = { isAllowed: () => false, crawlDelaySeconds: undefined, sitemaps: [] };

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
