import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { AppError } from "../../../errors.js";
import {
  DEFAULT_STORE_TIMEOUT_MS,
  FAIL_CLOSED_RETRY_AFTER_SECONDS,
  limiterUnavailableError,
  withDeadline,
} from "./fail-closed.js";
import { rateLimitHeaders, type RateLimitPolicy } from "./rate-limit-headers.js";

/**
 * One score per IP per hour for callers without an account. A fixed window is right
 * here (unlike the per-user limits): the cap is a sign-up nudge, and letting 2 through
 * across an hour boundary costs little; rate-limiter-flexible does it in one INCR.
 */
export const anonymousScorePolicy = {
  name: "anonymous",
  limit: 1,
  windowSeconds: 3600,
} as const satisfies RateLimitPolicy;

export interface AnonymousCapOptions {
  /** The service's connection (src/redis.ts); without it the cap lives in this process. */
  redis?: Redis;
  /** Namespace of the counters; tests use their own. */
  keyPrefix?: string;
  timeoutMs?: number;
}

export interface AnonymousCapResult {
  remaining: number;
  resetSeconds: number;
  headers: Record<string, string>;
}

export class AnonymousCap {
  private readonly limiter: RateLimiterAbstract;
  private readonly timeoutMs: number;

  constructor(options: AnonymousCapOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    const common = {
      keyPrefix: options.keyPrefix ?? "pms:rl:anon",
      points: anonymousScorePolicy.limit,
      duration: anonymousScorePolicy.windowSeconds,
    };
    this.limiter = options.redis
      ? new RateLimiterRedis({
          ...common,
          storeClient: options.redis,
          // No insuranceLimiter: falling back to per-process memory would let each
          // instance grant its own quota while Redis is down. Fail closed instead.
          rejectIfRedisNotReady: true,
        })
      : new RateLimiterMemory(common);
  }

  /** The headers of the IP's current state, taking nothing; undefined when the store cannot answer. */
  async peek(ip: string): Promise<Record<string, string> | undefined> {
    try {
      const state = await withDeadline(() => this.limiter.get(ip), this.timeoutMs);
      const used = state?.consumedPoints ?? 0;
      return rateLimitHeaders(anonymousScorePolicy, {
        remaining: Math.max(0, anonymousScorePolicy.limit - used),
        resetSeconds: state ? secondsUntil(state.msBeforeNext) : 0,
      });
    } catch {
      return undefined;
    }
  }

  /**
   * Takes the IP's one anonymous score, or throws: ANON_RATE_LIMIT with Retry-After until
   * the hour frees, or SCORING_RATE_LIMITED (Retry-After 60) when the store cannot answer.
   */
  async consume(ip: string): Promise<AnonymousCapResult> {
    let outcome: RateLimiterRes;
    try {
      outcome = await withDeadline(
        () => this.limiter.consume(ip),
        this.timeoutMs,
        () => this.giveBack(ip),
      );
    } catch (rejection) {
      // rate-limiter-flexible rejects with a RateLimiterRes when the quota is spent, with an Error otherwise.
      if (!(rejection instanceof RateLimiterRes)) {
        throw limiterUnavailableError(
          rejection,
          rateLimitHeaders(anonymousScorePolicy, { remaining: 0, resetSeconds: FAIL_CLOSED_RETRY_AFTER_SECONDS }),
        );
      }
      const retryAfter = secondsUntil(rejection.msBeforeNext);
      throw new AppError(
        "ANON_RATE_LIMIT",
        `Anonymous scoring is limited to ${anonymousScorePolicy.limit} per hour per address; retry in ${retryAfter} seconds or sign up.`,
        {
          headers: {
            ...rateLimitHeaders(anonymousScorePolicy, { remaining: 0, resetSeconds: retryAfter }),
            "Retry-After": String(retryAfter),
          },
        },
      );
    }
    const state = { remaining: outcome.remainingPoints, resetSeconds: secondsUntil(outcome.msBeforeNext) };
    return { ...state, headers: rateLimitHeaders(anonymousScorePolicy, state) };
  }

  /** A consume that landed after its caller was refused for a late store: the address keeps its score. */
  private giveBack(ip: string): void {
    this.limiter.reward(ip, 1).catch(() => undefined);
  }
}

/** Rounded up, and at least 1: "Retry-After: 0" would invite an immediate, refused retry. */
function secondsUntil(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
