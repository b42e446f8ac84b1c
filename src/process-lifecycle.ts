import type { Logger } from "pino";
import { ConfigError, loadConfigFromProcess, type Config } from "./config.js";

/**
 * The configuration of this process, or exit 1 with one line per problem (never a
 * stack trace). `problems` adds what this kind of process needs on top.
 */
export function configOrExit(problems: (config: Config) => string[] = () => []): Config {
  try {
    const config = loadConfigFromProcess();
    const extra = problems(config);
    if (extra.length > 0) throw new ConfigError(extra);
    return config;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/**
 * SIGTERM/SIGINT: stop once (a second signal while draining is ignored), then exit
 * 0, or 1 when stopping failed. Shared by the API process and the worker process.
 */
export function stopOnSignals(logger: Logger, what: string, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${what} shutting down`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, `${what} shutdown failed`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
