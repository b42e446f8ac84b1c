import "reflect-metadata";
import { openDatabase } from "./db/database.js";
import { DomainEvents } from "./events/domain-events.js";
import { DomainEventRepository } from "./events/domain-event.repository.js";
import { createLogger } from "./logger.js";
import { CreditLedger } from "./modules/billing/ledger.service.js";
import { CreditBalanceRepository } from "./modules/billing/credit-balance.repository.js";
import { CreditEntryRepository } from "./modules/billing/credit-entry.repository.js";
import { AddressGuard } from "./modules/crawl/address-guard.js";
import { WebhookDispatcher } from "./modules/webhooks/webhook-dispatcher.js";
import { ScoreJobRepository } from "./modules/score/score-job.repository.js";
import { WebhookHealthRepository } from "./modules/webhooks/webhook-health.repository.js";
import { WebhookLeaseRepository } from "./modules/webhooks/webhook-lease.repository.js";
import { Transactions } from "./db/transaction.js";
import { createScoringRuntime } from "./modules/score/scoring-runtime.js";
import { startMonitor } from "./modules/monitor/monitor-scheduler.js";
import { resultAnswerSchema, storeFinalResultAnswers } from "../rest-compat/final-answers/final-result-answers.js";
import { ResultAnswerRepository } from "../rest-compat/final-answers/result-answer.repository.js";
import { ResultAnswerStore } from "../rest-compat/final-answers/result-answer-store.js";
import { connectRedis } from "./redis.js";
import { ServiceMetrics } from "./metrics.js";
import { closeWithin } from "./bounded-close.js";
import { configOrExit, listenFailure, stopOnSignals } from "./process-lifecycle.js";

/**
 * `npm run worker`: a process that only runs scoring jobs, from the BullMQ queue in
 * REDIS_URL, over the same Postgres as the API processes (DATABASE_URL). Progress
 * goes out through Redis pub/sub, so any API process can stream it.
 */
async function main(): Promise<void> {
  const config = configOrExit((candidate) => [
    ...(candidate.redisUrl
      ? []
      : ["REDIS_URL is required for a worker process: without it jobs run inside the API process"]),
    ...(candidate.database.kind === "external"
      ? []
      : ["DATABASE_URL is required for a worker process: it shares the API's database"]),
    ...(candidate.scoringWorkers > 0 ? [] : ["SCORE_WORKERS must be at least 1 for a worker process"]),
  ]);
  const redisUrl = config.redisUrl!;
  const logger = createLogger(config);
  // What is open so far: closed in reverse should start-up fail half way (pools, sockets, the job consumer).
  const opened: Array<() => Promise<void>> = [];
  try {
    const database = await openDatabase(config, logger);
    opened.push(() => database.close());
    const redis = connectRedis(redisUrl, logger);
    opened.push(() => redis.close());
    const events = new DomainEvents(logger, new DomainEventRepository());
    // Job outcomes and durations are counted where jobs run: with METRICS_PORT, this process serves them too.
    const metrics = new ServiceMetrics(new ScoreJobRepository(database.dataSource));
    const transactions = new Transactions(database.dataSource);
    const ledger = new CreditLedger(
      new CreditEntryRepository(database.dataSource),
      new CreditBalanceRepository(database.dataSource),
      transactions,
      undefined,
      (action, tenths) => metrics.creditsSpent.inc({ action }, tenths / 10),
    );
    const runtime = createScoringRuntime({
      config,
      dataSource: database.dataSource,
      redis,
      ledger,
      events,
      logger,
      metrics,
    });
    opened.push(() => runtime.close());
    // Monitored products fall due in every process that runs jobs (claims are disjoint across processes).
    const monitor = startMonitor({
      config,
      dataSource: database.dataSource,
      scores: runtime.scores,
      ledger,
      events,
      logger,
    });
    if (monitor) opened.push(() => monitor.stop());
    // A completed result's REST answer is stored here, before its completion is announced.
    const schema = resultAnswerSchema(runtime.scores, runtime.results, config.scoreWaitMs);
    storeFinalResultAnswers({
      schema,
      store: new ResultAnswerStore(new ResultAnswerRepository(database.dataSource)),
      events,
      logger,
    });
    const metricsEndpoint = config.metrics ? await metrics.serve(config.metrics.port, config.metrics.host) : undefined;
    if (metricsEndpoint) logger.info({ url: metricsEndpoint.url }, "metrics endpoint listening");
    // Deliveries of the events this process records (score.completed) go out from here at once;
    // any process's dispatcher may take any due delivery (SKIP LOCKED), each exactly once.
    const webhooks = new WebhookDispatcher(
      new WebhookLeaseRepository(database.dataSource),
      new WebhookHealthRepository(database.dataSource),
      transactions,
      new AddressGuard({ allowlist: config.crawl.ssrfAllowlist }),
      events,
      logger,
      {
        publicBaseUrl: config.publicBaseUrl,
        onOutcome: (outcome) => metrics.webhookDeliveries.inc({ outcome }),
        ...config.webhooks,
      },
    ).start();
    logger.info({ concurrency: config.scoringWorkers }, "scoring worker ready");

    stopOnSignals(
      logger,
      "worker",
      async () => {
        // Each part bounded, as the service's stop: one that hangs is named and the rest still close.
        if (monitor) await closeWithin(monitor.stop(), "monitor scheduler", logger);
        await closeWithin(webhooks.stop(), "webhook dispatcher", logger);
        if (metricsEndpoint) await closeWithin(metricsEndpoint.close(), "metrics endpoint", logger);
        await runtime.close();
        await closeWithin(redis.close(), "Redis", logger);
        await database.close();
      },
      { drainMs: config.shutdownDrainMs },
    );
  } catch (error) {
    logger.fatal({ err: error }, listenFailure(error, config, "metrics") ?? "worker failed to start");
    for (const close of opened.reverse()) await close().catch(() => undefined);
    process.exit(1);
  }
}

await main();
