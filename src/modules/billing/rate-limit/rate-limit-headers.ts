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

/**
 * The monthly API-call allowance as a policy beside the short windows: its quota is
 * the plan's ceiling, its window the billing cycle, and `t` the seconds until the
 * cycle ends (when the count starts again). Undefined for a plan without a ceiling.
 */
export function apiCallAllowanceHeaders(
  allowance: { readonly count: number; readonly limit: number | null; readonly cycle: { start: Date; end: Date } },
  now: Date,
): Record<string, string> | undefined {
  if (allowance.limit === null) return undefined;
  const { start, end } = allowance.cycle;
  return rateLimitHeaders(
    { name: "api-calls", limit: allowance.limit, windowSeconds: Math.round((end.getTime() - start.getTime()) / 1000) },
    {
      remaining: Math.max(0, allowance.limit - allowance.count),
      resetSeconds: Math.max(0, Math.ceil((end.getTime() - now.getTime()) / 1000)),
    },
  );
}

const RATE_LIMIT_FIELDS = new Set(["ratelimit", "ratelimit-policy"]);

/**
 * Adds `headers` to an answer's `target`. `RateLimit` and `RateLimit-Policy` are lists
 * of named policies (several may apply to one answer: a route's short window and the
 * API-call allowance): their items are merged by name, a later item replacing an
 * earlier one of the same name. Other fields are set.
 */
export function addResponseHeaders(target: Record<string, string>, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    const existing = Object.keys(target).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
    if (!RATE_LIMIT_FIELDS.has(name.toLowerCase()) || existing === undefined) {
      if (existing !== undefined) delete target[existing];
      target[name] = value;
      continue;
    }
    const items = new Map<string, string>();
    for (const item of [...splitItems(target[existing]!), ...splitItems(value)]) items.set(policyName(item), item);
    delete target[existing];
    target[name] = [...items.values()].join(", ");
  }
}

/** The items of a Structured Field list of policies (their parameters hold no commas). */
const splitItems = (value: string): string[] =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

const policyName = (item: string): string => /^"([^"]*)"/.exec(item)?.[1] ?? item;
