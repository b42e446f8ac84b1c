import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creditLedgerOn } from "../../support/ledger.js";
import type { Crawler } from "../../../src/modules/crawl/crawler.js";
import { apiClient, signIn, type Caller } from "../../support/http.js";
import { scoreJobRunnerOn } from "../../support/score-services.js";
import { startScoringApp, type ScoringTestApp } from "../../support/scoring-app.js";

/**
 * Jobs whose worker died: left `crawling`/`scoring` with a lapsed lease. The
 * maintenance sweep (every 200 ms here) hands them to a worker again; a job that
 * already ran MAX_ATTEMPTS (3) times fails with INTERNAL and is refunded. The job
 * was charged once, when it was created (as ScoreService.start does: one ledger
 * spend referencing `job:<id>`); a retry never charges again.
 */

let service: ScoringTestApp;
beforeAll(async () => {
  service = await startScoringApp({ leaseMs: 300, sweepEveryMs: 200 });
});
afterAll(() => service?.close());

const dataSource = () => service.app.database.dataSource;

async function proMember(email: string): Promise<Caller> {
  const caller = await signIn(service, email);
  await dataSource().query(`UPDATE "accounts" SET "plan" = 'pro' WHERE "id" = $1`, [caller.accountId]);
  return caller;
}

interface Abandoned {
  readonly status: "crawling" | "scoring";
  readonly attempts: number;
  /** When the dead worker's lease ends (past: it is over). */
  readonly lockedUntil: Date;
}

/**
 * A job as a worker that died mid-run leaves it: charged at creation (the spend and
 * the row in one transaction, like ScoreService.start), then claimed `attempts`
 * times, its last lease running out at `lockedUntil`.
 */
async function abandonedJob(owner: Caller, url: string, state: Abandoned): Promise<string> {
  const jobId = randomUUID();
  const progress =
    state.status === "crawling"
      ? { jobId, status: "crawling", page: 2, pages: 9, url }
      : { jobId, status: "scoring", dimension: 4, dimensions: 27, dimensionId: "customer_proof" };
  await dataSource().transaction(async (manager) => {
    await creditLedgerOn(dataSource()).spend(owner.accountId, "score", 100, `job:${jobId}`, { manager });
    await manager.query(
      `INSERT INTO "score_jobs" ("id", "account_id", "user_id", "kind", "url", "status", "progress", "attempts", "locked_until", "created_at", "updated_at")
       VALUES ($1, $2, $3, 'score', $4, $5, $6, $7, $8, now() - interval '1 minute', now() - interval '10 seconds')`,
      [
        jobId,
        owner.accountId,
        owner.userId,
        url,
        state.status,
        JSON.stringify(progress),
        state.attempts,
        state.lockedUntil,
      ],
    );
  });
  return jobId;
}

interface JobRow {
  status: string;
  attempts: number;
  result_id: string | null;
  error_code: string | null;
  locked_until: Date | null;
}

const jobRow = async (jobId: string): Promise<JobRow> =>
  (
    (await dataSource().query(
      `SELECT "status", "attempts", "result_id", "error_code", "locked_until" FROM "score_jobs" WHERE "id" = $1`,
      [jobId],
    )) as JobRow[]
  )[0]!;

async function waitForEnd(jobId: string, boundMs = 20_000): Promise<JobRow> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const row = await jobRow(jobId);
    if (row.status === "completed" || row.status === "failed") return row;
    if (Date.now() > deadline) throw new Error(`job ${jobId} is still ${row.status} (attempts ${row.attempts})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface EntryRow {
  id: string;
  kind: string;
  bucket: string;
  amount_tenths: number;
  action: string | null;
  reference: string | null;
}

/** The job's spend entries and the refunds that reference them. */
async function ledgerOf(accountId: string, jobId: string): Promise<{ spends: EntryRow[]; refunds: EntryRow[] }> {
  const spends: EntryRow[] = await dataSource().query(
    `SELECT "id", "kind", "bucket", "amount_tenths", "action", "reference" FROM "credit_entries" WHERE "account_id" = $1 AND "reference" = $2 ORDER BY "created_at"`,
    [accountId, `job:${jobId}`],
  );
  const refunds: EntryRow[] = await dataSource().query(
    `SELECT "id", "kind", "bucket", "amount_tenths", "action", "reference" FROM "credit_entries" WHERE "kind" = 'refund' AND "reference" = ANY($1::text[])`,
    [spends.map((spend) => spend.id)],
  );
  return { spends, refunds };
}

const usageOf = async (caller: Caller) =>
  (await (await apiClient(service)("/api/usage", { cookie: caller.cookie })).json()) as {
    scores: { used: number };
    credits: { used: number };
  };

describe("a job whose worker died", () => {
  it.each([
    { died: 1, status: "crawling" as const },
    { died: 2, status: "scoring" as const },
  ])(
    "is picked up by the sweep and completed after dying $died time(s), charged once and not refunded",
    async ({ died, status }) => {
      const owner = await proMember(`recovery-${died}@example.com`);
      const jobId = await abandonedJob(owner, service.siteUrl("leader.test"), {
        status,
        attempts: died,
        lockedUntil: new Date(Date.now() - 5_000),
      });

      const row = await waitForEnd(jobId);
      expect(row).toMatchObject({ status: "completed", attempts: died + 1, error_code: null, locked_until: null });
      expect(row.result_id).toMatch(/^[0-9a-f-]{36}$/);

      const results: Array<{ account_id: string; job_id: string; dimensions: string }> = await dataSource().query(
        `SELECT r."account_id", r."job_id", (SELECT count(*) FROM "score_dimensions" d WHERE d."result_id" = r."id") AS "dimensions"
         FROM "score_results" r WHERE r."job_id" = $1`,
        [jobId],
      );
      expect(results).toEqual([{ account_id: owner.accountId, job_id: jobId, dimensions: "27" }]);
      // The owner sees it in their history.
      const history = await (await apiClient(service)("/api/scores", { cookie: owner.cookie })).json();
      expect(history.results.map((result: { id: string }) => result.id)).toEqual([row.result_id]);

      const { spends, refunds } = await ledgerOf(owner.accountId, jobId);
      expect(spends).toEqual([
        expect.objectContaining({ kind: "spend", bucket: "plan", amount_tenths: -100, action: "score" }),
      ]);
      expect(refunds).toEqual([]);
      expect(await usageOf(owner)).toMatchObject({ scores: { used: 1 }, credits: { used: 10 } });
    },
  );

  it("is left alone while its worker's lease is live, and taken once the lease lapses", async () => {
    const owner = await proMember("recovery-leased@example.com");
    const before = service.sites.requestsTo("scaleup.test").length;
    const jobId = await abandonedJob(owner, service.siteUrl("scaleup.test"), {
      status: "crawling",
      attempts: 1,
      lockedUntil: new Date(Date.now() + 3_000),
    });

    // Several sweeps pass while the lease holds: nobody claims it or crawls for it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await jobRow(jobId)).toMatchObject({ status: "crawling", attempts: 1 });
    expect(service.sites.requestsTo("scaleup.test").length).toBe(before);

    expect(await waitForEnd(jobId)).toMatchObject({ status: "completed", attempts: 2 });
    expect((await ledgerOf(owner.accountId, jobId)).spends).toHaveLength(1);
  });

  it("fails with INTERNAL on its next claim after dying 3 times, without crawling, and is refunded", async () => {
    const owner = await proMember("recovery-dead@example.com");
    const before = service.sites.requestsTo("growing.test").length;
    const jobId = await abandonedJob(owner, service.siteUrl("growing.test"), {
      status: "scoring",
      attempts: 3,
      lockedUntil: new Date(Date.now() - 5_000),
    });
    // Charged when it was made. (Not read from usage here: its lease has lapsed, so the sweep may already
    // have failed and refunded it by now; the ledger keeps the spend either way.)
    expect((await ledgerOf(owner.accountId, jobId)).spends).toHaveLength(1);

    const row = await waitForEnd(jobId);
    expect(row).toMatchObject({
      status: "failed",
      attempts: 4,
      error_code: "INTERNAL",
      result_id: null,
      locked_until: null,
    });
    // A fourth run never started.
    expect(service.sites.requestsTo("growing.test").length).toBe(before);
    expect(await dataSource().query(`SELECT 1 FROM "score_results" WHERE "job_id" = $1`, [jobId])).toEqual([]);

    const { spends, refunds } = await ledgerOf(owner.accountId, jobId);
    expect(spends).toHaveLength(1);
    expect(refunds).toEqual([
      expect.objectContaining({
        kind: "refund",
        bucket: "plan",
        amount_tenths: 100,
        action: "score",
        reference: spends[0]!.id,
      }),
    ]);
    expect(await usageOf(owner)).toMatchObject({ scores: { used: 0 }, credits: { used: 0 } });

    // What the owner sees of the job.
    const answer = await (
      await apiClient(service)("/graphql", {
        method: "POST",
        cookie: owner.cookie,
        body: {
          query: `query Job($id: ID!) { scoreJob(id: $id) { status error { code } progress { status error { code } } } }`,
          variables: { id: jobId },
        },
      })
    ).json();
    expect(answer).toEqual({
      data: {
        scoreJob: {
          status: "failed",
          error: { code: "INTERNAL" },
          progress: { status: "failed", error: { code: "INTERNAL" } },
        },
      },
    });

    // Later sweeps leave it alone: still one refund, attempts unchanged.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await jobRow(jobId)).toMatchObject({ status: "failed", attempts: 4 });
    expect((await ledgerOf(owner.accountId, jobId)).refunds).toHaveLength(1);
  });
});

describe("claiming a job", () => {
  /** A second worker on the same database whose crawler only counts its calls. */
  function secondWorker() {
    const crawled: string[] = [];
    const crawler = {
      crawl: async (url: unknown) => {
        crawled.push(String(url));
        throw new Error("this worker must not have run the job");
      },
    } as unknown as Crawler;
    const { runner } = scoreJobRunnerOn(dataSource(), crawler, { leaseMs: 60_000 });
    return { runner, crawled };
  }

  it("does not run a job another worker holds a live lease on", async () => {
    const owner = await proMember("claim-leased@example.com");
    const jobId = await abandonedJob(owner, service.siteUrl("bare.test"), {
      status: "crawling",
      attempts: 1,
      lockedUntil: new Date(Date.now() + 60_000),
    });
    const { runner, crawled } = secondWorker();

    await runner.process(jobId);
    expect(crawled).toEqual([]);
    expect(await jobRow(jobId)).toMatchObject({ status: "crawling", attempts: 1, error_code: null });
    const { refunds } = await ledgerOf(owner.accountId, jobId);
    expect(refunds).toEqual([]);
    // Leave nothing running behind: the job ends as its (dead) worker's would.
    await dataSource().query(`UPDATE "score_jobs" SET "status" = 'failed', "locked_until" = NULL WHERE "id" = $1`, [
      jobId,
    ]);
  });

  it("does not run a completed job delivered again (a duplicate queue delivery)", async () => {
    const owner = await proMember("claim-done@example.com");
    const jobId = await abandonedJob(owner, service.siteUrl("leader.test"), {
      status: "crawling",
      attempts: 1,
      lockedUntil: new Date(Date.now() - 5_000),
    });
    const done = await waitForEnd(jobId);
    expect(done.status).toBe("completed");
    const { runner, crawled } = secondWorker();

    await runner.process(jobId);
    expect(crawled).toEqual([]);
    expect(await jobRow(jobId)).toMatchObject({
      status: "completed",
      attempts: 2,
      result_id: done.result_id,
      error_code: null,
    });
    // Still charged once, never refunded: the customer got their result.
    expect((await ledgerOf(owner.accountId, jobId)).refunds).toEqual([]);
    expect(await usageOf(owner)).toMatchObject({ scores: { used: 1 }, credits: { used: 10 } });
  });
});
