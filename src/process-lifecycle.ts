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

/** The servers a process may listen with, and the variables that move each. */
const LISTENERS = {
  http: { portVariable: "PORT", hostVariable: "HOST", port: (config: Config) => config.http.port },
  metrics: {
    portVariable: "METRICS_PORT",
    hostVariable: "METRICS_HOST",
    port: (config: Config) => config.metrics?.port,
  },
} as const;

/**
 * Why `server` could not listen, in words an operator acts on, naming the variable
 * to change; undefined for any other failure.
 */
export function listenFailure(error: unknown, config: Config, server: keyof typeof LISTENERS): string | undefined {
  const failure = error as { code?: unknown; syscall?: unknown; port?: unknown; address?: unknown } | null;
  if (!failure || typeof failure !== "object" || failure.syscall !== "listen" || typeof failure.code !== "string")
    return undefined;
  const { portVariable, hostVariable, port: configured } = LISTENERS[server];
  const port = String(failure.port ?? configured(config) ?? "");
  const address = String(failure.address ?? "");
  switch (failure.code) {
    case "EADDRINUSE":
      return `port ${port} on ${address} is already in use: stop what listens there, or set ${portVariable} to another port`;
    case "EACCES":
      return `not allowed to listen on port ${port} (ports below 1024 need privileges): set ${portVariable} to another port`;
    case "EADDRNOTAVAIL":
      return `${address} is not an address of this machine: set ${hostVariable}`;
    default:
      return undefined;
  }
}

/** The drain budget when the caller names none (SHUTDOWN_DRAIN_MS is the configured one). */
const DEFAULT_DRAIN_MS = 10_000;

/**
 * SIGTERM/SIGINT/SIGHUP: stop once (a second signal while draining is ignored), then exit
 * 0, or 1 when stopping failed. Shared by the API process and the worker process.
 * A stop that has not finished within `drainMs` exits 1 anyway: a supervisor kills
 * the process soon after (Docker at 10 s), and an exit of our own at least says so.
 *
 * Failures nobody caught are logged as JSON like every other line (never a bare
 * stack trace on stderr). A promise that failed with nobody waiting on it leaves
 * no half-done synchronous state, so serving goes on and the line is there to
 * alert on; a thrown exception nobody caught may have left anything half done,
 * so the process drains (bounded) and exits 1 for its supervisor to restart it.
 */
export function stopOnSignals(
  logger: Logger,
  what: string,
  close: () => Promise<void>,
  options: { readonly drainMs?: number } = {},
): void {
  const drainMs = options.drainMs ?? DEFAULT_DRAIN_MS;
  let stopping = false;
  let crashed = false;
  const stop = (reason: NodeJS.Signals | "crash") => {
    if (reason === "crash" && !crashed) {
      // Also during a drain already under way: that stop then ends with 1, within the bound.
      crashed = true;
      setTimeout(() => process.exit(1), drainMs).unref();
    }
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      logger.error({ drainMs }, `${what} did not stop within its drain budget (SHUTDOWN_DRAIN_MS); exiting`);
      process.exit(1);
    }, drainMs).unref();
    logger.info({ signal: reason === "crash" ? undefined : reason }, `${what} shutting down`);
    close().then(
      () => process.exit(crashed ? 1 : 0),
      (error: unknown) => {
        logger.error({ err: error }, `${what} shutdown failed`);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // The terminal it ran in closed: stop the same way (the embedded database included) rather than die where it stands.
  process.on("SIGHUP", stop);
  process.on("unhandledRejection", (reason: unknown) => {
    logger.error({ err: reason }, `${what}: a promise failed with nobody waiting on it; serving goes on`);
  });
  process.on("uncaughtException", (error: Error) => {
    logger.fatal({ err: error }, `${what}: an exception nobody caught; stopping`);
    stop("crash");
  });
}
