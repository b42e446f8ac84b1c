import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import pretty from "pino-pretty";
import type { Config } from "./config.js";

/** What stands in for a value that must never be written to a log. */
const REDACTED = "[redacted]";

/**
 * Where a logged error can hold a failed statement's bound values: TypeORM's
 * QueryFailedError keeps them in `parameters` (a webhook secret, say), as a
 * GraphQL error's cause or the cause's driver error. Redaction repeats what the
 * `err` serializer below already guarantees, in case another serializer replaces it.
 */
const BOUND_VALUE_PATHS = [
  "err.parameters",
  "err.driverError.parameters",
  "err.originalError.parameters",
  "err.originalError.driverError.parameters",
];

/** How deep the serializer looks for bound values: errors inside errors are few levels deep. */
const MAX_ERROR_DEPTH = 6;

/**
 * pino's own error serializer, minus every `parameters` it copies from the error
 * (and from errors inside it). The SQL text stays: it names the failed statement
 * with placeholders, never values. A copy is made, so the error itself is unchanged.
 */
export function serializeError(error: unknown): unknown {
  return withoutBoundValues(pino.stdSerializers.err(error as Error), 0);
}

/** Walks errors only (and lists of them): other objects an error holds (a response, a socket) are left as pino writes them. */
function withoutBoundValues(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object" || depth > MAX_ERROR_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => withoutBoundValues(item, depth + 1));
  if (typeof (value as { message?: unknown }).message !== "string") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value))
    copy[key] = key === "parameters" ? REDACTED : withoutBoundValues(inner, depth + 1);
  return copy;
}

/** The options every logger of the service is built with (the API and the worker alike). */
export function loggerOptions(config: Pick<Config, "logLevel">): LoggerOptions {
  return {
    level: config.logLevel,
    base: { service: "product-maturity-scoring" },
    serializers: { err: serializeError },
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        'req.headers["x-api-key"]',
        'res.headers["set-cookie"]',
        ...BOUND_VALUE_PATHS,
      ],
      censor: REDACTED,
    },
  };
}

/**
 * Structured JSON logs: credentials in headers and a failed statement's bound
 * values never in them. On a terminal (or LOG_FORMAT=pretty) the same records are
 * printed for people by pino-pretty, synchronously, so a start-up failure is on
 * screen before the process exits. `destination` (tests) replaces stdout for JSON.
 */
export function createLogger(
  config: Pick<Config, "logLevel" | "env" | "logFormat">,
  terminal = process.stdout.isTTY === true,
  destination?: DestinationStream,
): Logger {
  const options = loggerOptions(config);
  const human = config.logFormat === "pretty" || (config.logFormat === undefined && terminal);
  if (!human) return destination ? pino(options, destination) : pino(options);
  return pino(
    options,
    pretty({ colorize: terminal, sync: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname,service" }),
  );
}
