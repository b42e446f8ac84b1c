/**
 * RateLimit-Policy and RateLimit fields as in draft-ietf-httpapi-ratelimit-headers-11
 * (May 2026; the syntax is unchanged since -08). Both are Structured Field lists whose
 * items are named policies:
 *
 *   RateLimit-Policy: "score";q=5;w=60     quota q per window w seconds
 *   RateLimit: "score";r=2;t=41            r units left, for the next t seconds
 *
 * Drafts up to -07 used `RateLimit-Policy: 5;w=60` and
 * `RateLimit: limit=5, remaining=2, reset=41`; clients of the current draft do not
 * parse that form, so it is not sent.
 */
export interface RateLimitPolicy {
  /** The policy's name in both fields: a Structured Field string, so keep it to [a-z-]. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface RateLimitState {
  readonly remaining: number;
  /**
   * The draft's effective window `t`: seconds during which no more than `remaining`
   * requests will be accepted. For a sliding window, until the oldest hit leaves it.
   */
  readonly resetSeconds: number;
}

export function rateLimitHeaders(policy: RateLimitPolicy, state: RateLimitState): Record<string, string> {
  return {
    "RateLimit-Policy": `"${policy.name}";q=${policy.limit};w=${policy.windowSeconds}`,
    RateLimit: `"${policy.name}";r=${state.remaining};t=${state.resetSeconds}`,
  };
}
