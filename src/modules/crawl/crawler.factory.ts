import type { Config } from "../../config.js";
import { AddressGuard, type Resolver } from "./address-guard.js";
import { Crawler, defaultCrawlerSettings, type CrawlerSettings } from "./crawler.js";

/** The product token robots.txt rules name; the User-Agent starts with it. */
export const ROBOTS_TOKEN = "ProductMaturityBot";

export function userAgentFor(version: string): string {
  return `${ROBOTS_TOKEN}/${version} (+product maturity scoring; reads public pages, honours robots.txt)`;
}

/** The crawler as configured: SSRF_ALLOWLIST, CRAWL_MAX_PAGES; tests may also swap the resolver and limits. */
export function createCrawler(
  config: Pick<Config, "crawl" | "version">,
  overrides: Partial<Omit<CrawlerSettings, "guard">> & { resolver?: Resolver } = {},
): Crawler {
  const { resolver, ...settings } = overrides;
  return new Crawler({
    ...defaultCrawlerSettings,
    guard: new AddressGuard({ allowlist: config.crawl.ssrfAllowlist, resolver }),
    userAgent: userAgentFor(config.version),
    robotsToken: ROBOTS_TOKEN,
    maxPages: config.crawl.maxPages,
    ...settings,
  });
}
