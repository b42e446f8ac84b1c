import { closeWithin } from "../../bounded-close.js";
import type { Logger } from "pino";
import type { DatabaseConnection } from "../../db/database.js";
import type { Config } from "../../config.js";
import { Transactions } from "../../db/transaction.js";
import type { ServiceMetrics } from "../../metrics.js";
import type { DomainEvents } from "../../events/domain-events.js";
import type { RedisConnection } from "../../redis.js";
import type { Resolver } from "../crawl/address-guard.js";
import { createCrawler, createRenderer } from "../crawl/crawler.factory.js";
import type { CrawlerSettings } from "../crawl/crawler.js";
import type { RenderLimits, Renderer } from "../crawl/render/renderer.js";
import type { CreditLedger } from "../billing/ledger.service.js";
import { AnonymousCap } from "../billing/rate-limit/anonymous-cap.js";
import { RateLimiter } from "../billing/rate-limit/rate-limiter.js";
import { MemorySlidingWindowStore, RedisSlidingWindowStore } from "../billing/rate-limit/sliding-window.js";
import { ProductsService } from "../products/products.service.js";
import { ProductRepository } from "../products/product.repository.js";
import { AccountRepository } from "../accounts/account.repository.js";
import { createScorer } from "../scoring/scorer.factory.js";
import type { Scorer } from "../scoring/scoring.types.js";
import { BullJobQueue, startBullWorker } from "./bullmq-queue.js";
import { InProcessJobQueue, MemoryProgressBus } from "./in-process-queue.js";
import { startMaintenance } from "./maintenance.js";
import { OutboxRetentionRepository } from "../../events/outbox-retention.repository.js";
import { progressStream } from "./progress-stream.js";
import { RedisProgressBus } from "./redis-progress-bus.js";
import { StoredProgressBus } from "./stored-progress-bus.js";
import { IdempotencyKeyRepository } from "../idempotency/idempotency-key.repository.js";
import { IdempotentRequests } from "../idempotency/idempotent-requests.js";
import { ScoreJobRepository } from "./score-job.repository.js";
import { ScoreJobRunner } from "./score-job.runner.js";
import type { JobQueue, ProgressBus, ScoreProgressStreams } from "./score-progress.js";
import { ScoreResultRepository } from "./score-result.repository.js";
import { ScorePopulationRepository } from "./score-population.repository.js";
import { PercentilesService } from "./percentiles.service.js";
import { ScoreResultsService } from "./score-results.service.js";
import { ScoreService } from "./score.service.js";
import { batchProgressStream, type BatchProgressStreams } from "./batch/batch-progress.js";
import { ScoreBatchRepository } from "./batch/score-batch.repository.js";
import { ScoreBatchService } from "./batch/score-batch.service.js";

/** What tests (and only tests) may swap: the crawler's DNS and limits, the scorer, the runner's lease. */
export interface ScoringOverrides {
  readonly crawl?: Partial<Omit<CrawlerSettings, "guard" | "renderer">> & { resolver?: Resolver };
  /** The browser's limits (per-page time, budgets, memory ceilings). */
  readonly render?: Partial<RenderLimits>;
  readonly scorer?: Scorer;
  readonly leaseMs?: number;
  readonly sweepEveryMs?: number;
}

export interface ScoringRuntime {
  readonly scores: ScoreService;
  /** Lists of addresses scored together (docs/api.md §13). */
  readonly batches: ScoreBatchService;
  readonly results: ScoreResultsService;
  /** Results against the population of their framework version (docs/api.md §13). */
  readonly percentiles: PercentilesService;
  readonly products: ProductsService;
  readonly limiter: RateLimiter;
  readonly idempotency: IdempotentRequests;
  readonly runner: ScoreJobRunner;
  readonly bus: ProgressBus;
  readonly streams: ScoreProgressStreams & BatchProgressStreams;
  /** The process's browser for shell pages (launched only when a job here meets one). */
  readonly renderer: Renderer;
  /**
   * The first step of a shutdown, for the callers: crawls here are aborted and their
   * jobs released (given at most `graceMs` to settle), then every call waiting on a
   * job answers it as it stands. `close` does the rest.
   */
  interrupt(graceMs: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Scoring for one process: without REDIS_URL, jobs run in an in-process pool and
 * progress stays in memory; with it, jobs go through BullMQ and progress through
 * Redis pub/sub, so API processes and `npm run worker` processes share them.
 * `config.scoring.workers` jobs run here at once (0: this process runs none).
 */
/** Job outcomes and pages into the process's metrics. */
function jobObserver(metrics: ServiceMetrics) {
  return {
    finished: (kind: string, status: string, seconds: number) => {
      metrics.jobsFinished.inc({ kind, status });
      metrics.jobDuration.observe({ kind, status }, seconds);
    },
    crawled: (pages: number) => metrics.pagesCrawled.inc(pages),
  };
}

export function createScoringRuntime(deps: {
  config: Config;
  dataSource: DatabaseConnection;
  redis: RedisConnection | undefined;
  ledger: CreditLedger;
  events: DomainEvents;
  logger: Logger;
  overrides?: ScoringOverrides;
  metrics?: ServiceMetrics;
}): ScoringRuntime {
  const { config, dataSource, redis, ledger, events, logger, overrides = {} } = deps;
  // One browser per process, and only where jobs run: an API-only process (SCORE_WORKERS=0) never launches one.
  const renderer = createRenderer(config, logger, {
    ...(overrides.crawl?.resolver ? { resolver: overrides.crawl.resolver } : {}),
    ...(overrides.render ? { limits: overrides.render } : {}),
  });
  const crawler = createCrawler(config, { ...(overrides.crawl ?? {}), renderer });
  const scorer = overrides.scorer ?? createScorer(config);
  const pubsub: ProgressBus = config.redisUrl
    ? new RedisProgressBus({ url: config.redisUrl, keyPrefix: `${config.redisPrefix}:`, logger })
    : new MemoryProgressBus();
  // Followers also hear the stored job, so a message lost while Redis was away cannot leave them waiting.
  const jobs = new ScoreJobRepository(dataSource);
  const resultRows = new ScoreResultRepository(dataSource);
  const transactions = new Transactions(dataSource);
  const bus = new StoredProgressBus(pubsub, (jobIds) => jobs.storedEnds(jobIds), {
    recheckMs: config.progressRecheckMs,
    logger,
  });
  const leaseMs = overrides.leaseMs ?? 60_000;
  const accounts = new AccountRepository(dataSource);
  const productRows = new ProductRepository(dataSource);
  const population = new ScorePopulationRepository(dataSource);
  const runner = new ScoreJobRunner(
    jobs,
    resultRows,
    population,
    productRows,
    transactions,
    () => crawler,
    scorer,
    ledger,
    bus,
    events,
    logger,
    {
      leaseMs,
      ...(deps.metrics ? { observer: jobObserver(deps.metrics) } : {}),
    },
  );
  const workers = config.scoringWorkers;
  let queue: JobQueue;
  let worker: { close(): Promise<void> } | undefined;
  if (config.redisUrl) {
    queue = new BullJobQueue({ url: config.redisUrl, prefix: config.redisPrefix, logger });
    // BullMQ's lock matches the job lease, so a job BullMQ hands back after a worker died is claimable at once.
    if (workers > 0) {
      worker = startBullWorker(() => runner.processNext(), {
        url: config.redisUrl,
        prefix: config.redisPrefix,
        concurrency: workers,
        logger,
        lockDurationMs: leaseMs,
      });
    }
  } else {
    queue = new InProcessJobQueue(() => runner.processNext(), logger, Math.max(1, workers));
  }
  const timeoutMs = config.rateLimit.storeTimeoutMs;
  const limiter = new RateLimiter(
    redis
      ? new RedisSlidingWindowStore(redis.client, { keyPrefix: `${config.redisPrefix}:rl:` })
      : new MemorySlidingWindowStore(),
    { timeoutMs },
  );
  const anonymousCap = new AnonymousCap(
    redis ? { redis: redis.client, keyPrefix: `${config.redisPrefix}:rl:anon`, timeoutMs } : { timeoutMs },
  );
  const products = new ProductsService(productRows, accounts, resultRows, transactions);
  const results = new ScoreResultsService(resultRows, transactions);
  const idempotency = new IdempotentRequests(new IdempotencyKeyRepository(dataSource), logger);
  const scores = new ScoreService(
    jobs,
    idempotency,
    transactions,
    accounts,
    ledger,
    limiter,
    anonymousCap,
    products,
    queue,
    bus,
    logger,
    (url) => crawler.checkAddress(url),
  );
  const batches = new ScoreBatchService(
    new ScoreBatchRepository(dataSource),
    jobs,
    idempotency,
    transactions,
    accounts,
    ledger,
    limiter,
    scores,
    (url) => crawler.checkAddress(url),
  );
  const maintenance = startMaintenance(
    { outbox: new OutboxRetentionRepository(dataSource), results: resultRows, runner, queue, scores, logger },
    overrides.sweepEveryMs ? { sweepEveryMs: overrides.sweepEveryMs } : {},
  );
  const streams: ScoreProgressStreams & BatchProgressStreams = {
    async batchProgress(viewer, batchId) {
      const batch = await batches.batchFor(viewer, batchId);
      const jobIds = batch.items.flatMap((item) => (item.jobId ? [item.jobId] : []));
      return batchProgressStream(bus, jobIds, () => batches.read(batch.id));
    },
    async scoreProgress(viewer, clientIp, jobId) {
      const job = await scores.jobFor(viewer, clientIp, jobId);
      return progressStream(
        bus,
        job.id,
        async () => (await scores.job(job.id)).progress ?? { jobId: job.id, status: "queued" },
      );
    },
  };
  return {
    scores,
    batches,
    results,
    percentiles: new PercentilesService(population),
    products,
    /** The short-window limits (score here; chat uses the same store). */
    limiter,
    /** The idempotency store of every POST that creates something (scoring here; the other creations share it). */
    idempotency,
    runner,
    bus,
    streams,
    renderer,
    async interrupt(graceMs) {
      runner.stop();
      // The waiting callers answer after their jobs were released, so the job they get says `queued`.
      await closeWithin(runner.idle(), "in-flight jobs", logger, graceMs);
      scores.stopWaiting();
    },
    async close() {
      await maintenance.stop();
      // In-flight crawls are aborted and their jobs released unfinished (not counted as an attempt)…
      runner.stop();
      // Redis may be gone or silent at shutdown: each part gets a bounded time to close.
      await closeWithin(worker?.close() ?? Promise.resolve(), "job worker", logger);
      // …and queued again at once for the other workers (without Redis, this process's next start sweeps them up).
      if (config.redisUrl) {
        for (const jobId of runner.releasedJobIds()) {
          await queue
            .enqueue(jobId)
            .catch((error: unknown) =>
              logger.warn({ err: error, jobId }, "could not queue a released job; the sweep will"),
            );
        }
      }
      await closeWithin(queue.close(), "job queue", logger);
      await closeWithin(renderer.close(), "rendering browser", logger);
      await closeWithin(bus.close(), "progress bus", logger);
    },
  };
}
