import type { Logger } from "pino";

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
