import { AppError } from "../../../errors.js";

/**
 * When the limiter's store is down or stuck, requests are refused (docs/api.md §6): an
 * unmetered paid endpoint is worse than a short outage. Nothing is remembered about
 * the failure, so the first answer from the store ends the refusals by itself. A
 * refused request is charged no slot: a hit that may have been recorded is taken back.
 */
export const FAIL_CLOSED_RETRY_AFTER_SECONDS = 60;

/**
 * How long a request may wait for the store before it is refused. A healthy Redis
 * answers in a millisecond or two, but this process may not read that answer for a
 * while when its CPU is busy; only a store that is really down or stuck misses 1 s.
 * A store the client knows to be disconnected is refused at once, never after it.
 */
export const DEFAULT_STORE_TIMEOUT_MS = 1_000;

export class StoreTimeoutError extends Error {
  readonly code = "ETIMEDOUT";

  constructor(timeoutMs: number) {
    super(`rate-limit store did not answer within ${timeoutMs} ms`);
    this.name = "StoreTimeoutError";
  }
}

/**
 * Runs `work` with a deadline. A late answer is ignored, not cancelled: callers that
 * count a hit take it back themselves (see RateLimiter and AnonymousCap), handed the
 * late answer through `onLate` when it comes.
 *
 * The deadline is event-loop time: under CPU load the timer can fire while the
 * store's answer already waits, unread, in the socket. So when it fires, the refusal
 * waits one more turn (setImmediate runs after the poll phase, which reads that
 * socket): an answer that has arrived wins, and only a store that has not answered is
 * declared late.
 */
export async function withDeadline<T>(
  work: () => Promise<T>,
  timeoutMs: number,
  onLate?: (value: T) => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let turn: NodeJS.Immediate | undefined;
  // The async wrapper turns a synchronous throw from `work` into a rejection.
  const running = (async () => work())();
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      turn = setImmediate(() => reject(new StoreTimeoutError(timeoutMs)));
    }, timeoutMs);
  });
  try {
    return await Promise.race([running, deadline]);
  } catch (error) {
    if (error instanceof StoreTimeoutError) running.then(onLate, () => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
    clearImmediate(turn);
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
