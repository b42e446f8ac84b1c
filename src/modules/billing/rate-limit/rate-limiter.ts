import { randomUUID } from "node:crypto";
import { AppError } from "../../../errors.js";
import {
  DEFAULT_STORE_TIMEOUT_MS,
  FAIL_CLOSED_RETRY_AFTER_SECONDS,
  limiterUnavailableError,
  withDeadline,
} from "./fail-closed.js";
import { rateLimitHeaders, type RateLimitPolicy } from "./rate-limit-headers.js";
import { HitNotSentError, type SlidingWindowStore } from "./sliding-window.js";

export type RateLimitedAction = "score" | "chat" | "webhook";

/**
 * The contract's short-window limits, per user (per IP for anonymous callers).
 * `webhook` (test events and replays) is per account: each one makes the service
 * send a request, so the account's members and keys share one budget.
 */
export const rateLimitPolicies = {
  score: { name: "score", limit: 5, windowSeconds: 60 },
  chat: { name: "chat", limit: 30, windowSeconds: 60 },
  webhook: { name: "webhook-sends", limit: 30, windowSeconds: 60 },
} as const satisfies Record<RateLimitedAction, RateLimitPolicy>;

const actionNouns: Record<RateLimitedAction, string> = {
  score: "score requests",
  chat: "chat messages",
  webhook: "webhook test events and replays",
};

/** The subject of an anonymous caller; user ids never start with "ip:". */
export const anonymousSubject = (ip: string): string => `ip:${ip}`;

/**
 * Whose window a member's request counts against, for every short-window limit
 * (score now, chat when it ships): the person when signed in, the account for an
 * API key, so all of an account's keys share one window and minting keys buys
 * no extra crawls. User ids are UUIDs and never start with "account:".
 */
export const memberSubject = (
  viewer:
    { readonly via: "session"; readonly userId: string } | { readonly via: "api_key"; readonly accountId: string },
): string => (viewer.via === "session" ? viewer.userId : accountSubject(viewer.accountId));

/** The whole account's window, whoever of it calls. */
export const accountSubject = (accountId: string): string => `account:${accountId}`;

export type RateLimitOutcome = "allowed" | "limited" | "store-unavailable";

/** What the HTTP layer sends: the headers on every answer, `toError()` on a refusal. */
export class RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetSeconds: number;
  /** Set on refusals only: the window, as the contract requires, whatever the cause. */
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    readonly action: RateLimitedAction,
    readonly outcome: RateLimitOutcome,
    state: { remaining: number; resetSeconds: number },
    /** Why the store could not be asked, for logs; never shown to the caller. */
    readonly cause?: unknown,
  ) {
    const policy = rateLimitPolicies[action];
    this.allowed = outcome === "allowed";
    this.limit = policy.limit;
    this.remaining = state.remaining;
    this.resetSeconds = state.resetSeconds;
    this.retryAfterSeconds = this.allowed
      ? undefined
      : outcome === "store-unavailable"
        ? FAIL_CLOSED_RETRY_AFTER_SECONDS
        : policy.windowSeconds;
    const headers = rateLimitHeaders(policy, state);
    this.headers =
      this.retryAfterSeconds === undefined ? headers : { ...headers, "Retry-After": String(this.retryAfterSeconds) };
  }

  /** The 429 to throw for a refusal (SCORING_RATE_LIMITED, retryable, with these headers). */
  toError(): AppError {
    if (this.allowed) throw new Error("toError() called on an allowed rate-limit decision");
    if (this.outcome === "store-unavailable") return limiterUnavailableError(this.cause, { ...this.headers });
    const policy = rateLimitPolicies[this.action];
    return new AppError(
      "SCORING_RATE_LIMITED",
      `Too many ${actionNouns[this.action]}: at most ${policy.limit} every ${policy.windowSeconds} seconds; retry in ${this.retryAfterSeconds} seconds.`,
      { headers: { ...this.headers } },
    );
  }
}

export interface RateLimiterOptions {
  /** Longest wait for the store before refusing (fail closed). */
  timeoutMs?: number;
  /** Milliseconds since the epoch; injected by tests to cross window edges without waiting. */
  clock?: () => number;
}

/**
 * Short-window limits for score, chat and webhook sends. It never throws: a store failure or a store
 * slower than `timeoutMs` is a refusal, and the next call asks the store again, so
 * service resumes as soon as the store answers (no breaker state to reset). A refused
 * caller's hit is taken back, so a refusal for an unavailable store costs no slot.
 */
export class RateLimiter {
  private readonly timeoutMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly store: SlidingWindowStore,
    options: RateLimiterOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.clock = options.clock ?? Date.now;
  }

  /**
   * The headers of `subject`'s current state, counting nothing (a replayed request
   * spends no slot but still says where the caller stands); undefined when the store
   * cannot answer, which only leaves the headers out.
   */
  async peek(action: RateLimitedAction, subject: string): Promise<Readonly<Record<string, string>> | undefined> {
    try {
      // A hit with a limit of 0 records nothing, in either store.
      return rateLimitHeaders(rateLimitPolicies[action], (await this.hit(action, subject, 0)).state);
    } catch {
      return undefined;
    }
  }

  /** Counts one request of `subject` (a user id, or `anonymousSubject(ip)`) when it is allowed. */
  async check(action: RateLimitedAction, subject: string): Promise<RateLimitDecision> {
    const hitId = randomUUID();
    try {
      const { allowed, state } = await this.hit(action, subject, rateLimitPolicies[action].limit, hitId);
      return new RateLimitDecision(action, allowed ? "allowed" : "limited", state);
    } catch (error) {
      // Late, or cut off after it was sent: the hit may still land, and this caller is refused.
      if (!(error instanceof HitNotSentError)) this.store.forget?.(storeKey(action, subject), hitId);
      return new RateLimitDecision(
        action,
        "store-unavailable",
        { remaining: 0, resetSeconds: FAIL_CLOSED_RETRY_AFTER_SECONDS },
        error,
      );
    }
  }

  /** Asks the store, within the deadline, for a hit allowed while fewer than `limit` are in the window. */
  private async hit(
    action: RateLimitedAction,
    subject: string,
    limit: number,
    hitId?: string,
  ): Promise<{ allowed: boolean; state: { remaining: number; resetSeconds: number } }> {
    const policy = rateLimitPolicies[action];
    const windowMs = policy.windowSeconds * 1000;
    const nowMs = this.clock();
    const hit = await withDeadline(
      () => this.store.hit(storeKey(action, subject), limit, windowMs, nowMs, hitId),
      this.timeoutMs,
    );
    // A slot frees when the oldest hit leaves the window; with no hit at all, nothing is pending.
    const resetSeconds =
      hit.oldestMs === undefined ? 0 : Math.max(0, Math.ceil((hit.oldestMs + windowMs - nowMs) / 1000));
    return { allowed: hit.allowed, state: { remaining: Math.max(0, policy.limit - hit.count), resetSeconds } };
  }
}

const storeKey = (action: RateLimitedAction, subject: string): string => `${action}:${subject}`;
