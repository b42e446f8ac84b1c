import { pino, type Logger } from "pino";
import pretty from "pino-pretty";
import type { Config } from "./config.js";

/**
 * Structured JSON logs, credentials in headers never in them. On a terminal (or
 * LOG_FORMAT=pretty) the same records are printed for people by pino-pretty,
 * synchronously, so a start-up failure is on screen before the process exits.
 */
export function createLogger(config: Pick<Config, "logLevel" | "env" | "logFormat">, terminal = process.stdout.isTTY === true): Logger {
  const options = {
    level: config.logLevel,
    base: { service: "product-maturity-scoring" },
    redact: {
      paths: ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-api-key"]', 'res.headers["set-cookie"]'],
      censor: "[redacted]",
    },
  };
  const human = config.logFormat === "pretty" || (config.logFormat === undefined && terminal);
  if (!human) return pino(options);
  return pino(options, pretty({ colorize: terminal, sync: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname,service" }));
}
