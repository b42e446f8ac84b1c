import "reflect-metadata";
import { openDatabase } from "./db/database.js";
import { DomainEvents } from "./events/domain-events.js";
import { createLogger } from "./logger.js";
import { CreditLedger } from "./modules/billing/ledger.service.js";
import { AddressGuard } from "./modules/crawl/address-guard.js";
import { WebhookDispatcher } from "./modules/webhooks/webhook-dispatcher.js";
import { createScoringRuntime } from "./modules/score/scoring-runtime.js";
import { connectRedis } from "./redis.js";
import { configOrExit, stopOnSignals } from "./process-lifecycle.js";

/**
 * `npm run worker`: a process that only runs scoring jobs, from the BullMQ queue in
 * REDIS_URL, over the same Postgres as the API processes (DATABASE_URL). Progress
 * goes out through Redis pub/sub, so any API process can stream it.
 */
async function main(): Promise<void> {
  const config = configOrExit((candidate) => [
    ...(candidate.redisUrl ? [] : ["REDIS_URL is required for a worker process: without it jobs run inside the API process"]),
    ...(candidate.database.kind === "external" ? [] : ["DATABASE_URL is required for a worker process: it shares the API's database"]),
    ...(candidate.scoringWorkers > 0 ? [] : ["SCORE_WORKERS must be at least 1 for a worker process"]),
  ]);
  const redisUrl = config.redisUrl!;
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  const redis = connectRedis(redisUrl, logger);
  const events = new DomainEvents(logger);
  const runtime = createScoringRuntime({ config, dataSource: database.dataSource, redis, ledger: new CreditLedger(database.dataSource), events, logger });
  // Deliveries of the events this process records (score.completed) go out from here at once;
  // any process's dispatcher may take any due delivery (SKIP LOCKED), each exactly once.
  const webhooks = new WebhookDispatcher(database.dataSource, new AddressGuard({ allowlist: config.crawl.ssrfAllowlist }), events, logger, {
    publicBaseUrl: config.publicBaseUrl,
  }).start();
  logger.info({ concurrency: config.scoringWorkers }, "scoring worker ready");

  stopOnSignals(logger, "worker", async () => {
    await webhooks.stop();
    await runtime.close();
    await redis.close();
    await database.close();
  });
}

await main();
