import "reflect-metadata";
import { ConfigError, loadConfigFromProcess, type Config } from "./config.js";
import { openDatabase } from "./db/database.js";
import { DomainEvents } from "./events/domain-events.js";
import { createLogger } from "./logger.js";
import { CreditLedger } from "./modules/billing/ledger.service.js";
import { createScoringRuntime } from "./modules/score/scoring-runtime.js";
import { connectRedis } from "./redis.js";
import { stopOnSignals } from "./shutdown.js";

/**
 * `npm run worker`: a process that only runs scoring jobs, from the BullMQ queue in
 * REDIS_URL, over the same Postgres as the API processes (DATABASE_URL). Progress
 * goes out through Redis pub/sub, so any API process can stream it.
 */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfigFromProcess();
    if (!config.redisUrl) throw new ConfigError(["REDIS_URL is required for a worker process: without it jobs run inside the API process"]);
    if (config.database.kind !== "external") throw new ConfigError(["DATABASE_URL is required for a worker process: it shares the API's database"]);
    if (config.scoringWorkers === 0) throw new ConfigError(["SCORE_WORKERS must be at least 1 for a worker process"]);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config);
  const database = await openDatabase(config, logger);
  const redis = connectRedis(config.redisUrl, logger);
  const events = new DomainEvents(logger);
  const runtime = createScoringRuntime({ config, dataSource: database.dataSource, redis, ledger: new CreditLedger(database.dataSource), events, logger });
  logger.info({ concurrency: config.scoringWorkers }, "scoring worker ready");

  stopOnSignals(logger, "worker", async () => {
    await runtime.close();
    await redis.close();
    await database.close();
  });
}

await main();
