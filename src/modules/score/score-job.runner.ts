import type { Logger } from "pino";
import type { DataSource } from "typeorm";
import { AppError, toAppError } from "../../errors.js";
import type { DomainEvent, DomainEvents } from "../../events/domain-events.js";
import type { Crawler } from "../crawl/crawler.js";
import type { CreditLedger } from "../billing/ledger.service.js";
import { Product } from "../products/product.entity.js";
import { dimensions as frameworkDimensions } from "../scoring/framework/dimensions.js";
import type { ScoreResult, Scorer } from "../scoring/scoring.types.js";
import { ScoreJob } from "./score-job.entity.js";
import { ScoreDimensionRecord, ScoreResultRecord } from "./score-result.entity.js";
import type { ProgressBus, ScoreProgress } from "./score-progress.js";

/** A worker that died mid-job leaves it to be retried at most twice: three runs in all. */
export const MAX_ATTEMPTS = 3;
/** Held anonymous results are purged when not linked within this time. */
export const HELD_RESULT_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export interface RunnerOptions {
  /** How long a worker's claim on a job lasts without a heartbeat. */
  readonly leaseMs?: number;
  readonly clock?: () => Date;
}

const position = new Map(frameworkDimensions.map((dimension, index) => [dimension.id as string, index]));

/**
 * Runs one job: claims it with a lease (so two workers never run it at once, and a
 * dead worker's job becomes claimable again), crawls, scores, stores the result
 * with its dimensions in one transaction, then announces it. A job that fails, or
 * whose workers died MAX_ATTEMPTS times, is refunded. The charge was taken once,
 * when the job was created, so retries never charge again.
 */
export class ScoreJobRunner {
  private readonly leaseMs: number;
  private readonly clock: () => Date;

  constructor(
    private readonly dataSource: DataSource,
    private readonly crawlerFor: (kind: ScoreJob["kind"]) => Crawler,
    private readonly scorer: Scorer,
    private readonly ledger: CreditLedger,
    private readonly bus: ProgressBus,
    private readonly events: DomainEvents,
    private readonly logger: Pick<Logger, "error" | "warn" | "info">,
    options: RunnerOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.clock = options.clock ?? (() => new Date());
  }

  /** Processes a job id from any queue; returns quietly when the job is not (or no longer) claimable. */
  async process(jobId: string): Promise<void> {
    const job = await this.claim(jobId);
    if (!job) return;
    if (job.attempts > MAX_ATTEMPTS) {
      await this.fail(job, new AppError("INTERNAL", "Scoring stopped unexpectedly several times; the credits were refunded."));
      return;
    }
    const heartbeat = setInterval(() => void this.extendLease(job.id), Math.max(1_000, this.leaseMs / 3));
    heartbeat.unref();
    try {
      const crawl = await this.crawlerFor(job.kind).crawl(job.url, {
        mode: job.kind === "quick" ? "quick" : "full",
        onProgress: (progress) => this.report(job.id, { jobId: job.id, status: "crawling", page: progress.n, pages: progress.of, url: progress.url }),
      });
      const result = await this.scorer.score({
        crawl,
        ...(job.context ? { context: job.context } : {}),
        framework: job.kind === "product" ? "product" : "maturity",
        mode: job.kind === "quick" ? "quick" : "full",
        onDimension: (k, of, dimensionId) => this.report(job.id, { jobId: job.id, status: "scoring", dimension: k, dimensions: of, dimensionId }),
      });
      await this.complete(job, result);
    } catch (error) {
      await this.fail(job, error);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Jobs that are not finished and not held by a live worker (never started, or their worker died). */
  async runnableJobIds(limit = 100): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT "id" FROM "score_jobs"
        WHERE "status" IN ('queued', 'crawling', 'scoring') AND ("locked_until" IS NULL OR "locked_until" < $1)
        ORDER BY "created_at" LIMIT $2`,
      [this.clock(), limit],
    );
    return rows.map((row) => row.id);
  }

  private async claim(jobId: string): Promise<ScoreJob | undefined> {
    const now = this.clock();
    const [rows]: [Array<{ id: string }>, number] = await this.dataSource.query(
      `UPDATE "score_jobs" SET "attempts" = "attempts" + 1, "locked_until" = $2, "updated_at" = now()
        WHERE "id" = $1 AND "status" IN ('queued', 'crawling', 'scoring') AND ("locked_until" IS NULL OR "locked_until" < $3)
        RETURNING "id"`,
      [jobId, new Date(now.getTime() + this.leaseMs), now],
    );
    if (rows.length === 0) return undefined;
    return (await this.dataSource.getRepository(ScoreJob).findOneBy({ id: jobId })) ?? undefined;
  }

  private async extendLease(jobId: string): Promise<void> {
    await this.dataSource
      .query(`UPDATE "score_jobs" SET "locked_until" = $2 WHERE "id" = $1 AND "status" IN ('queued', 'crawling', 'scoring')`, [
        jobId,
        new Date(this.clock().getTime() + this.leaseMs),
      ])
      .catch((error: unknown) => this.logger.warn({ err: error, jobId }, "could not extend a job's lease"));
  }

  /** Progress goes out at once; the stored copy (for late subscribers) is best effort. */
  private report(jobId: string, progress: ScoreProgress): void {
    void this.bus.publish(progress).catch((error: unknown) => this.logger.warn({ err: error, jobId }, "could not publish progress"));
    void this.dataSource
      .query(`UPDATE "score_jobs" SET "status" = $2, "progress" = $3 WHERE "id" = $1 AND "status" IN ('queued', 'crawling', 'scoring')`, [
        jobId,
        progress.status,
        JSON.stringify(progress),
      ])
      .catch((error: unknown) => this.logger.warn({ err: error, jobId }, "could not store progress"));
  }

  private async complete(job: ScoreJob, result: ScoreResult): Promise<void> {
    const events: DomainEvent[] = [];
    const resultId = await this.dataSource.transaction(async (manager) => {
      const record = await manager.save(
        manager.create(ScoreResultRecord, {
          accountId: job.accountId,
          productId: job.productId,
          jobId: job.id,
          url: result.url,
          companyName: result.companyName,
          totalScore: result.totalScore,
          stageName: result.stageName,
          framework: result.framework,
          frameworkVersion: result.frameworkVersion,
          mode: result.mode,
          strengths: [...result.strengths],
          gaps: [...result.gaps],
          crossDimensionNotes: result.crossDimensionNotes,
          antiPatterns: [...result.antiPatternsDetected],
          crawledPages: [...result.crawledPages],
          crawlStats: result.crawlStats,
          scorer: result.scorer,
          lifecycleStageId: result.lifecycleStageId ?? null,
          claimTokenHash: job.claimTokenHash,
          claimExpiresAt: job.accountId === null ? new Date(this.clock().getTime() + HELD_RESULT_LIFETIME_MS) : null,
        }),
      );
      await manager.insert(
        ScoreDimensionRecord,
        result.dimensions.map((dimension) => ({
          resultId: record.id,
          dimensionId: dimension.dimensionId,
          position: position.get(dimension.dimensionId) ?? 0,
          dimensionName: dimension.dimensionName,
          pillar: dimension.pillar,
          score: dimension.score,
          stageName: dimension.stageName,
          evidence: dimension.evidence,
          evidenceItems: [...dimension.evidenceItems],
          confidence: dimension.confidence,
          reasoning: dimension.reasoning,
        })),
      );
      if (job.productId) await manager.update(Product, { id: job.productId }, { name: result.companyName });
      const progress: ScoreProgress = { jobId: job.id, status: "completed", resultId: record.id };
      await manager.update(ScoreJob, { id: job.id }, { status: "completed", resultId: record.id, progress, lockedUntil: null });
      if (job.accountId) {
        events.push(
          await this.events.record(manager, "score.completed", {
            accountId: job.accountId,
            resultId: record.id,
            jobId: job.id,
            url: result.url,
            totalScore: result.totalScore,
            stageName: result.stageName,
            framework: result.framework,
            productId: job.productId,
          }),
        );
      }
      return record.id;
    });
    await this.events.publish(events);
    await this.bus.publish({ jobId: job.id, status: "completed", resultId });
  }

  private async fail(job: ScoreJob, error: unknown): Promise<void> {
    const appError = toAppError(error);
    if (appError.code === "INTERNAL") this.logger.error({ err: error, jobId: job.id }, "scoring job failed unexpectedly");
    const failure = { code: appError.code, message: appError.message };
    await this.dataSource.transaction(async (manager) => {
      await manager.update(ScoreJob, { id: job.id }, {
        status: "failed",
        errorCode: failure.code,
        errorMessage: failure.message,
        progress: { jobId: job.id, status: "failed", error: failure },
        lockedUntil: null,
      });
      // A failed score costs nothing (the API call itself stays charged: it happened).
      if (job.accountId) await this.ledger.refund(job.accountId, `job:${job.id}`, { manager });
    });
    await this.bus.publish({ jobId: job.id, status: "failed", error: failure });
  }
}
