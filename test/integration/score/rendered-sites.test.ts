import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appSite, matureApp } from "../../fixtures/spa-sites.js";
import { browserSuite, RUN_BROWSER_SUITES } from "../../support/browser.js";
import { page, type Site } from "../../support/fixture-sites.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Sites that cannot be read as they are (docs/api.md §12) over both doors: a bot wall
 * in any of its forms, and a site built in the browser where there is no browser,
 * answer 400 CRAWL_FAILED naming why, with advice of their own, and cost nothing.
 */
const CHALLENGE = `<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><h2>Checking if the site connection is secure</h2><p>The site needs to review the security of your connection before proceeding.</p><script>window._cf_chl_opt={cZone:"x"}</script></body></html>`;
const CAPTCHA = `<!doctype html><title>Security check</title><h1>Please verify you are a human</h1><p>Complete the security check to continue.</p><div class="g-recaptcha" data-sitekey="k"></div><script src="https://www.google.com/recaptcha/api.js"></script>`;
const ordinary = (title: string) =>
  page(
    title,
    `<nav><a href="/pricing">Pricing</a> <a href="/about">About</a> <a href="/careers">Careers</a> <a href="/security">Security</a></nav><h1>${title}</h1><p>An ordinary page of an ordinary product.</p>`,
  );

const walls: Record<string, Site> = {
  // 1. The CDN's challenge page, 403 (429 and 503 are the same form).
  "challenge.test": { "/": { status: 403, headers: { server: "cloudflare" }, body: CHALLENGE } },
  // 2. The CDN says so in a header, whatever the body.
  "mitigated.test": { "/": { status: 403, headers: { "cf-mitigated": "challenge" }, body: "<p>blocked</p>" } },
  // 3. A captcha interstitial answered with 200.
  "captcha.test": { "/": CAPTCHA },
  // 4. A home page that gets through, then a wall on every page after it.
  "later.test": {
    "/": ordinary("Later"),
    ...Object.fromEntries(
      ["/pricing", "/about", "/careers", "/security"].map((path) => [
        path,
        { status: 503, headers: { server: "cloudflare" }, body: CHALLENGE },
      ]),
    ),
  },
};

let service: ScoringTestApp;
let bare: ScoringTestApp;

beforeAll(async () => {
  service = await startScoringApp({ extraSites: { ...walls, "spa.test": appSite(matureApp, "history") } });
  // The same service where no browser was found.
  bare = await startScoringApp({
    env: { CHROMIUM_PATH: "off" },
    extraSites: { "spa.test": appSite(matureApp, "history") },
  });
});
afterAll(async () => {
  await service?.close();
  await bare?.close();
});

async function refusal(app: ScoringTestApp, email: string, url: string) {
  const caller = await signIn(app, email);
  const response = await apiClient(app)("/api/score", { method: "POST", body: { url }, cookie: caller.cookie });
  const { error } = (await response.json()) as {
    error: { code: string; message: string; action: string; retryable: boolean };
  };
  const rest = { status: response.status, ...error };
  const graph = await graphqlClient(app)(
    `mutation($input: ScoreInput!) { score(input: $input) { result { id } } }`,
    { input: { url } },
    { cookie: caller.cookie },
  );
  const usage = await (await apiClient(app)("/api/usage", { cookie: caller.cookie })).json();
  return { rest, graph: graph.errors?.[0], usage };
}

describe("bot walls", () => {
  it.each(Object.keys(walls))(
    "%s: 400 CRAWL_FAILED naming the block, on both doors, and nothing charged",
    async (host) => {
      const { rest, graph, usage } = await refusal(service, `wall-${host}@walls.test`, service.siteUrl(host));
      expect(rest).toMatchObject({ status: 400, code: "CRAWL_FAILED", retryable: false });
      expect(rest.message).toMatch(
        host === "captcha.test"
          ? /a captcha interstitial \(HTTP 200\)/
          : /Cloudflare's browser check \(HTTP (403|503)\)/,
      );
      expect(rest.message).toMatch(/a bot wall is never scored/);
      expect(rest.action).toMatch(/let ProductMaturityBot through/);
      expect(graph?.extensions).toMatchObject({ code: "CRAWL_FAILED", action: rest.action });
      expect(graph?.message).toBe(rest.message);
      expect(usage.scores.used).toBe(0);
      expect(usage.credits.used).toBe(0);
    },
  );

  it("keeps the failed job's advice: the job answer and the progress stream carry it", async () => {
    const caller = await signIn(service, "jobs@walls.test");
    const graphql = graphqlClient(service);
    const started = await graphql(
      `
        mutation ($input: StartScoreInput!) {
          startScore(input: $input) {
            job {
              id
            }
          }
        }
      `,
      { input: { url: service.siteUrl("captcha.test") } },
      { cookie: caller.cookie },
    );
    const jobId = started.data?.startScore.job.id as string;
    let job:
      | {
          status: string;
          error: { code: string; message: string; action: string } | null;
          progress: { error?: { action: string } } | null;
        }
      | undefined;
    for (let tries = 0; tries < 100 && job?.status !== "failed"; tries += 1) {
      job = (await (
        await apiClient(service)(`/api/score/jobs/${jobId}`, { cookie: caller.cookie })
      ).json()) as typeof job;
      if (job?.status !== "failed") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job?.error).toMatchObject({
      code: "CRAWL_FAILED",
      action: expect.stringMatching(/let ProductMaturityBot through/),
    });
  });
});

describe("a site built in the browser, with no browser here", () => {
  it("answers 400 CRAWL_FAILED saying so and how to add one, and charges nothing", async () => {
    const { rest, graph, usage } = await refusal(bare, "shell@browserless.test", bare.siteUrl("spa.test"));
    expect(rest).toMatchObject({ status: 400, code: "CRAWL_FAILED" });
    expect(rest.message).toMatch(/builds its pages in the browser with JavaScript/);
    expect(rest.action).toMatch(/CHROMIUM_PATH/);
    expect(graph?.extensions).toMatchObject({ code: "CRAWL_FAILED", action: rest.action });
    expect(usage.credits.used).toBe(0);
    const health = await (await fetch(`${bare.url}/api/health`)).json();
    expect(health.checks.rendering).toMatchObject({ status: "warn", detail: expect.stringContaining("no browser") });
    expect(health.status).not.toBe("fail");
  });
});

describe.runIf(RUN_BROWSER_SUITES)(browserSuite("a site built in the browser"), () => {
  it("is scored from what its scripts write, and says so", async () => {
    const caller = await signIn(service, "app@rendered.test");
    const response = await apiClient(service)("/api/score/product", {
      method: "POST",
      body: { url: service.siteUrl("spa.test") },
      cookie: caller.cookie,
    });
    expect(response.status).toBe(200);
    const result = await response.json();
    expect(result.crawlStats).toMatchObject({ pagesAnalyzed: 11, pagesRendered: 11, pagesBlocked: 0 });
    expect(result.crossDimensionNotes).toContain("all rendered in headless Chromium");
    expect(result.totalScore).toBeGreaterThanOrEqual(40);
    const health = await (await fetch(`${service.url}/api/health`)).json();
    expect(health.checks.rendering).toMatchObject({ status: "pass", detail: expect.stringMatching(/^Chromium \d+/) });
  });
});
