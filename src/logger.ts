import { pino, type Logger } from "pino";
import type { Config } from "./config.js";

/** Structured JSON logs; credentials in headers never reach them. */
export function createLogger(config: Pick<Config, "logLevel" | "env">): Logger {
  return pino({
    level: config.logLevel,
    base: { service: "product-maturity-scoring" },
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        'req.headers["x-api-key"]',
        'res.headers["set-cookie"]',
      ],
      censor: "[redacted]",
    },
  });
}
