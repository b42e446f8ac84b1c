import { Queue, Worker, type ConnectionOptions, type Job } from "bullmq";
import type { Logger } from "pino";
import { AppError } from "../../errors.js";
import type { JobProcessor, JobQueue } from "./score-progress.js";

/** The BullMQ queue carrying score job ids (keys `<prefix>:pms-score:*`). */
export const SCORE_QUEUE_NAME = "pms-score";
const JOB_NAME = "score";

interface ScoreJobData {
  readonly jobId: string;
}

export interface BullJobQueueOptions {
  readonly url: string;
  /** Namespaces every BullMQ key; default `pms`. */
  readonly prefix?: string;
  /** How long `enqueue` waits for Redis before failing; default 5 s. */
  readonly enqueueTimeoutMs?: number;
  readonly logger?: Pick<Logger, "warn">;
}

export interface BullWorkerOptions {
  readonly url: string;
  /** Jobs this process runs at once. */
  readonly concurrency: number;
  /** Must match the queue's prefix; default `pms`. */
  readonly prefix?: string;
  readonly logger: Pick<Logger, "info" | "warn" | "error">;
  /** How long a worker's lock on a BullMQ job lasts without renewal; default 30 s (tests shorten it). */
  readonly lockDurationMs?: number;
  /** How often this worker looks for jobs whose worker died; default 30 s (tests shorten it). */
  readonly stalledIntervalMs?: number;
}

export interface BullWorkerHandle {
  /** Resolves once the worker is connected and taking jobs. */
  waitUntilReady(): Promise<void>;
  /**
   * Stops taking jobs and waits for those running. `force` does not wait: their
   * locks lapse and another worker's stalled-job check runs them again.
   */
  close(options?: { force?: boolean }): Promise<void>;
}

/** Reconnects in the background, at most every 2 s. */
const retryStrategy = (attempt: number): number => Math.min(attempt * 200, 2_000);

/**
 * The Redis-backed job queue (REDIS_URL): API processes enqueue job ids, workers in
 * any process (`npm run worker`) take them. The job id is the BullMQ job id, so an
 * id already waiting or running is not added twice.
 *
 * Retries: BullMQ runs a job once (`attempts: 1`); failures are the runner's to
 * handle (it refunds, or leaves the job to its lease). A worker that dies mid-job
 * stops renewing its lock; another worker's stalled-job check then puts the job
 * back in the queue, at most twice (`maxStalledCount: 2`), after which BullMQ moves
 * it to failed. Postgres stays the truth: a job whose runner lease is still live
 * when it comes back is skipped by the runner, and the maintenance sweep re-enqueues
 * every runnable job later anyway — `enqueue` revives an id BullMQ kept as failed.
 */
export class BullJobQueue implements JobQueue {
  private readonly queue: Queue<ScoreJobData, void, string>;
  private readonly enqueueTimeoutMs: number;
  private closed = false;

  constructor(options: BullJobQueueOptions) {
    this.enqueueTimeoutMs = options.enqueueTimeoutMs ?? 5_000;
    const connection: ConnectionOptions = {
      url: options.url,
      // Producers fail fast while Redis is away instead of piling commands up.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      retryStrategy,
      connectionName: "pms-queue",
    };
    this.queue = new Queue<ScoreJobData, void, string>(SCORE_QUEUE_NAME, {
      connection,
      prefix: options.prefix ?? "pms",
      defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: 1000 },
    });
    let reported = false;
    this.queue.on("error", (error: Error) => {
      if (!reported)
        options.logger?.warn({ err: error }, "Redis unavailable for the job queue; retrying in the background");
      reported = true;
    });
  }

  async enqueue(jobId: string): Promise<void> {
    if (this.closed) return;
    await withTimeout(this.add(jobId), this.enqueueTimeoutMs, "The job queue is temporarily unavailable.");
  }

  private async add(jobId: string): Promise<void> {
    const job = await this.queue.add(JOB_NAME, { jobId }, { jobId });
    // An id BullMQ kept as failed (its workers died too often) would swallow the add: put it back.
    if ((await job.getState()) === "failed") {
      await job.retry("failed").catch(() => undefined); // moved meanwhile: nothing to revive
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.close();
  }
}

/** Runs queued job ids in this process, `concurrency` at a time, until closed. */
export function startBullWorker(processor: JobProcessor, options: BullWorkerOptions): BullWorkerHandle {
  const { logger } = options;
  const connection: ConnectionOptions = {
    url: options.url,
    // Required by BullMQ for its blocking commands; the worker waits out outages.
    maxRetriesPerRequest: null,
    retryStrategy,
    connectionName: "pms-worker",
  };
  const worker = new Worker<ScoreJobData, void, string>(
    SCORE_QUEUE_NAME,
    async (job: Job<ScoreJobData, void, string>) => {
      const jobId = job.data?.jobId;
      if (typeof jobId !== "string") throw new Error(`BullMQ job ${job.id ?? "?"} carries no job id`);
      await processor(jobId, job.attemptsMade);
    },
    {
      connection,
      prefix: options.prefix ?? "pms",
      concurrency: options.concurrency,
      maxStalledCount: 2,
      ...(options.lockDurationMs !== undefined ? { lockDuration: options.lockDurationMs } : {}),
      ...(options.stalledIntervalMs !== undefined ? { stalledInterval: options.stalledIntervalMs } : {}),
    },
  );
  let reported = false;
  worker.on("error", (error: Error) => {
    if (!reported) logger.warn({ err: error }, "Redis unavailable for the job worker; retrying in the background");
    reported = true;
  });
  worker.on("ready", () => {
    if (reported) logger.info("Redis available again for the job worker");
    reported = false;
  });
  worker.on("failed", (job, error) => logger.error({ err: error, jobId: job?.data.jobId }, "job processor failed"));
  worker.on("stalled", (id) => logger.warn({ jobId: id }, "a worker died mid-job; the job is queued again"));

  return {
    waitUntilReady: async () => {
      await worker.waitUntilReady();
    },
    close: (closeOptions = {}) => worker.close(closeOptions.force ?? false),
  };
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new AppError("SERVICE_UNAVAILABLE", message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
