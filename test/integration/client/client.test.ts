import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PmsApiError, PmsClient, PmsJobFailedError, type ProgressStep } from "../../../src/client/index.js";
import { dimensions as frameworkDimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { drainCredits, keyedMember } from "../../support/api-key.js";
import type { Route, Site } from "../../support/fixture-sites.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * The typed client against the real service (crawl, scoring, Postgres, graphql-ws):
 * what an integrator's code sees. Every /api answer is also checked against the
 * OpenAPI document by the suite's contract check.
 */

const leader = calibrationSites.find((site) => site.host === "leader.test")!;

/** leader.test's pages, with a home page that waits until the test opens the gate (so a subscriber sees every step). */
function gatedSite(): { site: Site; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const serve = (route: Route | undefined, response: ServerResponse) => {
    if (typeof route === "string") response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(route);
    else if (route)
      response
        .writeHead(route.status ?? 200, { "content-type": "text/html; charset=utf-8", ...route.headers })
        .end(route.body ?? "");
    else response.writeHead(404).end();
  };
  return {
    site: {
      ...leader.pages,
      "/": { handle: (_request, response) => void opened.then(() => serve(leader.pages["/"], response)) },
    },
    open,
  };
}

const gate = gatedSite();
let service: ScoringTestApp;
const clients: PmsClient[] = [];

beforeAll(async () => {
  service = await startScoringApp({
    env: { SSRF_ALLOWLIST: "127.0.0.1/32,*.test" },
    extraSites: { "gated.test": gate.site },
  });
});
afterAll(async () => {
  gate.open();
  for (const client of clients) await client.close();
  await service?.close();
});

function clientFor(apiKey?: string, options: Partial<ConstructorParameters<typeof PmsClient>[0]> = {}): PmsClient {
  const client = new PmsClient({ baseUrl: service.url, ...(apiKey ? { apiKey } : {}), ...options });
  clients.push(client);
  return client;
}

describe("the typed client against the running service", () => {
  it("starts a score, follows its progress over graphql-ws (crawling, scoring 1..27, completed) and reads the result", async () => {
    const ada = await keyedMember(service, "ada@client.test");
    const pms = clientFor(ada.apiKey);
    const started = await pms.startScore(service.siteUrl("gated.test"), { mode: "quick", context: "B2B analytics" });
    expect(started).toMatchObject({ claimToken: null, job: { kind: "quick" } });

    const steps: ProgressStep[] = [];
    for await (const step of pms.followProgress(started.job.id)) {
      steps.push(step);
      if (steps.length === 1) gate.open();
    }
    const statuses = [...new Set(steps.map((step) => step.status))];
    expect(steps.at(-1)?.error).toBeNull();
    expect(statuses.filter((status) => status !== "queued")).toEqual(["crawling", "scoring", "completed"]);
    const crawling = steps.filter((step) => step.status === "crawling" && step.page);
    expect(crawling[0]).toMatchObject({ page: 1, url: expect.stringContaining("gated.test") });
    expect(crawling.every((step) => step.page! <= step.pages!)).toBe(true);
    const scoring = steps.filter((step) => step.status === "scoring");
    expect(scoring.map((step) => step.dimension)).toEqual(Array.from({ length: 27 }, (_, index) => index + 1));
    expect(scoring.map((step) => step.dimensionId)).toEqual(frameworkDimensions.map((dimension) => dimension.id));
    const completed = steps.at(-1)!;
    expect(completed).toMatchObject({
      status: "completed",
      jobId: started.job.id,
      resultId: expect.any(String),
      error: null,
    });

    const result = await pms.result(completed.resultId!);
    expect(result).toMatchObject({ id: completed.resultId, mode: "quick", held: false });
    expect(result.dimensions).toHaveLength(27);
    expect((await pms.job(started.job.id)).status).toBe("completed");
  });

  it("scores over REST (waiting on the service), then finds it in history and usage", async () => {
    const bo = await keyedMember(service, "bo@client.test");
    const pms = clientFor(bo.apiKey);
    const answer = await pms.score(service.siteUrl("leader.test"), { mode: "quick" });
    if (answer.status !== "completed") throw new Error("expected the result within the wait");
    expect(answer.result).toMatchObject({ mode: "quick", framework: "maturity" });
    expect(typeof answer.result.totalScore).toBe("number");

    const history = await pms.history({ limit: 5 });
    expect(history.results.map((result) => result.id)).toEqual([answer.result.id]);
    expect(history.nextCursor).toBeNull();
    const usage = await pms.usage();
    expect(usage).toMatchObject({ plan: "business", scores: { used: 1 } });
    expect((await pms.health()).status).toMatch(/^(pass|warn)$/);
  });

  it("scores with the product framework and waits for a job to completion", async () => {
    const cy = await keyedMember(service, "cy@client.test");
    const pms = clientFor(cy.apiKey);
    const product = await pms.score(service.siteUrl("leader.test"), { mode: "product" });
    if (product.status !== "completed") throw new Error("expected the result within the wait");
    expect(product.result).toMatchObject({
      framework: "product",
      productId: expect.any(String),
      crawlStats: { pagesAnalyzed: expect.any(Number) },
    });

    const started = await pms.startScore(service.siteUrl("leader.test"), { mode: "quick" });
    const job = await pms.waitForJob(started.job.id, { intervalMs: 100 });
    expect((await pms.result(job.resultId)).mode).toBe("quick");
  });

  it("carries the service's code, action, retryable and request id on refusals, without retrying them", async () => {
    const dee = await keyedMember(service, "dee@client.test");
    let sends = 0;
    const counted: typeof fetch = (input, init) => {
      sends += 1;
      return fetch(input, init);
    };
    const pms = clientFor(dee.apiKey, { fetch: counted, sleep: async () => undefined });

    const missing = await pms.result("00000000-0000-4000-8000-000000000000").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PmsApiError);
    expect(missing).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      retryable: false,
      attempts: 1,
      requestId: expect.any(String),
    });
    expect((missing as PmsApiError).action).toBe("Check the identifier or path.");

    sends = 0;
    const invalid = await pms.score("not a web address").catch((error: unknown) => error);
    expect(invalid).toMatchObject({
      status: 400,
      code: "INVALID_URL",
      retryable: false,
      attempts: 1,
      param: "url",
      docUrl: "/docs#section/Errors/INVALID_URL",
    });
    expect(sends).toBe(1);

    const badKey = clientFor("pms_live_0000000000000000000000000000000000000000000000000");
    expect(await badKey.usage().catch((error: unknown) => error)).toMatchObject({
      status: 401,
      code: "AUTH_REQUIRED",
      retryable: false,
    });
    expect(
      await clientFor()
        .usage()
        .catch((error: unknown) => error),
    ).toMatchObject({ status: 401, code: "AUTH_REQUIRED" });

    const refusedStart = await pms.startScore("ftp://example.com").catch((error: unknown) => error);
    expect(refusedStart).toMatchObject({ status: 400, code: "INVALID_URL", retryable: false });
  });

  it("never retries 402: out of credits is CREDIT_EXHAUSTED after one send", async () => {
    const eve = await keyedMember(service, "eve@client.test");
    await drainCredits(service, eve);
    let sends = 0;
    const sleeps: number[] = [];
    const pms = clientFor(eve.apiKey, {
      fetch: (input, init) => ((sends += 1), fetch(input, init)),
      sleep: async (ms) => void sleeps.push(ms),
    });
    const error = await pms.score(service.siteUrl("leader.test"), { mode: "quick" }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ status: 402, code: "CREDIT_EXHAUSTED", retryable: false, attempts: 1 });
    expect((error as PmsApiError).action).toMatch(/score pack|upgrade/i);
    expect(sends).toBe(1);
    expect(sleeps).toEqual([]);
  });

  it("retries the service's real 429 after its Retry-After (60 s, recorded, not slept) and stops at the cap", async () => {
    const fay = await keyedMember(service, "fay@client.test");
    const keys: string[] = [];
    const sleeps: number[] = [];
    const pms = clientFor(fay.apiKey, {
      fetch: (input, init) => {
        const key = new Headers(init?.headers).get("idempotency-key");
        if (key) keys.push(key);
        return fetch(input, init);
      },
      sleep: async (ms) => void sleeps.push(ms),
    });
    // Five score starts pass the short window (5 per 60 s); the sixth call is refused each time it is sent.
    for (let i = 0; i < 5; i += 1) await pms.startScore(service.siteUrl("leader.test"), { mode: "quick" });
    keys.length = 0;
    const error = await pms
      .startScore(service.siteUrl("leader.test"), { mode: "quick" })
      .catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({
      status: 429,
      code: "SCORING_RATE_LIMITED",
      retryable: true,
      attempts: 3,
      retryAfterSeconds: expect.any(Number),
    });
    const retryAfter = (error as PmsApiError).retryAfterSeconds!;
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(sleeps).toHaveLength(2);
    expect(sleeps[0]).toBeGreaterThanOrEqual(retryAfter * 1000);
    expect(sleeps[1]).toBe(Math.min(120_000, sleeps[0]! * 2));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);

    // The same over REST: the refusal's envelope and Retry-After, three sends.
    keys.length = 0;
    const rest = await pms.score(service.siteUrl("leader.test"), { mode: "quick" }).catch((thrown: unknown) => thrown);
    expect(rest).toMatchObject({
      status: 429,
      code: "SCORING_RATE_LIMITED",
      attempts: 3,
      requestId: expect.any(String),
    });
    expect(new Set(keys).size).toBe(1);
  });

  it("reports a job that failed (an address that does not resolve) as PmsJobFailedError", async () => {
    const gus = await keyedMember(service, "gus@client.test");
    const pms = clientFor(gus.apiKey);
    const started = await pms.startScore("http://nowhere.test/", { mode: "quick" });
    const steps: ProgressStep[] = [];
    for await (const step of pms.followProgress(started.job.id)) steps.push(step);
    expect(steps.at(-1)).toMatchObject({ status: "failed", error: { code: expect.any(String) } });
    const failure = await pms.waitForJob(started.job.id).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PmsJobFailedError);
    expect(failure).toMatchObject({ jobId: started.job.id, code: steps.at(-1)!.error!.code });
  });

  it("lists, creates and deletes webhooks", async () => {
    const hal = await keyedMember(service, "hal@client.test");
    const pms = clientFor(hal.apiKey);
    expect(await pms.webhooks.list()).toEqual([]);
    const created = await pms.webhooks.create("https://127.0.0.1:9/hooks/pms", {
      events: ["score.completed", "subscription.changed"],
    });
    expect(created).toMatchObject({
      url: "https://127.0.0.1:9/hooks/pms",
      events: ["score.completed", "subscription.changed"],
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed = await pms.webhooks.list();
    expect(listed.map((webhook) => webhook.id)).toEqual([created.id]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect((await pms.webhooks.get(created.id)).id).toBe(created.id);
    await pms.webhooks.delete(created.id);
    expect(await pms.webhooks.list()).toEqual([]);
    expect(await pms.webhooks.delete(created.id).catch((error: unknown) => error)).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
    });
  });
});
