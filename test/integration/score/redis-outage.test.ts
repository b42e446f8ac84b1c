import { bounded } from "../../support/bounded.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomInt } from "node:crypto";
import { Redis } from "ioredis";
import type { Client } from "graphql-ws";
import type { Site } from "../../support/fixture-sites.js";
import { apiClient, graphqlClient, signIn } from "../../support/http.js";
import { follow, START_SCORE, wsClient } from "../../support/progress.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";
import { TcpRelay } from "../../support/tcp-relay.js";

/**
 * The scoring routes with REDIS_URL (rate limits, queue and progress in Redis),
 * through a link the test can cut: while Redis is gone the routes fail closed with
 * 429 and Retry-After: 60, charging nothing; when it returns, scoring resumes
 * without a restart.
 */
const real = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const prefix = `pmsoutage-${randomInt(1, 1_000_000_000)}`;
let link: TcpRelay;
let service: ScoringTestApp;
let api: ReturnType<typeof apiClient>;
const clients: Client[] = [];

/** A site whose home page answers only once the test opens it, so a job can be held mid-crawl. */
let openSite: () => void = () => undefined;
const siteOpened = new Promise<void>((resolve) => (openSite = resolve));
const heldSite: Site = {
  "/": {
    handle: (_request, response) => {
      void siteOpened.then(() => {
        const page =
          "<html><head><title>Held</title></head><body><h1>Held</h1><p>A site that answers late.</p></body></html>";
        if (!response.destroyed) response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
      });
    },
  },
};

beforeAll(async () => {
  link = new TcpRelay({ host: real.hostname, port: Number(real.port || 6379) });
  await link.open();
  // A REST wait far longer than the test may run: an answer in time came from the job's end, not the wait's.
  service = await startScoringApp({
    env: { REDIS_URL: `redis://127.0.0.1:${link.port}`, REDIS_PREFIX: prefix },
    waitMs: 600_000,
    extraSites: { "held.test": heldSite },
  });
  api = apiClient(service);
});
afterAll(async () => {
  openSite();
  for (const client of clients) await client.dispose();
  await service?.close();
  await link?.cut();
  const redis = new Redis(real.toString(), { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const quick = (cookie: string) =>
  api("/api/score/quick", { method: "POST", cookie, body: { url: service.siteUrl("maker.test") } });

describe("scoring while Redis is down", () => {
  it("scores through Redis, refuses with 429 Retry-After: 60 while it is gone (charging nothing), and recovers by itself", async () => {
    const ada = await signIn(service, "ada@outage.test");
    await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'pro' WHERE id = $1`, [ada.accountId]);
    const before = await quick(ada.cookie);
    expect(before.status).toBe(200);
    expect((await before.json()).dimensions).toHaveLength(27);

    await link.cut();
    const refused = await quick(ada.cookie);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect((await refused.json()).error).toMatchObject({ code: "SCORING_RATE_LIMITED", retryable: true });
    expect((await (await api("/api/usage", { cookie: ada.cookie })).json()).scores.used).toBe(1);

    await link.open();
    // The connections reconnect in the background (at most every 2 s): retry as a client would.
    let after: Response | undefined;
    for (let attempt = 0; attempt < 20; attempt += 1) {
      after = await quick(ada.cookie);
      if (after.status !== 429 && after.status !== 503) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(after!.status).toBe(200);
    expect((await (await api("/api/usage", { cookie: ada.cookie })).json()).scores.used).toBe(2);
  }, 60_000);
});

async function until(condition: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  for (const deadline = Date.now() + ms; !(await condition());) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("followers of a job when Redis blips while it runs", () => {
  it("a scoreProgress subscriber gets the end and completes, and a waiting POST /api/score answers the result, although the end was published while Redis was gone", async () => {
    const grace = await signIn(service, "grace@outage.test");
    await service.app.database.dataSource.query(`UPDATE accounts SET plan = 'pro' WHERE id = $1`, [grace.accountId]);
    const url = service.siteUrl("held.test");

    // A job followed over graphql-ws, and a REST call waiting on another; both crawls held at the home page.
    const started = await graphqlClient(service)(
      START_SCORE,
      { input: { kind: "quick", url } },
      { cookie: grace.cookie },
    );
    expect(started.errors).toBeUndefined();
    const jobId = started.data!.startScore.job.id as string;
    const client = wsClient(service.url, { cookie: grace.cookie });
    clients.push(client);
    const followed = follow(client, jobId);
    await bounded(followed.first, 10_000, "the subscription's first step");
    const waiting = api("/api/score", { method: "POST", cookie: grace.cookie, body: { url } });
    await until(
      async () => service.sites.requestsTo("held.test").filter((request) => request.path === "/").length >= 2,
      "both crawls reaching the site",
    );

    // Redis goes away; both jobs finish meanwhile (their end messages are lost); then Redis returns.
    await link.cut();
    openSite();
    const stored = async () =>
      (await service.app.database.dataSource.query(`SELECT "id", "status" FROM "score_jobs" WHERE "account_id" = $1`, [
        grace.accountId,
      ])) as Array<{ id: string; status: string }>;
    await until(
      async () => (await stored()).filter((job) => job.status === "completed").length === 2,
      "both jobs completing in Postgres",
      30_000,
    );
    await link.open();

    const ended = await bounded(followed.ended, 30_000, "the subscription's end");
    expect(ended.errors).toEqual([]);
    expect(ended.ending).toBe("complete");
    expect(ended.steps.at(-1)).toMatchObject({
      jobId,
      status: "completed",
      resultId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });

    // The REST wait is 600 s: an answer within the test's bound is the job's end, not the wait running out.
    const answer = await bounded(waiting, 30_000, "the waiting POST /api/score");
    const body = await answer.json();
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(body.dimensions).toHaveLength(27);
    const restJob = (await stored()).find((job) => job.id !== jobId)!;
    expect(restJob.status).toBe("completed");
  }, 90_000);
});
