import type { Client } from "graphql-ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dimensions as frameworkDimensions } from "../../../src/modules/scoring/framework/dimensions.js";
import { calibrationSites } from "../../fixtures/calibration-sites.js";
import { serveRoute, type Site } from "../../support/fixture-sites.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { follow, START_SCORE, wsClient as serviceWsClient, type ProgressStep } from "../../support/progress.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * `scoreProgress` over a real graphql-ws connection, for jobs started with the
 * `startScore` mutation over HTTP. `gated.test` serves leader.test's pages, but its
 * home page waits until the test opens the gate: the crawl cannot start before the
 * subscriber is listening, so the whole sequence is observable, every time.
 */

const leader = calibrationSites.find((site) => site.host === "leader.test")!;

interface Gate {
  readonly opened: Promise<void>;
  open(): void;
}
function newGate(): Gate {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}
let gate: Gate = newGate();
gate.open();

const gatedSite: Site = {
  ...leader.pages,
  "/": { handle: (_request, response) => void gate.opened.then(() => serveRoute(leader.pages["/"], response)) },
};

let service: ScoringTestApp;
const clients: Client[] = [];

beforeAll(async () => {
  service = await startScoringApp({ extraSites: { "gated.test": gatedSite } });
});
afterEach(() => gate.open());
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await service?.close();
});

const START = START_SCORE;

/** A graphql-ws client for the service, sending these headers with the WebSocket upgrade; disposed after the file. */
function wsClient(headers: Record<string, string> = {}): Client {
  const client = serviceWsClient(service.url, headers);
  clients.push(client);
  return client;
}

/** Rejects when the subscription does not end by itself in time (a stream that never completes). */
async function within<T>(promise: Promise<T>, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  );
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const gql = () => graphqlClient(service);

async function startScore(url: string, cookie?: string): Promise<{ jobId: string; claimToken: string | null }> {
  const answer = await gql()(START, { input: { kind: "score", url } }, cookie ? { cookie } : {});
  expect(answer.errors).toBeUndefined();
  return {
    jobId: answer.data!.startScore.job.id as string,
    claimToken: answer.data!.startScore.claimToken as string | null,
  };
}

async function jobOf(jobId: string, cookie?: string) {
  const answer = await gql()(
    `query Job($id: ID!) { scoreJob(id: $id) { id status resultId error { code message } } }`,
    { id: jobId },
    cookie ? { cookie } : {},
  );
  expect(answer.errors).toBeUndefined();
  return answer.data!.scoreJob as {
    id: string;
    status: string;
    resultId: string | null;
    error: { code: string; message: string } | null;
  };
}

async function waitForJobEnd(jobId: string, cookie?: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const job = await jobOf(jobId, cookie);
    if (job.status === "completed" || job.status === "failed") return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The whole life of a job as the subscriber must see it. */
function expectWholeSequence(steps: readonly ProgressStep[], jobId: string, siteOrigin: string): string {
  expect(steps.every((step) => step.jobId === jobId)).toBe(true);
  const statuses = steps.map((step) => step.status);
  // Grouped and in order: queued? → crawling+ → scoring×27 → completed, and nothing after it.
  const shape = statuses
    .join(",")
    .replace(/(crawling,)+/, "crawling*,")
    .replace(/(scoring,)+/, "scoring*,");
  expect(shape).toMatch(/^(queued,)?crawling\*,scoring\*,completed$/);

  const crawling = steps.filter((step) => step.status === "crawling");
  expect(crawling[0]!.page).toBe(1);
  for (const [index, step] of crawling.entries()) {
    expect(step.page).toBeGreaterThanOrEqual(1);
    expect(step.page!).toBeLessThanOrEqual(step.pages!);
    expect(step.url!.startsWith(siteOrigin)).toBe(true);
    if (index > 0) expect(step.page!).toBeGreaterThan(crawling[index - 1]!.page!);
  }
  expect(crawling.length).toBeGreaterThan(1); // leader.test has many pages

  const scoring = steps.filter((step) => step.status === "scoring");
  expect(scoring.map((step) => step.dimension)).toEqual(Array.from({ length: 27 }, (_, index) => index + 1));
  expect(scoring.map((step) => step.dimensionId)).toEqual(frameworkDimensions.map((dimension) => dimension.id));
  expect(scoring.every((step) => step.dimensions === 27)).toBe(true);

  const completed = steps.at(-1)!;
  expect(completed).toMatchObject({
    status: "completed",
    resultId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    error: null,
  });
  return completed.resultId!;
}

describe("scoreProgress over graphql-ws", () => {
  it("streams an anonymous job to the same address from queued to completed, then ends by itself", async () => {
    gate = newGate();
    const url = service.siteUrl("gated.test");
    const { jobId, claimToken } = await startScore(url);
    expect(claimToken).toMatch(/^clm_/);

    const { first, ended } = follow(wsClient(), jobId);
    await within(first, 5_000);
    gate.open();
    const followed = await within(ended);

    expect(followed.errors).toEqual([]);
    expect(followed.ending).toBe("complete");
    // The crawl was held at the home page until the first message: the first step is queued.
    expect(followed.steps[0]!.status).toBe("queued");
    const resultId = expectWholeSequence(followed.steps, jobId, new URL(url).origin);

    const job = await jobOf(jobId);
    expect(job).toMatchObject({ status: "completed", resultId });
    const answer = await gql()(`query Result($id: ID!) { scoreResult(id: $id) { id url crawledPages } }`, {
      id: resultId,
    });
    const result = answer.data!.scoreResult as { id: string; url: string; crawledPages: string[] };
    expect(result).toMatchObject({ id: resultId, url: expect.stringContaining("gated.test") });
    // Every page the result rests on was announced while crawling.
    const announced = followed.steps.filter((step) => step.status === "crawling").map((step) => step.url);
    expect(announced).toHaveLength(result.crawledPages.length);
    expect(new Set(announced)).toEqual(new Set(result.crawledPages));
  });

  it("refuses another account's job with NOT_FOUND (and a foreign origin's cookie) but streams it to its owner", async () => {
    gate = newGate();
    const owner = await signIn(service, "progress-owner@example.com");
    const stranger = await signIn(service, "progress-stranger@example.com");
    const url = service.siteUrl("gated.test");
    const { jobId, claimToken } = await startScore(url, owner.cookie);
    expect(claimToken).toBeNull();

    // Another account, on the service's own origin: the job does not exist for it.
    const denied = await within(follow(wsClient({ cookie: stranger.cookie, origin: service.url }), jobId).ended, 5_000);
    expect(denied.steps).toEqual([]);
    expect(denied.errors).toHaveLength(1);
    expect(denied.errors[0]!.extensions).toMatchObject({ code: "NOT_FOUND" });
    // The owner's cookie sent by a page elsewhere is ignored: anonymous, so NOT_FOUND as well.
    const hijack = await within(
      follow(wsClient({ cookie: owner.cookie, origin: "https://evil.example" }), jobId).ended,
      5_000,
    );
    expect(hijack.steps).toEqual([]);
    expect(hijack.errors[0]!.extensions).toMatchObject({ code: "NOT_FOUND" });
    // Anonymous from the job's own address: an account's job is not an address's.
    const anonymous = await within(follow(wsClient(), jobId).ended, 5_000);
    expect(anonymous.errors[0]!.extensions).toMatchObject({ code: "NOT_FOUND" });

    const { first, ended } = follow(wsClient({ cookie: owner.cookie, origin: service.url }), jobId);
    await within(first, 5_000);
    gate.open();
    const followed = await within(ended);
    expect(followed.errors).toEqual([]);
    expect(followed.ending).toBe("complete");
    const resultId = expectWholeSequence(followed.steps, jobId, new URL(url).origin);
    expect((await jobOf(jobId, owner.cookie)).resultId).toBe(resultId);
  });

  it("answers a finished job with just its completed step, then ends", async () => {
    const owner = await signIn(service, "progress-late@example.com");
    const { jobId } = await startScore(service.siteUrl("maker.test"), owner.cookie);
    const job = await waitForJobEnd(jobId, owner.cookie);
    expect(job.status).toBe("completed");

    const followed = await within(follow(wsClient({ cookie: owner.cookie, origin: service.url }), jobId).ended, 5_000);
    expect(followed.errors).toEqual([]);
    expect(followed.ending).toBe("complete");
    expect(followed.steps).toEqual([
      {
        jobId,
        status: "completed",
        resultId: job.resultId,
        page: null,
        pages: null,
        url: null,
        dimension: null,
        dimensions: null,
        dimensionId: null,
        error: null,
      },
    ]);
  });

  it("streams a failed job's error and refunds its credits", async () => {
    const owner = await signIn(service, "progress-failed@example.com");
    const api = apiClient(service);
    const { jobId } = await startScore(service.siteUrl("nowhere.test"), owner.cookie);

    const followed = await within(follow(wsClient({ cookie: owner.cookie, origin: service.url }), jobId).ended);
    expect(followed.errors).toEqual([]);
    expect(followed.ending).toBe("complete");
    const last = followed.steps.at(-1)!;
    expect(last).toMatchObject({ jobId, status: "failed", resultId: null });
    // nowhere.test has no address: the caller's address is refused before any request.
    expect(last.error).toEqual({ code: "INVALID_URL", message: expect.stringContaining("nowhere.test") });
    expect(followed.steps.filter((step) => step.status === "failed")).toHaveLength(1);
    expect(followed.steps.some((step) => step.status === "completed" || step.status === "scoring")).toBe(false);

    const job = await jobOf(jobId, owner.cookie);
    expect(job).toMatchObject({ status: "failed", resultId: null, error: last.error });
    const usage = await (await api("/api/usage", { cookie: owner.cookie })).json();
    expect(usage).toMatchObject({ scores: { used: 0 }, credits: { used: 0 } });
  });
});
