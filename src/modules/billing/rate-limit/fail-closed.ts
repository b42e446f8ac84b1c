import { AppError } from "../../../errors.js";

/**
 * When the limiter's store is down or slow, requests are refused (DESIGN.md §6): an
 * unmetered paid endpoint is worse than a short outage. Nothing is remembered about
 * the failure, so the first answer from the store ends the refusals by itself.
 */
export const FAIL_CLOSED_RETRY_AFTER_SECONDS = 60;

/** How long a request may wait for the store before it is refused (~100 ms, issue 5). */
export const DEFAULT_STORE_TIMEOUT_MS = 100;

export class StoreTimeoutError extends Error {
  readonly code = "ETIMEDOUT";

  constructor(timeoutMs: number) {
    super(`rate-limit store did not answer within ${timeoutMs} ms`);
    this.name = "StoreTimeoutError";
  }
}

/**
 * Runs `work` with a deadline. A late answer is ignored, not cancelled: a hit that was
 * already sent may still be recorded although its caller was refused (a slow reply, or
 * ioredis resending unfulfilled commands after a reconnect). That errs on the side of
 * limiting, by at most the requests in flight when Redis slowed down or dropped.
 */
export async function withDeadline<T>(work: () => Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreTimeoutError(timeoutMs)), timeoutMs);
  });
  try {
    // The async wrapper turns a synchronous throw from `work` into a rejection.
    return await Promise.race([(async () => work())(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The refusal sent while the store cannot be asked; `headers` may add RateLimit fields. */
export function limiterUnavailableError(cause: unknown, headers: Record<string, string> = {}): AppError {
  return new AppError(
    "SCORING_RATE_LIMITED",
    `Rate limiting is temporarily unavailable, so the request was refused; retry in ${FAIL_CLOSED_RETRY_AFTER_SECONDS} seconds.`,
    { headers: { ...headers, "Retry-After": String(FAIL_CLOSED_RETRY_AFTER_SECONDS) }, cause },
  );
}
