import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataSourceFor } from "../../../src/db/database.js";
import { creditLedgerOn } from "../../support/ledger.js";
import type { CrawlOptions, Crawler } from "../../../src/modules/crawl/crawler.js";
import { MemoryProgressBus } from "../../../src/modules/score/in-process-queue.js";
import { RedisProgressBus } from "../../../src/modules/score/redis-progress-bus.js";
import type { ProgressBus } from "../../../src/modules/score/score-progress.js";
import { createTestDatabase, type TestDatabase } from "../../support/database.js";
import { scoreJobRunnerOn } from "../../support/score-services.js";
import { syntheticCrawl } from "../../support/synthetic-crawl.js";
import { TcpRelay } from "../../support/tcp-relay.js";

/**
 * The runner's terminal transitions under failure: a finished job never turns into
 * a failed, refunded one (a Redis blip at its announcement, a stale worker whose
 * lease lapsed), and a stopping worker hands its job back at once without burning
 * an attempt. Real Postgres; Redis cut through a TCP relay.
 */
let database: TestDatabase;
let dataSource: DataSource;

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = dataSourceFor(database.url, 6);
  await dataSource.initialize();
});
afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

const crawl = syntheticCrawl([
  { path: "/", title: "Acme", text: "Acme helps teams ship. Pricing from $49 per month. Trusted by 200 teams." },
  { path: "/pricing", title: "Pricing", text: "Team $49 per month." },
]);

/** A crawler that returns the synthetic crawl once `open()` is called (or throws what `fail()` gives), honouring the abort signal. */
function gatedCrawler() {
  let open: () => void = () => undefined;
  let failWith: Error | undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => (started = resolve));
  const crawler = {
    crawl: async (_url: unknown, options: CrawlOptions = {}) => {
      started();
      await Promise.race([
        gate,
        new Promise<void>((resolve) => options.signal?.addEventListener("abort", () => resolve(), { once: true })),
      ]);
      if (failWith) throw failWith;
      return crawl;
    },
  } as unknown as Crawler;
  return { crawler, running, open: () => open(), fail: (error: Error) => ((failWith = error), open()) };
}

const immediateCrawler = { crawl: async () => crawl } as unknown as Crawler;

function runnerWith(crawler: Crawler, bus: ProgressBus = new MemoryProgressBus(), leaseMs = 60_000) {
  return scoreJobRunnerOn(dataSource, crawler, { bus, leaseMs }).runner;
}

/** A Pro account with one charged, queued job (as ScoreService.start leaves it). */
async function chargedJob(): Promise<{ accountId: string; jobId: string }> {
  const accountId = randomUUID();
  const jobId = randomUUID();
  await dataSource.query(
    `INSERT INTO "accounts" ("id", "name", "plan", "billing_cycle_anchor") VALUES ($1, 'Acme', 'pro', now())`,
    [accountId],
  );
  await dataSource.transaction(async (manager) => {
    await creditLedgerOn(dataSource).spend(accountId, "score", 100, `job:${jobId}`, { manager });
    await manager.query(
      `INSERT INTO "score_jobs" ("id", "account_id", "kind", "url", "status", "progress", "attempts") VALUES ($1, $2, 'score', 'https://acme.example/', 'queued', $3, 0)`,
      [jobId, accountId, JSON.stringify({ jobId, status: "queued" })],
    );
  });
  return { accountId, jobId };
}

interface JobRow {
  status: string;
  attempts: number;
  result_id: string | null;
  locked_until: Date | null;
  lease_token: string | null;
  progress: { status: string };
}
const jobRow = async (jobId: string): Promise<JobRow> =>
  (
    (await dataSource.query(
      `SELECT "status", "attempts", "result_id", "locked_until", "lease_token", "progress" FROM "score_jobs" WHERE "id" = $1`,
      [jobId],
    )) as JobRow[]
  )[0]!;
const refundsOf = async (accountId: string): Promise<unknown[]> =>
  dataSource.query(`SELECT "id" FROM "credit_entries" WHERE "account_id" = $1 AND "kind" = 'refund'`, [accountId]);
const resultsOf = async (jobId: string): Promise<Array<{ id: string }>> =>
  dataSource.query(`SELECT "id" FROM "score_results" WHERE "job_id" = $1`, [jobId]);

describe("a finished job stays finished", () => {
  it("when Redis is unreachable as the completion is announced: the result stands, nothing is refunded", async () => {
    const real = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
    const link = new TcpRelay({ host: real.hostname, port: Number(real.port || 6379) });
    await link.open();
    const bus = new RedisProgressBus({ url: `redis://127.0.0.1:${link.port}`, keyPrefix: `fence-${randomUUID()}:` });
    await link.cut();
    try {
      const { accountId, jobId } = await chargedJob();
      await runnerWith(immediateCrawler, bus).process(jobId);
      const row = await jobRow(jobId);
      expect(row).toMatchObject({ status: "completed", locked_until: null, lease_token: null });
      expect(await resultsOf(jobId)).toEqual([{ id: row.result_id }]);
      expect(await refundsOf(accountId)).toEqual([]);
    } finally {
      await bus.close();
    }
  }, 20_000);

  it("when a worker whose lease lapsed finishes after the next holder completed the job: its result is discarded, nothing is refunded", async () => {
    const { accountId, jobId } = await chargedJob();
    const stale = gatedCrawler();
    const first = runnerWith(stale.crawler).process(jobId);
    await stale.running;
    const firstToken = (await jobRow(jobId)).lease_token;
    expect(firstToken).toMatch(/^[0-9a-f-]{36}$/);

    // The first worker's lease lapses (a failover pause); a second worker takes the job and completes it.
    await dataSource.query(`UPDATE "score_jobs" SET "locked_until" = now() - interval '1 second' WHERE "id" = $1`, [
      jobId,
    ]);
    await runnerWith(immediateCrawler).process(jobId);
    const completed = await jobRow(jobId);
    expect(completed).toMatchObject({ status: "completed", attempts: 2 });

    stale.open();
    await first;
    expect(await jobRow(jobId)).toMatchObject({ status: "completed", attempts: 2, result_id: completed.result_id });
    expect(await resultsOf(jobId)).toEqual([{ id: completed.result_id }]);
    expect(await refundsOf(accountId)).toEqual([]);
  });

  it("when a stale worker's run fails after the next holder completed the job: no failure is written, nothing is refunded", async () => {
    const { accountId, jobId } = await chargedJob();
    const stale = gatedCrawler();
    const first = runnerWith(stale.crawler).process(jobId);
    await stale.running;
    await dataSource.query(`UPDATE "score_jobs" SET "locked_until" = now() - interval '1 second' WHERE "id" = $1`, [
      jobId,
    ]);
    await runnerWith(immediateCrawler).process(jobId);
    const completed = await jobRow(jobId);

    stale.fail(new Error("the stale worker's crawl broke"));
    await first;
    expect(await jobRow(jobId)).toMatchObject({
      status: "completed",
      result_id: completed.result_id,
      progress: { status: "completed" },
    });
    expect(await refundsOf(accountId)).toEqual([]);
  });

  it("a stale worker's progress and heartbeat do not touch a job someone else holds", async () => {
    const { jobId } = await chargedJob();
    const stale = gatedCrawler();
    const first = runnerWith(stale.crawler, new MemoryProgressBus(), 3_000).process(jobId);
    await stale.running;
    // Someone else claimed it meanwhile (their token, their lease).
    const theirs = randomUUID();
    await dataSource.query(
      `UPDATE "score_jobs" SET "lease_token" = $2, "locked_until" = now() + interval '1 hour', "status" = 'crawling' WHERE "id" = $1`,
      [jobId, theirs],
    );
    const before = await jobRow(jobId);
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // at least one heartbeat of the stale worker
    stale.open();
    await first;
    const after = await jobRow(jobId);
    expect(after).toMatchObject({ status: "crawling", lease_token: theirs, locked_until: before.locked_until });
    expect(await resultsOf(jobId)).toEqual([]);
  });
});

describe("a stopping worker", () => {
  it("aborts the crawl and releases the job at once: claimable, queued, the run not counted as an attempt", async () => {
    const { accountId, jobId } = await chargedJob();
    const crawling = gatedCrawler();
    const stopping = runnerWith(crawling.crawler);
    const run = stopping.process(jobId);
    await crawling.running;
    expect(await jobRow(jobId)).toMatchObject({ attempts: 1 });

    stopping.stop();
    await run;
    expect(await jobRow(jobId)).toMatchObject({
      status: "queued",
      attempts: 0,
      locked_until: null,
      lease_token: null,
      progress: { status: "queued" },
    });
    expect(stopping.releasedJobIds()).toEqual([jobId]);
    // A stopped runner takes nothing new.
    await stopping.process(jobId);
    expect(await jobRow(jobId)).toMatchObject({ status: "queued", attempts: 0 });

    // The next worker takes it at once (no lease to wait out) and finishes it on its first attempt.
    await runnerWith(immediateCrawler).process(jobId);
    expect(await jobRow(jobId)).toMatchObject({ status: "completed", attempts: 1 });
    expect(await refundsOf(accountId)).toEqual([]);
  });
});
