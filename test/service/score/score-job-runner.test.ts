import { randomUUID } from "node:crypto";
import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../../src/errors.js";
import type { CrawlOptions, Crawler } from "../../../src/modules/crawl/crawler.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";
import { scoreJobRunnerOn, scoreServiceOn } from "../../support/score-services.js";
import { syntheticCrawl } from "../../support/synthetic-crawl.js";

/**
 * ScoreJobRunner over its real repositories on a database of its own: the claim is
 * fenced (a job under a live lease is nobody else's), a completion writes the
 * result, its dimensions and the outbox event in one transaction, and a failure
 * refunds the charge. Jobs are created by ScoreService.start, as in production.
 */
let database: ClonedDatabase;
let dataSource: DataSource;

beforeAll(async () => {
  database = await openClonedDatabase(6);
  dataSource = database.dataSource;
});
afterAll(async () => {
  await database?.close();
});

const crawl = syntheticCrawl([
  { path: "/", title: "Acme", text: "Acme helps teams ship. Pricing from $49 per month. Trusted by 200 teams." },
]);
const immediate = { crawl: async () => crawl } as unknown as Crawler;
const failing = (error: Error) => ({ crawl: async () => Promise.reject(error) }) as unknown as Crawler;

/** A crawler that waits until `open()` (or the runner's abort), and says when it started. */
function gatedCrawler() {
  let open: () => void = () => undefined;
  let started: () => void = () => undefined;
  let calls = 0;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const running = new Promise<void>((resolve) => (started = resolve));
  const crawler = {
    crawl: async (_url: unknown, options: CrawlOptions = {}) => {
      calls += 1;
      started();
      await Promise.race([
        gate,
        new Promise<void>((resolve) => options.signal?.addEventListener("abort", () => resolve(), { once: true })),
      ]);
      return crawl;
    },
  } as unknown as Crawler;
  return { crawler, running, open: () => open(), calls: () => calls };
}

/** A charged, queued job of a new Pro account (or of an anonymous caller). */
async function queuedJob(
  owner: "account" | "anonymous" = "account",
): Promise<{ accountId: string | null; jobId: string }> {
  let accountId: string | null = null;
  let viewer: { kind: "anonymous" } | { kind: "member"; accountId: string; userId: string; via: "session" } = {
    kind: "anonymous",
  };
  if (owner === "account") {
    const [row] = (await dataSource.query(
      `INSERT INTO "accounts" ("name", "plan", "billing_cycle_anchor") VALUES ('Acme', 'pro', now()) RETURNING "id"`,
    )) as Array<{ id: string }>;
    accountId = row!.id;
    viewer = { kind: "member", accountId, userId: randomUUID(), via: "session" };
  }
  const { scores } = scoreServiceOn(dataSource);
  const started = await scores.start(
    {
      viewer,
      clientIp: `198.51.100.${Math.floor(Math.random() * 250) + 1}`,
      requestId: randomUUID(),
      idempotencyKey: undefined,
      setHeaders: () => undefined,
      apiCallCharged: () => undefined,
      chargeApiCall: async () => undefined,
    },
    { kind: "score", url: "https://acme.example/" },
  );
  return { accountId, jobId: started.job.id };
}

const jobRow = async (jobId: string) =>
  (
    (await dataSource.query(
      `SELECT "status", "attempts", "result_id", "lease_token", "error_code" FROM "score_jobs" WHERE "id" = $1`,
      [jobId],
    )) as Array<Record<string, unknown>>
  )[0]!;
const count = async (sql: string, parameters: unknown[]): Promise<number> =>
  ((await dataSource.query(sql, parameters)) as Array<{ n: number }>)[0]!.n;

describe("ScoreJobRunner", () => {
  it("fences its claim: while one worker holds the job, a second claimer gets nothing", async () => {
    const { accountId, jobId } = await queuedJob();
    const holder = gatedCrawler();
    const first = scoreJobRunnerOn(dataSource, holder.crawler);
    const running = first.runner.process(jobId);
    await holder.running;

    // Another worker asked for this job, or for the next runnable one, does not get it.
    const second = gatedCrawler();
    await scoreJobRunnerOn(dataSource, second.crawler).runner.process(jobId);
    await scoreJobRunnerOn(dataSource, second.crawler).runner.processNext();
    expect(second.calls()).toBe(0);
    const now = new Date();
    expect(await first.jobs.claim(jobId, now, new Date(now.getTime() + 60_000), randomUUID())).toBeUndefined();
    expect(await first.jobs.runnableIds(now, 100)).not.toContain(jobId);
    const leased = await jobRow(jobId);
    expect(leased).toMatchObject({ status: "queued", attempts: 1 });
    expect(leased.lease_token).not.toBeNull();

    holder.open();
    await running;
    const done = await jobRow(jobId);
    expect(done).toMatchObject({ status: "completed", attempts: 1, lease_token: null });
    // Result, its dimensions and the outbox event were written together.
    expect(
      await count(`SELECT COUNT(*)::int AS "n" FROM "score_results" WHERE "id" = $1 AND "job_id" = $2`, [
        done.result_id,
        jobId,
      ]),
    ).toBe(1);
    expect(
      await count(`SELECT COUNT(*)::int AS "n" FROM "score_dimensions" WHERE "result_id" = $1`, [done.result_id]),
    ).toBeGreaterThan(0);
    expect(
      await count(
        `SELECT COUNT(*)::int AS "n" FROM "domain_events" WHERE "account_id" = $1 AND "type" = 'score.completed'`,
        [accountId],
      ),
    ).toBe(1);
  });

  it("a transition with a lease token that is no longer the job's writes nothing", async () => {
    const { jobId } = await queuedJob();
    const { jobs, transactions } = scoreJobRunnerOn(dataSource, immediate);
    const now = new Date();
    const held = await jobs.claim(jobId, now, new Date(now.getTime() + 60_000), randomUUID());
    expect(held).toBeDefined();
    const stale = { ...held!, leaseToken: randomUUID() };
    const failure = { code: "INTERNAL" as const, message: "stale" };
    expect(
      await transactions.run((tx) =>
        jobs.fail(tx, stale, { ...failure, action: null }, { jobId, status: "failed", error: failure }),
      ),
    ).toBe(false);
    expect(await jobRow(jobId)).toMatchObject({ status: "queued", lease_token: held!.leaseToken, error_code: null });
    expect(await transactions.run((tx) => jobs.release(tx, held!, { jobId, status: "queued" }))).toBe(true);
    expect(await jobRow(jobId)).toMatchObject({ status: "queued", attempts: 0, lease_token: null });
  });

  it("fails a job whose crawl fails and refunds its charge", async () => {
    const { accountId, jobId } = await queuedJob();
    await scoreJobRunnerOn(
      dataSource,
      failing(new AppError("CRAWL_FAILED", "The site did not answer.")),
    ).runner.process(jobId);
    expect(await jobRow(jobId)).toMatchObject({ status: "failed", error_code: "CRAWL_FAILED", lease_token: null });
    expect(
      await count(`SELECT COUNT(*)::int AS "n" FROM "credit_entries" WHERE "account_id" = $1 AND "kind" = 'refund'`, [
        accountId,
      ]),
    ).toBe(1);
  });

  it("holds an anonymous job's result for 30 days, with no outbox event", async () => {
    const { jobId } = await queuedJob("anonymous");
    await scoreJobRunnerOn(dataSource, immediate).runner.process(jobId);
    const { result_id: resultId } = await jobRow(jobId);
    const [held] = (await dataSource.query(
      `SELECT "account_id", "claim_token_hash", "claim_expires_at" > now() + interval '29 days' AS "long" FROM "score_results" WHERE "id" = $1`,
      [resultId],
    )) as Array<{ account_id: string | null; claim_token_hash: string | null; long: boolean }>;
    expect(held).toMatchObject({ account_id: null, long: true });
    expect(held!.claim_token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await count(`SELECT COUNT(*)::int AS "n" FROM "domain_events" WHERE "data"->>'jobId' = $1`, [jobId])).toBe(
      0,
    );
  });
});
