import type { Logger } from "pino";
import { randomUUID } from "node:crypto";
import { storableDeep } from "../../db/pg-text.js";
import type { Transaction, Transactions } from "../../db/transaction.js";
import { AppError, toAppError } from "../../errors.js";
import type { DomainEvent, DomainEvents } from "../../events/domain-events.js";
import type { Crawler } from "../crawl/crawler.js";
import type { CreditLedger } from "../billing/ledger.service.js";
import type { ProductRepository } from "../products/product.repository.js";
import type { ScoreResult, Scorer } from "../scoring/scoring.types.js";
import type { ScoreJob } from "./score-job.entity.js";
import type { ClaimedJob, ScoreJobRepository } from "./score-job.repository.js";
import type { ProductPoint, ScoreResultRepository } from "./score-result.repository.js";
import type { ScorePopulationRepository } from "./score-population.repository.js";
import type { ProgressBus, ScoreProgress } from "./score-progress.js";

/** A worker that died mid-job leaves it to be retried at most twice: three runs in all. */
export const MAX_ATTEMPTS = 3;
/** A monitored product's total moving this many points (either way) is a `score.changed`, as a change of stage is. */
export const SCORE_CHANGE_POINTS = 5;
/** Held anonymous results are purged when not linked within this time. */
export const HELD_RESULT_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export interface RunnerOptions {
  /** How long a worker's claim on a job lasts without a heartbeat. */
  readonly leaseMs?: number;
  readonly clock?: () => Date;
  /** Told how each run ended and how many pages each crawl read (metrics). */
  readonly observer?: {
    finished(kind: ScoreJob["kind"], status: "completed" | "failed", seconds: number): void;
    crawled(pages: number): void;
  };
}

/**
 * Runs one job: claims it with a lease and a fresh fencing token (so two workers
 * never run it at once, and a dead worker's job becomes claimable again), crawls,
 * scores, stores the result with its dimensions in one transaction, then announces
 * it. A job that fails, or whose workers died MAX_ATTEMPTS times, is refunded. The
 * charge was taken once, when the job was created, so retries never charge again.
 *
 * Every terminal transition is conditional (`status` still active AND the lease
 * token still ours), so a finished job never becomes failed or refunded, and a
 * worker whose lease lapsed (a Postgres failover, a long pause) cannot overwrite
 * what the next holder did. Announcements go out after the commit and outside the
 * failure path: a Redis blip there loses a message, never the outcome.
 */
export class ScoreJobRunner {
  private readonly leaseMs: number;
  private readonly clock: () => Date;
  private readonly stopping = new AbortController();
  private readonly released = new Set<string>();
  /** Turns under way (a claim and its run), so a shutdown can wait for their jobs to be released. */
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly jobs: ScoreJobRepository,
    private readonly results: ScoreResultRepository,
    /** The population percentiles are read from, kept in the transaction that stores a result. */
    private readonly population: ScorePopulationRepository,
    private readonly products: ProductRepository,
    private readonly transactions: Transactions,
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
    this.observer = options.observer;
  }

  private readonly observer: RunnerOptions["observer"];

  /**
   * A deploy or shutdown: in-flight crawls are aborted, and each job this process
   * cannot finish is released at once (claimable, and the run not counted as an
   * attempt). `releasedJobIds` then names them, so the caller can queue them again.
   */
  stop(): void {
    this.stopping.abort();
  }

  releasedJobIds(): string[] {
    return [...this.released];
  }

  /**
   * A queue delivery is a turn, not a particular job: the worker claims the fairest
   * runnable job (the lowest place in its owner's backlog, then the oldest), so one
   * account's burst cannot hold back another account's first job by more than the
   * jobs already running. Every queued job has its own delivery, so every job gets a
   * turn; the sweep covers deliveries lost with a queue.
   */
  async processNext(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    await this.track(async () => {
      const job = await this.claimNext();
      if (job) await this.runClaimed(job);
    });
  }

  /** Processes one named job; returns quietly when it is not (or no longer) claimable. */
  async process(jobId: string): Promise<void> {
    if (this.stopping.signal.aborted) return;
    await this.track(async () => {
      const job = await this.claim(jobId);
      if (job) await this.runClaimed(job);
    });
  }

  /** Resolves once the turns under way have ended: after `stop()`, once their jobs are released (or finished). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private async track(turn: () => Promise<void>): Promise<void> {
    const running = turn();
    this.running.add(running);
    try {
      await running;
    } finally {
      this.running.delete(running);
    }
  }

  private async runClaimed(job: ClaimedJob): Promise<void> {
    if (job.attempts > MAX_ATTEMPTS) {
      await this.announce(
        await this.fail(
          job,
          new AppError("INTERNAL", "Scoring stopped unexpectedly several times; the credits were refunded."),
        ),
      );
      return;
    }
    const heartbeat = setInterval(() => void this.extendLease(job), Math.max(1_000, this.leaseMs / 3));
    heartbeat.unref();
    const started = performance.now();
    let ending: ScoreProgress | undefined;
    try {
      ending = await this.run(job);
    } finally {
      clearInterval(heartbeat);
    }
    if (ending?.status === "completed" || ending?.status === "failed")
      this.observer?.finished(job.kind, ending.status, (performance.now() - started) / 1000);
    await this.announce(ending);
  }

  /** The run and its terminal transition; answers what to announce (nothing when another holder owns the job now). */
  private async run(job: ClaimedJob): Promise<ScoreProgress | undefined> {
    let result: ScoreResult;
    try {
      const crawl = await this.crawlerFor(job.kind).crawl(job.url, {
        mode: job.kind === "quick" ? "quick" : "full",
        signal: this.stopping.signal,
        onProgress: (progress) =>
          this.report(job, {
            jobId: job.id,
            status: "crawling",
            page: progress.n,
            pages: progress.of,
            url: progress.url,
          }),
      });
      this.observer?.crawled(crawl.pages.length);
      if (this.stopping.signal.aborted) return await this.release(job);
      result = await this.scorer.score({
        crawl,
        ...(job.context ? { context: job.context } : {}),
        framework: job.kind === "product" ? "product" : "maturity",
        mode: job.kind === "quick" ? "quick" : "full",
        onDimension: (k, of, dimensionId) =>
          this.report(job, { jobId: job.id, status: "scoring", dimension: k, dimensions: of, dimensionId }),
      });
      if (this.stopping.signal.aborted) return await this.release(job);
    } catch (error) {
      if (this.stopping.signal.aborted) return await this.release(job);
      return await this.fail(job, error);
    }
    try {
      // Scorers cut quotes to length (which can split a surrogate pair) and a model may answer anything.
      return await this.complete(job, storableDeep(result));
    } catch (error) {
      // The commit may or may not have happened (a connection lost at COMMIT): fail()
      // is conditional, so a job that did complete stays completed and is not refunded.
      return await this.fail(job, error);
    }
  }

  /** Jobs that are not finished and not held by a live worker (never started, or their worker died). */
  async runnableJobIds(limit = 100): Promise<string[]> {
    return this.jobs.runnableIds(this.clock(), limit);
  }

  private async claimNext(): Promise<ClaimedJob | undefined> {
    const now = this.clock();
    return this.jobs.claimNext(now, new Date(now.getTime() + this.leaseMs), randomUUID());
  }

  private async claim(jobId: string): Promise<ClaimedJob | undefined> {
    const now = this.clock();
    return this.jobs.claim(jobId, now, new Date(now.getTime() + this.leaseMs), randomUUID());
  }

  private async extendLease(job: ClaimedJob): Promise<void> {
    await this.jobs
      .extendLease(job, new Date(this.clock().getTime() + this.leaseMs))
      .catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, "could not extend a job's lease"));
  }

  /** Progress goes out at once; the stored copy (for late subscribers) is best effort. */
  private report(job: ClaimedJob, progress: ScoreProgress): void {
    void this.bus
      .publish(progress)
      .catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, "could not publish progress"));
    void this.jobs
      .storeProgress(job, progress)
      .catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, "could not store progress"));
  }

  /**
   * A terminal transition's outcome: false when the job is no longer this holder's
   * (finished, or taken over after our lease lapsed): the caller then writes nothing else.
   */
  private stillOurs(job: ClaimedJob, transitioned: boolean): boolean {
    if (!transitioned)
      this.logger.warn(
        { jobId: job.id },
        "this worker's lease on the job was lost; its outcome is left to the current holder",
      );
    return transitioned;
  }

  /** Hands the job back unfinished (shutdown): claimable at once, and this run does not count as an attempt. */
  private async release(job: ClaimedJob): Promise<undefined> {
    const progress: ScoreProgress = { jobId: job.id, status: "queued" };
    const released = await this.transactions
      .run(async (tx) => this.stillOurs(job, await this.jobs.release(tx, job, progress)))
      .catch((error: unknown) => {
        this.logger.warn({ err: error, jobId: job.id }, "could not release a job at shutdown; its lease will lapse");
        return false;
      });
    if (released) {
      this.released.add(job.id);
      this.logger.info({ jobId: job.id }, "released an unfinished job at shutdown");
    }
    return undefined;
  }

  /** Publishes a terminal step after its commit; a lost message is recovered from the stored job. */
  private async announce(progress: ScoreProgress | undefined): Promise<void> {
    if (!progress) return;
    await this.bus
      .publish(progress)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, jobId: progress.jobId }, "could not publish the job's end"),
      );
  }

  /** Stores the result and completes the job in one transaction; answers the step to announce. */
  private async complete(job: ClaimedJob, result: ScoreResult): Promise<ScoreProgress | undefined> {
    const events: DomainEvent[] = [];
    const resultId = randomUUID();
    const progress: ScoreProgress = { jobId: job.id, status: "completed", resultId };
    const completed = await this.transactions.run(async (tx) => {
      // First: it locks the job row, so no other holder's transition can interleave.
      if (!this.stillOurs(job, await this.jobs.complete(tx, job, resultId, progress))) return false;
      const claimExpiresAt = job.accountId === null ? new Date(this.clock().getTime() + HELD_RESULT_LIFETIME_MS) : null;
      // Read before the insert: the product's previous result, when it is monitored.
      const previous = await this.monitoredBaseline(tx, job);
      await this.results.insert(tx, { id: resultId, job, result, claimExpiresAt });
      if (job.productId) await this.products.rename(tx, job.productId, result.companyName);
      if (job.accountId) {
        events.push(
          await this.events.record(tx, "score.completed", {
            accountId: job.accountId,
            resultId,
            jobId: job.id,
            url: result.url,
            totalScore: result.totalScore,
            stageName: result.stageName,
            framework: result.framework,
            frameworkVersion: result.frameworkVersion,
            productId: job.productId,
          }),
        );
        const changed = previous && job.productId ? scoreChange(previous, resultId, result) : undefined;
        if (changed && job.productId) {
          events.push(
            await this.events.record(tx, "score.changed", {
              accountId: job.accountId,
              productId: job.productId,
              url: result.url,
              ...changed,
              frameworkVersion: result.frameworkVersion,
            }),
          );
        }
      }
      // Last: it locks the version's hot histogram rows, held from here to the commit only.
      await this.population.enter(tx, resultId);
      return true;
    });
    if (!completed) return undefined;
    // Committed: from here on nothing may fail the job. Recorded events are delivered later anyway.
    await this.events
      .publish(events)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, jobId: job.id }, "could not publish the job's events now"),
      );
    return progress;
  }

  /** The previous result of the job's product when the product is monitored (what `score.changed` compares with). */
  private async monitoredBaseline(tx: Transaction, job: ClaimedJob): Promise<ProductPoint | undefined> {
    if (!job.productId || !job.accountId) return undefined;
    const product = await this.products.findById(tx, job.productId);
    if (!product?.monitorInterval) return undefined;
    return this.results.latestOfProduct(tx, job.productId);
  }

  /** Fails the job and refunds it, only while the job is still ours and unfinished. */
  private async fail(job: ClaimedJob, error: unknown): Promise<ScoreProgress | undefined> {
    const appError = toAppError(error);
    if (appError.code === "INTERNAL")
      this.logger.error({ err: error, jobId: job.id }, "scoring job failed unexpectedly");
    const failure = { code: appError.code, message: appError.message, action: appError.action };
    const progress: ScoreProgress = { jobId: job.id, status: "failed", error: failure };
    try {
      const failed = await this.transactions.run(async (tx) => {
        if (!this.stillOurs(job, await this.jobs.fail(tx, job, failure, progress))) return false;
        // A failed score costs nothing (the API call itself stays charged: it happened).
        if (job.accountId) await this.ledger.refund(job.accountId, `job:${job.id}`, { manager: tx });
        return true;
      });
      return failed ? progress : undefined;
    } catch (cause) {
      // Postgres is away: the job keeps its lease until it lapses, then runs again (or fails for good past MAX_ATTEMPTS).
      this.logger.warn(
        { err: cause, jobId: job.id },
        "could not record a job's failure; it will be retried when its lease lapses",
      );
      return undefined;
    }
  }
}

/** The `score.changed` figures when the new result moved enough from `previous` (docs/api.md §13), else undefined. */
export function scoreChange(
  previous: ProductPoint,
  resultId: string,
  result: Pick<ScoreResult, "totalScore" | "stageName">,
):
  | {
      previousResultId: string;
      resultId: string;
      previousTotal: number;
      total: number;
      totalDelta: number;
      previousStage: string;
      stage: string;
    }
  | undefined {
  const totalDelta = result.totalScore - previous.total;
  if (Math.abs(totalDelta) < SCORE_CHANGE_POINTS && result.stageName === previous.stage) return undefined;
  return {
    previousResultId: previous.resultId,
    resultId,
    previousTotal: previous.total,
    total: result.totalScore,
    totalDelta,
    previousStage: previous.stage,
    stage: result.stageName,
  };
}
