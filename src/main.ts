import "reflect-metadata";
import { createApp } from "./app.js";
import { EmbeddedDatabaseError } from "./db/embedded-postgres.js";
import { createLogger } from "./logger.js";
import { configOrExit, listenFailure, stopOnSignals } from "./process-lifecycle.js";

/** Process entry: a bad configuration stops here, naming the variable. */
async function main(): Promise<void> {
  const bootStarted = performance.now();
  const config = configOrExit();
  const logger = createLogger(config);
  const app = await createApp(config, logger).catch((error: unknown) => {
    // Its message says what failed and what to do; a stack would only bury it.
    if (error instanceof EmbeddedDatabaseError) logger.fatal(error.message);
    else logger.fatal({ err: error }, listenFailure(error, config, "metrics") ?? "service failed to start");
    process.exit(1);
  });
  const url = await app.listen().catch(async (error: unknown) => {
    logger.fatal({ err: error }, listenFailure(error, config, "http") ?? "service could not listen");
    // Its embedded database and connections go with it.
    await app.close().catch(() => undefined);
    process.exit(1);
  });
  logger.info(
    { url, bootMs: Math.round(performance.now() - bootStarted), database: config.database.kind },
    "service listening",
  );

  stopOnSignals(logger, "service", () => app.close(), { drainMs: config.shutdownDrainMs });
}

await main();
