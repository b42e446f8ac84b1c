/**
 * The contract's retry policy (interface specification, Errors, rule 3): retry
 * 429 throttling answers only, a capped number of times, with a backoff that
 * starts from `Retry-After` and doubles. Never 402 (plan quota), nor any other
 * 4xx, nor 5xx: the contract names 429 alone, and a scoring POST that failed
 * with 5xx may have been charged (the error says `retryable`; the caller decides).
 */
export interface RetryPolicy {
  /** Sends in all, the first included (default 3). 1 turns retries off. */
  readonly maxAttempts: number;
  /** The first wait when the answer has no Retry-After (default 1 s). */
  readonly baseDelayMs: number;
  /**
   * The longest wait (default 120 s). A Retry-After beyond it is not waited out:
   * the refusal is answered at once (an anonymous caller's hour, say).
   */
  readonly maxDelayMs: number;
  /**
   * Up to this fraction is added to each wait at random (default 0.2), so clients
   * throttled together do not all come back in the same second. Only ever added:
   * no wait is shorter than the service's Retry-After.
   */
  readonly jitter: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 120_000, jitter: 0.2 };

/**
 * How long to wait before send number `attempt + 1`, after send `attempt` (1-based)
 * was throttled; undefined: do not retry.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const floor = retryAfterSeconds === undefined ? policy.baseDelayMs : retryAfterSeconds * 1_000;
  if (floor > policy.maxDelayMs) return undefined;
  // Never sooner than the service asked; doubled per retry; spread by the jitter; capped.
  const backoff = floor * 2 ** (attempt - 1) * (1 + Math.max(0, policy.jitter) * random());
  return Math.max(floor, Math.min(policy.maxDelayMs, Math.round(backoff)));
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1_000));
}

/**
 * A GraphQL refusal's wait: `extensions.retryAfter` in seconds, read like a
 * Retry-After header (the service puts the same wait in both; the extension is
 * what a graphql-ws answer, which has no headers, carries).
 */
export function graphQLRetryAfter(extensions: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const value = extensions?.retryAfter;
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? Math.ceil(value) : undefined;
  return typeof value === "string" ? parseRetryAfter(value) : undefined;
}

/** A wait for people: "45 s", "12 min", "1 h". */
export function formatWait(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 3_600) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 360) / 10} h`;
}
