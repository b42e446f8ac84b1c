import type { DataSource } from "typeorm";
import type { Transaction } from "../../db/transaction.js";
import { ScoreJob } from "./score-job.entity.js";
import type { ScoreProgress } from "./score-progress.js";

/** A job as one claim holds it: every write of the run is conditional on `leaseToken`. */
export type ClaimedJob = ScoreJob & { readonly leaseToken: string };

/** Whose backlog a new job joins: an account's, or an anonymous requester's network. */
export type BacklogOwner = { readonly accountId: string } | { readonly network: string };

/** The columns a new job is inserted with (the rest take their defaults). */
export type NewJob = Pick<
  ScoreJob,
  | "id"
  | "fairRank"
  | "accountId"
  | "userId"
  | "apiKeyId"
  | "requesterIp"
  | "claimTokenHash"
  | "kind"
  | "url"
  | "context"
  | "productId"
  | "progress"
>;

/** How a failed job is recorded. */
export interface JobFailure {
  readonly code: string;
  readonly message: string;
  readonly action: string | null | undefined;
}

const ACTIVE = `('queued', 'crawling', 'scoring')`;

/**
 * The `score_jobs` table: creating a job in its owner's backlog, claiming it under a
 * fenced lease, the holder's conditional writes, and the reads of the sweep, the
 * progress bus and the metrics.
 */
export class ScoreJobRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(id: string): Promise<ScoreJob | null> {
    return this.dataSource.getRepository(ScoreJob).findOneBy({ id });
  }

  /** The owner's unfinished jobs: a new job's place in the owner's backlog. */
  async countBacklog(tx: Transaction, owner: BacklogOwner): Promise<number> {
    const [backlog] = (await tx.query(
      "accountId" in owner
        ? `SELECT COUNT(*)::int AS "n" FROM "score_jobs" WHERE "account_id" = $1 AND "status" IN ('queued', 'crawling', 'scoring')`
        : `SELECT COUNT(*)::int AS "n" FROM "score_jobs" WHERE "requester_ip" = $1 AND "account_id" IS NULL AND "status" IN ('queued', 'crawling', 'scoring')`,
      ["accountId" in owner ? owner.accountId : owner.network],
    )) as Array<{ n: number }>;
    return backlog?.n ?? 0;
  }

  /** Each account's unfinished jobs (one statement): the backlog places of a scheduler's claim. */
  async countBacklogs(tx: Transaction, accountIds: readonly string[]): Promise<Map<string, number>> {
    if (accountIds.length === 0) return new Map();
    const rows = (await tx.query(
      `SELECT "account_id", COUNT(*)::int AS "n" FROM "score_jobs"
        WHERE "account_id" = ANY($1::uuid[]) AND "status" IN ('queued', 'crawling', 'scoring')
        GROUP BY "account_id"`,
      [[...accountIds]],
    )) as Array<{ account_id: string; n: number }>;
    return new Map(rows.map((row) => [row.account_id, row.n]));
  }

  /**
   * Inserts queued jobs, unclaimed, in one statement (a batch's, a scheduler claim's):
   * column arrays through `unnest`, not the ORM's multi-row insert, which took about
   * 40 ms per 200 rows (2.0 of the 4.3 s a 10,000-run claim pass took in one process).
   */
  async insertQueuedMany(tx: Transaction, jobs: readonly NewJob[]): Promise<void> {
    if (jobs.length === 0) return;
    await tx.query(
      `INSERT INTO "score_jobs" ("id", "fair_rank", "account_id", "user_id", "api_key_id", "requester_ip",
                                 "claim_token_hash", "kind", "url", "context", "product_id", "progress", "status", "attempts")
       SELECT "j".*, 'queued', 0
         FROM unnest($1::uuid[], $2::integer[], $3::uuid[], $4::uuid[], $5::uuid[], $6::text[],
                     $7::text[], $8::text[], $9::text[], $10::text[], $11::uuid[], $12::jsonb[]) AS "j"`,
      [
        jobs.map((job) => job.id),
        jobs.map((job) => job.fairRank),
        jobs.map((job) => job.accountId),
        jobs.map((job) => job.userId),
        jobs.map((job) => job.apiKeyId),
        jobs.map((job) => job.requesterIp),
        jobs.map((job) => job.claimTokenHash),
        jobs.map((job) => job.kind),
        jobs.map((job) => job.url),
        jobs.map((job) => job.context),
        jobs.map((job) => job.productId),
        jobs.map((job) => (job.progress === null ? null : JSON.stringify(job.progress))),
      ],
    );
  }

  /** Inserts a queued job, unclaimed; answers it as stored. */
  async insertQueued(tx: Transaction, job: NewJob): Promise<ScoreJob> {
    await tx.insert(ScoreJob, {
      ...job,
      status: "queued",
      attempts: 0,
      lockedUntil: null,
      leaseToken: null,
      resultId: null,
      errorCode: null,
      errorMessage: null,
    });
    return tx.findOneByOrFail(ScoreJob, { id: job.id });
  }

  /** Jobs that are not finished and not held by a live worker (never started, or their worker died), oldest first. */
  async runnableIds(now: Date, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT "id" FROM "score_jobs"
        WHERE "status" IN ('queued', 'crawling', 'scoring') AND ("locked_until" IS NULL OR "locked_until" < $1)
        ORDER BY "created_at" LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Claims the fairest runnable job (the lowest place in its owner's backlog, then
   * the oldest) until `leaseUntil` under the fencing token `leaseToken`; SKIP LOCKED,
   * so concurrent claimers each take a different job.
   */
  async claimNext(now: Date, leaseUntil: Date, leaseToken: string): Promise<ClaimedJob | undefined> {
    const [rows]: [Array<{ id: string }>, number] = await this.dataSource.query(
      `UPDATE "score_jobs" SET "attempts" = "attempts" + 1, "locked_until" = $1, "lease_token" = $3, "updated_at" = now()
        WHERE "id" = (
          SELECT "id" FROM "score_jobs"
           WHERE "status" IN ${ACTIVE} AND ("locked_until" IS NULL OR "locked_until" < $2)
           ORDER BY "fair_rank", "created_at" LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING "id"`,
      [leaseUntil, now, leaseToken],
    );
    const id = rows[0]?.id;
    if (!id) return undefined;
    return this.held(id, leaseToken);
  }

  /** Claims the named job, only when it is unfinished and no live lease holds it. */
  async claim(jobId: string, now: Date, leaseUntil: Date, leaseToken: string): Promise<ClaimedJob | undefined> {
    const [rows]: [Array<{ id: string }>, number] = await this.dataSource.query(
      `UPDATE "score_jobs" SET "attempts" = "attempts" + 1, "locked_until" = $2, "lease_token" = $4, "updated_at" = now()
        WHERE "id" = $1 AND "status" IN ${ACTIVE} AND ("locked_until" IS NULL OR "locked_until" < $3)
        RETURNING "id"`,
      [jobId, leaseUntil, now, leaseToken],
    );
    if (rows.length === 0) return undefined;
    return this.held(jobId, leaseToken);
  }

  /** The heartbeat: moves the lease on, while the job is unfinished and the token still ours. */
  async extendLease(job: ClaimedJob, leaseUntil: Date): Promise<void> {
    await this.dataSource.query(
      `UPDATE "score_jobs" SET "locked_until" = $2 WHERE "id" = $1 AND "status" IN ${ACTIVE} AND "lease_token" = $3`,
      [job.id, leaseUntil, job.leaseToken],
    );
  }

  /** Stores the latest step (for late subscribers), while the job is unfinished and the token still ours. */
  async storeProgress(job: ClaimedJob, progress: ScoreProgress): Promise<void> {
    await this.dataSource.query(
      `UPDATE "score_jobs" SET "status" = $2, "progress" = $3 WHERE "id" = $1 AND "status" IN ${ACTIVE} AND "lease_token" = $4`,
      [job.id, progress.status, JSON.stringify(progress), job.leaseToken],
    );
  }

  /** Completes the held job (see `transition`). */
  complete(tx: Transaction, job: ClaimedJob, resultId: string, progress: ScoreProgress): Promise<boolean> {
    return this.transition(tx, job, { status: "completed", resultId, progress });
  }

  /** Fails the held job (see `transition`). */
  fail(tx: Transaction, job: ClaimedJob, failure: JobFailure, progress: ScoreProgress): Promise<boolean> {
    return this.transition(tx, job, {
      status: "failed",
      errorCode: failure.code,
      errorMessage: failure.message,
      errorAction: failure.action,
      progress,
    });
  }

  /** Hands the held job back queued, claimable at once, and its run not counted as an attempt (see `transition`). */
  release(tx: Transaction, job: ClaimedJob, progress: ScoreProgress): Promise<boolean> {
    return this.transition(tx, job, { status: "queued", progress, attempts: () => `GREATEST("attempts" - 1, 0)` });
  }

  /** The stored last step of those of these jobs that have ended: one primary-key read. */
  async storedEnds(jobIds: readonly string[]): Promise<ScoreProgress[]> {
    const rows: Array<{ progress: ScoreProgress | null }> = await this.dataSource.query(
      `SELECT "progress" FROM "score_jobs" WHERE "id" = ANY($1::uuid[]) AND "status" IN ('completed', 'failed')`,
      [jobIds],
    );
    return rows.flatMap((row) => (row.progress ? [row.progress] : []));
  }

  /** Unfinished jobs: waiting for a worker (queued) and held by a live lease (running). */
  async countUnfinished(): Promise<{ queued: number; running: number }> {
    // One index walk over unfinished jobs at each scrape.
    const rows = (await this.dataSource.query(
      `SELECT COUNT(*) FILTER (WHERE "locked_until" IS NULL OR "locked_until" < now())::int AS "queued",
              COUNT(*) FILTER (WHERE "locked_until" >= now())::int AS "running"
         FROM "score_jobs" WHERE "status" IN ('queued', 'crawling', 'scoring')`,
    )) as Array<{ queued: number; running: number }>;
    return { queued: rows[0]?.queued ?? 0, running: rows[0]?.running ?? 0 };
  }

  private async held(id: string, leaseToken: string): Promise<ClaimedJob | undefined> {
    const job = await this.dataSource.getRepository(ScoreJob).findOneBy({ id, leaseToken });
    return job ? (job as ClaimedJob) : undefined;
  }

  /**
   * Moves the job from this holder to `to` inside `tx`, only while it is still
   * active and the lease is still ours; false when it is not (finished, or taken
   * over after our lease lapsed): the caller then writes nothing else.
   */
  private async transition(tx: Transaction, job: ClaimedJob, to: Record<string, unknown>): Promise<boolean> {
    const result = await tx
      .createQueryBuilder()
      .update(ScoreJob)
      .set({ ...to, lockedUntil: null, leaseToken: null })
      .where(`"id" = :id AND "status" IN ${ACTIVE} AND "lease_token" = :token`, { id: job.id, token: job.leaseToken })
      .execute();
    return result.affected === 1;
  }
}
