import { calibrationSites } from "../fixtures/calibration-sites.js";
import type { AppOverrides } from "../../src/app.js";
import { startTestApp, type TestApp } from "./app.js";
import { FixtureSites, fixtureResolver, type Site } from "./fixture-sites.js";

export interface ScoringTestApp extends TestApp {
  readonly sites: FixtureSites;
  /** `http://<host>:<port>/` of a fixture site (the calibration set's hosts, plus any `extraSites`). */
  siteUrl(host: string, path?: string): string;
}

/**
 * The service with its crawler pointed at local fixture sites: every `*.test` host
 * resolves to a local server (the calibration set by default), so scoring runs for
 * real, crawl and all, without leaving the machine.
 */
export async function startScoringApp(
  options: {
    env?: Record<string, string | undefined>;
    extraSites?: Record<string, Site>;
    waitMs?: number;
    leaseMs?: number;
    sweepEveryMs?: number;
    webhooks?: AppOverrides["webhooks"];
    /** The scorer to use whatever the environment says (e.g. heuristic while OPENAI_API_KEY points chat at a fake). */
    scorer?: NonNullable<AppOverrides["scoring"]>["scorer"];
  } = {},
): Promise<ScoringTestApp> {
  const sites = await new FixtureSites({
    ...Object.fromEntries(calibrationSites.map((site) => [site.host, site.pages])),
    ...options.extraSites,
  }).start();
  const service = await startTestApp(
    { SSRF_ALLOWLIST: "127.0.0.1/32,*.test", ...options.env },
    {
      scoring: {
        crawl: { resolver: fixtureResolver({ "nowhere.test": [] }), budgetMs: 20_000 },
        ...(options.waitMs ? { waitMs: options.waitMs } : {}),
        ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
        ...(options.sweepEveryMs ? { sweepEveryMs: options.sweepEveryMs } : {}),
        ...(options.scorer ? { scorer: options.scorer } : {}),
      },
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    },
  );
  return {
    ...service,
    sites,
    siteUrl: (host, path = "/") => sites.url(host, path),
    async close() {
      await service.close();
      await sites.stop();
    },
  };
}
