import { Redis } from "ioredis";
import type { Logger } from "pino";

/**
 * The shared Redis connection (REDIS_URL). Commands never queue while it is down:
 * they fail at once, so callers (health now, rate limits later) can fail closed
 * and recover by themselves when Redis returns.
 */
export interface RedisConnection {
  readonly client: Redis;
  /** One PING, bounded in time; resolves to its round trip in ms. */
  ping(timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

export function connectRedis(url: string, logger: Logger): RedisConnection {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // A command cut off by a dropped connection is not replayed: a rate-limit hit would count twice.
    autoResendUnfulfilledCommands: false,
    connectTimeout: 2_000,
    // Keep trying in the background, at most every 2 s, so service resumes without a restart.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let reported = false;
  client.on("error", (error: Error) => {
    if (!reported) logger.warn({ err: error }, "Redis unavailable; retrying in the background");
    reported = true;
  });
  client.on("ready", () => {
    if (reported) logger.info("Redis available again");
    reported = false;
  });

  return {
    client,
    async ping(timeoutMs) {
      const started = performance.now();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          // A connection still being opened (the first moments after start) is waited for within the
          // same bound: without an offline queue a PING sent now fails at once, and health would call
          // a Redis that is merely connecting unreachable. One that is down or retrying fails at once.
          (client.status === "connecting" || client.status === "connect" ? readyOf(client) : Promise.resolve()).then(
            () => client.ping(),
          ),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(Object.assign(new Error("Redis ping timed out"), { code: "ETIMEDOUT" })),
              timeoutMs,
            );
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
      return Math.round((performance.now() - started) * 10) / 10;
    },
    async close() {
      client.disconnect();
    },
  };
}

/** Resolves when the client is ready; rejects if the connection attempt ends first. */
function readyOf(client: Redis): Promise<void> {
  return new Promise((resolve, reject) => {
    const ready = () => {
      client.off("end", ended);
      client.off("close", ended);
      resolve();
    };
    const ended = () => {
      client.off("ready", ready);
      client.off("end", ended);
      client.off("close", ended);
      reject(Object.assign(new Error("Redis connection closed"), { code: "ECONNREFUSED" }));
    };
    client.once("ready", ready);
    client.once("end", ended);
    client.once("close", ended);
  });
}
