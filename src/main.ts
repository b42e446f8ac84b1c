import "reflect-metadata";
import { createApp } from "./app.js";
import { ConfigError, loadConfigFromProcess, type Config } from "./config.js";
import { createLogger } from "./logger.js";

/** Process entry: a bad configuration stops here, naming the variable. */
async function main(): Promise<void> {
  const bootStarted = performance.now();
  let config: Config;
  try {
    config = loadConfigFromProcess();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config);
  const app = await createApp(config, logger).catch((error: unknown) => {
    logger.fatal({ err: error }, "service failed to start");
    process.exit(1);
  });
  const url = await app.listen();
  logger.info({ url, bootMs: Math.round(performance.now() - bootStarted), database: config.database.kind }, "service listening");

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

await main();
