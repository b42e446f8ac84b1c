import { pino } from "pino";
import type { DataSource } from "typeorm";
import { Transactions } from "../../src/db/transaction.js";
import { DomainEvents } from "../../src/events/domain-events.js";
import { creditLedgerOn } from "./ledger.js";
import { AnonymousCap } from "../../src/modules/billing/rate-limit/anonymous-cap.js";
import { RateLimiter } from "../../src/modules/billing/rate-limit/rate-limiter.js";
import { MemorySlidingWindowStore } from "../../src/modules/billing/rate-limit/sliding-window.js";
import type { Crawler } from "../../src/modules/crawl/crawler.js";
import { AccountRepository } from "../../src/modules/accounts/account.repository.js";
import { ProductRepository } from "../../src/modules/products/product.repository.js";
import { ProductsService } from "../../src/modules/products/products.service.js";
import { IdempotencyKeyRepository } from "../../src/modules/idempotency/idempotency-key.repository.js";
import { IdempotentRequests } from "../../src/modules/idempotency/idempotent-requests.js";
import { MemoryProgressBus } from "../../src/modules/score/in-process-queue.js";
import { ScoreJobRepository } from "../../src/modules/score/score-job.repository.js";
import { ScoreJobRunner, type RunnerOptions } from "../../src/modules/score/score-job.runner.js";
import type { JobQueue, ProgressBus } from "../../src/modules/score/score-progress.js";
import { ScoreResultRepository } from "../../src/modules/score/score-result.repository.js";
import { ScorePopulationRepository } from "../../src/modules/score/score-population.repository.js";
import { ScoreService } from "../../src/modules/score/score.service.js";
import { HeuristicScorer } from "../../src/modules/scoring/heuristic-scorer.js";

export const silentLogger = pino({ level: "silent" });

/** The score module's repositories, the ledger and a transaction opener over one database. */
export function scoreStoresOn(dataSource: DataSource) {
  const productRows = new ProductRepository(dataSource);
  const accounts = new AccountRepository(dataSource);
  const results = new ScoreResultRepository(dataSource);
  const transactions = new Transactions(dataSource);
  return {
    jobs: new ScoreJobRepository(dataSource),
    results,
    idempotencyKeys: new IdempotencyKeyRepository(dataSource),
    transactions,
    ledger: creditLedgerOn(dataSource),
    productRows,
    accounts,
    products: new ProductsService(productRows, accounts, results, transactions),
  };
}

/** A queue that only remembers what it was given (no worker runs here). */
export class RecordingQueue implements JobQueue {
  readonly enqueued: string[] = [];
  async enqueue(jobId: string): Promise<void> {
    this.enqueued.push(jobId);
  }
  async close(): Promise<void> {}
}

/** ScoreService over its real repositories, in-memory limits and bus, and a queue that runs nothing. */
export function scoreServiceOn(dataSource: DataSource, options: { clock?: () => Date } = {}) {
  const stores = scoreStoresOn(dataSource);
  const queue = new RecordingQueue();
  const bus = new MemoryProgressBus();
  const scores = new ScoreService(
    stores.jobs,
    new IdempotentRequests(stores.idempotencyKeys, silentLogger, options.clock),
    stores.transactions,
    stores.accounts,
    stores.ledger,
    new RateLimiter(new MemorySlidingWindowStore()),
    new AnonymousCap(),
    stores.products,
    queue,
    bus,
    silentLogger,
  );
  return { scores, queue, bus, ...stores };
}

/** ScoreJobRunner over its real repositories and the heuristic scorer. */
export function scoreJobRunnerOn(
  dataSource: DataSource,
  crawler: Crawler,
  options: RunnerOptions & { bus?: ProgressBus } = {},
) {
  const stores = scoreStoresOn(dataSource);
  const { bus = new MemoryProgressBus(), ...runnerOptions } = options;
  const runner = new ScoreJobRunner(
    stores.jobs,
    stores.results,
    new ScorePopulationRepository(dataSource),
    stores.productRows,
    stores.transactions,
    () => crawler,
    new HeuristicScorer(),
    stores.ledger,
    bus,
    new DomainEvents(silentLogger),
    silentLogger,
    runnerOptions,
  );
  return { runner, ...stores };
}
