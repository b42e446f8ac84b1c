import type { Logger } from "pino";
import type { Config } from "../../config.js";
import { AddressGuard, type Resolver } from "./address-guard.js";
import { Crawler, defaultCrawlerSettings, type CrawlerSettings } from "./crawler.js";
import { BrowserRenderer, noRenderer, type RenderLimits, type Renderer } from "./render/renderer.js";

/** The product token robots.txt rules name; the User-Agent starts with it. */
export const ROBOTS_TOKEN = "ProductMaturityBot";

export function userAgentFor(version: string): string {
  return `${ROBOTS_TOKEN}/${version} (+product maturity scoring; reads public pages, honours robots.txt)`;
}

/**
 * The crawler as configured: SSRF_ALLOWLIST, CRAWL_MAX_PAGES; tests may also swap
 * the resolver and limits. Pass `renderer` (createRenderer) for a crawler that reads
 * client-rendered sites; without it, shell sites fail with CRAWL_FAILED.
 */
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

/**
 * The process's browser for shell pages (CHROMIUM_PATH, PATH or Playwright's cache),
 * judged by the same address guard as the crawler's fetches; `noRenderer` when none
 * was found. Nothing starts until a crawl meets a shell. Close it with the process.
 */
export function createRenderer(
  config: Pick<Config, "crawl">,
  logger: Pick<Logger, "warn" | "info" | "debug">,
  options: { resolver?: Resolver; limits?: Partial<RenderLimits> } = {},
): Renderer {
  const location = config.crawl.browser;
  if (!location) return noRenderer;
  return new BrowserRenderer(
    location,
    new AddressGuard({ allowlist: config.crawl.ssrfAllowlist, resolver: options.resolver }),
    logger,
    options.limits,
  );
}
